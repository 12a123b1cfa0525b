/** `memctl start` and `memctl stop`. */
import { connect } from 'node:net';
import { ClientError } from '../../errors.js';
import { UsageError, type Command } from '../context.js';

/** How long `stop` waits for the daemon to let go of its socket after answering. */
const STOP_DEADLINE_MS = 10_000;
const STOP_POLL_MS = 25;

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

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
  let socketActivated: boolean;
  try {
    const status = await client.daemonStatus();
    pid = status.pid;
    socketActivated = status.socketActivated;
    await client.daemonShutdown({ reason: 'memctl stop' });
  } catch (error) {
    if (error instanceof ClientError && error.kind === 'NoDaemon') {
      ctx.out.out('memd is not running');
      return 0;
    }
    throw error;
  } finally {
    client.close();
  }
  const deadline = Date.now() + STOP_DEADLINE_MS;
  while (Date.now() < deadline) {
    const alive = socketActivated ? processAlive(pid) : await answers(client.socketPath);
    if (!alive) {
      ctx.out.out(`memd stopped (pid ${pid})`);
      return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
  }
  throw new ClientError('Timeout', `memd (pid ${pid}) did not stop within ${STOP_DEADLINE_MS / 1000} s; kill it with: kill ${pid}`);
};

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
