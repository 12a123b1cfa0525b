/**
 * Starting the daemon when none answers: through systemd's socket unit where a user systemd runs
 * and memd's units are installed, else as a detached `memd` that outlives this process.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Env, MemdPaths } from '../shared/paths.js';
import { daemonMainPath } from './install-paths.js';

/** systemctl answers in milliseconds; past this it is stuck and the detached start is tried instead. */
const SYSTEMCTL_TIMEOUT_MS = 2_000;

export interface StartResult {
  via: 'systemd' | 'detached';
  /** Resolves with the exit code if a detached daemon exits (it only does so at once on failure). */
  exited?: Promise<number | null>;
}

/** systemd starts the socket unit's socket, so it only helps when memd would listen there too. */
export function systemdCanStart(env: Env, paths: MemdPaths): boolean {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime === undefined || runtime === '') return false;
  if (
    env.MEMD_SOCKET !== undefined &&
    env.MEMD_SOCKET !== '' &&
    paths.socketPath !== join(runtime, 'memd', 'memd.sock')
  ) {
    return false;
  }
  return existsSync(join(runtime, 'systemd', 'private')) && existsSync(join(paths.systemdUserDir, 'memd.socket'));
}

function startWithSystemd(env: Env): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('systemctl', ['--user', 'start', 'memd.socket'], { timeout: SYSTEMCTL_TIMEOUT_MS, env }, (error) =>
      resolve(!error),
    );
  });
}

function startDetached(env: Env): StartResult {
  const child = spawn(process.execPath, [daemonMainPath()], { detached: true, stdio: 'ignore', env: { ...env } });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  child.unref();
  return { via: 'detached', exited };
}

/**
 * Starts memd and returns at once, for the SessionStart hook: nothing waits for the daemon to be
 * ready (the hook's budget is milliseconds), nothing of it is inherited (stdio ignored, its own
 * session, unref'd), and two starts at once are settled by the daemon's instance lock.
 */
export function startDaemonInBackground(env: Env, paths: MemdPaths): StartResult['via'] {
  const via = systemdCanStart(env, paths) ? 'systemd' : 'detached';
  const [command, args] =
    via === 'systemd' ? ['systemctl', ['--user', 'start', 'memd.socket']] : [process.execPath, [daemonMainPath()]];
  const child = spawn(command, args, { detached: true, stdio: 'ignore', env: { ...env } });
  // A start that fails (no such binary) must not crash the hook with a stack trace; the next session tries again.
  child.once('error', () => {});
  child.unref();
  return via;
}

export async function startDaemon(env: Env, paths: MemdPaths): Promise<StartResult> {
  if (systemdCanStart(env, paths) && (await startWithSystemd(env))) return { via: 'systemd' };
  return startDetached(env);
}
