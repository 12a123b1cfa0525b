/** `memctl start` and `memctl stop`. */
import { readFileSync } from 'node:fs';
import { DEFAULT_SHUTDOWN_DEADLINE_MS } from '../../../shared/config.js';
import { ClientError } from '../../errors.js';
import { type Command, EXIT_ERROR, EXIT_OK, UsageError } from '../context.js';

/** Past the daemon's deadline: its last steps, the log's flush and the process's end on a loaded machine. */
const STOP_MARGIN_MS = 2_000;
const STOP_POLL_MS = 25;

/** The deadline the daemon gave in its daemon.shutdown answer (from the wire, so checked); a daemon from before it said one gets the default. */
function deadlineOf(answer: unknown): number {
  const deadlineMs = (answer as { deadlineMs?: unknown } | null)?.deadlineMs;
  return typeof deadlineMs === 'number' && Number.isSafeInteger(deadlineMs) && deadlineMs > 0
    ? deadlineMs
    : DEFAULT_SHUTDOWN_DEADLINE_MS;
}

/** Waits until `pid` is gone, at most `waitMs`; true when it is. */
export async function waitForExit(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (!processAlive(pid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
  }
}

/** How long stop waits after asking: the daemon's deadline and a margin. */
export function stopWaitMs(answer: unknown): number {
  return deadlineOf(answer) + STOP_MARGIN_MS;
}

/** The pid in memd's instance lock, if that process lives: a daemon that holds the lock but does not answer. */
function lockHolder(lockPath: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(lockPath, 'utf8').split('\n')[0] ?? '', 10);
  } catch {
    return null;
  }
  return Number.isSafeInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export const start: Command = async (ctx) => {
  if (ctx.args.length > 0) throw new UsageError('start takes no arguments');
  const client = ctx.client({ autostart: true });
  try {
    const status = await client.daemonStatus();
    const how = client.started ? `started via ${client.started}` : 'already running';
    ctx.out.out(`memd ${status.version} ${how} (pid ${status.pid}) on ${status.paths.socket}`);
    return 0;
  } finally {
    client.close();
  }
};

export const stop: Command = async (ctx) => {
  if (ctx.args.length > 0) throw new UsageError('stop takes no arguments');
  const client = ctx.client({ autostart: false });
  let pid: number;
  let waitMs: number;
  try {
    pid = (await client.daemonStatus()).pid;
    waitMs = stopWaitMs(await client.daemonShutdown({ reason: 'memctl stop' }));
  } catch (error) {
    if (!(error instanceof ClientError && error.kind === 'NoDaemon')) throw error;
    // Nothing answers; a live process holding the lock is a daemon all the same (one shutting down, or stuck).
    const holder = lockHolder(client.paths.lockPath);
    if (holder === null) {
      ctx.out.out('memd is not running');
      return EXIT_OK;
    }
    ctx.out.err(
      `memctl: memd (pid ${holder}) holds ${client.paths.lockPath} but does not answer on ${client.socketPath}: it is shutting down or stuck; see ${client.paths.logPath}, or kill it with: kill ${holder}`,
    );
    return EXIT_ERROR;
  } finally {
    client.close();
  }
  // The socket goes early in a shutdown; only the process being gone means the lock is free.
  if (await waitForExit(pid, waitMs)) {
    ctx.out.out(`memd stopped (pid ${pid})`);
    return EXIT_OK;
  }
  ctx.out.err(
    `memctl: memd (pid ${pid}) did not stop within ${seconds(waitMs)}; ${client.paths.logPath} says what it was waiting for; kill it with: kill -9 ${pid}`,
  );
  return EXIT_ERROR;
};

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
