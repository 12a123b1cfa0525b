/**
 * Whether memd answers, and the SessionStart hook's start of it when it does not (Claude Code's
 * first contact with a session). Nothing here waits for a daemon to be ready. Kept small: every
 * SessionStart loads it.
 */
import type { MemdPaths } from '../../shared/paths.js';
import { openSocket } from '../connection.js';

/**
 * A listening Unix socket is connected to by the kernel at once (no accept needed), so this is only
 * reached when something holds the socket without answering: then it is not ours to replace.
 * Roomy, so that a busy machine's slow event loop is not taken for that.
 */
export const PROBE_DEADLINE_MS = 200;

export type Probe = { state: 'answers' } | { state: 'absent' } | { state: 'unusable'; reason: string };

/** Nothing listens: no socket file (ENOENT), or one left behind by a daemon that died (ECONNREFUSED). */
function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

/** Connects and hangs up. A socket refused as unsafe, or one that does not connect in time, is `unusable`. */
export async function probeDaemon(socketPath: string, deadlineMs = PROBE_DEADLINE_MS): Promise<Probe> {
  try {
    (await openSocket(socketPath, deadlineMs)).destroy();
    return { state: 'answers' };
  } catch (error) {
    return isAbsent(error) ? { state: 'absent' } : { state: 'unusable', reason: (error as Error).message };
  }
}

export type StartOutcome = 'running' | 'started' | 'disabled' | 'unusable';

/**
 * The SessionStart hook's part: when nothing listens on the socket, memd is started in the
 * background and the hook goes on without it. Never over a socket that is someone else's or
 * unanswering, never when the user turned autostart off.
 */
export async function startUnlessRunning(
  paths: MemdPaths,
  env: NodeJS.ProcessEnv,
  autostart: boolean,
): Promise<StartOutcome> {
  const probe = await probeDaemon(paths.socketPath);
  if (probe.state === 'answers') return 'running';
  if (probe.state === 'unusable') return 'unusable';
  if (!autostart) return 'disabled';
  // Loaded only here: child_process costs every other hook run several milliseconds.
  const { startDaemonInBackground } = await import('../autostart.js');
  startDaemonInBackground(env, paths);
  return 'started';
}
