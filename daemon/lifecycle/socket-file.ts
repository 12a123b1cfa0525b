/** The socket file: a stale one is removed only by the lock holder, and only if it is a socket. */
import { lstatSync, rmSync } from 'node:fs';

export class SocketPathError extends Error {
  override name = 'SocketPathError';
}

/** Call only while holding the instance lock: then no live daemon can own this socket. */
export function removeStaleSocket(socketPath: string): boolean {
  let stats;
  try {
    stats = lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!stats.isSocket()) {
    throw new SocketPathError(`${socketPath} exists and is not a socket; move it away or set MEMD_SOCKET`);
  }
  rmSync(socketPath, { force: true });
  return true;
}
