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
  if (env.MEMD_SOCKET !== undefined && env.MEMD_SOCKET !== '' && paths.socketPath !== join(runtime, 'memd', 'memd.sock')) {
    return false;
  }
  return existsSync(join(runtime, 'systemd', 'private')) && existsSync(join(paths.systemdUserDir, 'memd.socket'));
}

function startWithSystemd(env: Env): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('systemctl', ['--user', 'start', 'memd.socket'], { timeout: SYSTEMCTL_TIMEOUT_MS, env }, (error) => resolve(!error));
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

export async function startDaemon(env: Env, paths: MemdPaths): Promise<StartResult> {
  if (systemdCanStart(env, paths) && (await startWithSystemd(env))) return { via: 'systemd' };
  return startDetached(env);
}
