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

function inodeOf(socketPath: string): number | undefined {
  try {
    return lstatSync(socketPath).ino;
  } catch {
    return undefined;
  }
}

/** The socket this daemon bound, so that it never removes a file that is not its own. */
export interface OwnSocket {
  /** True while the file at the socket path is the one this daemon created. */
  isOwn(): boolean;
  /** Removes the socket file if it is still the one this daemon created. */
  remove(): void;
  /** Calls `onGone` once if the file is removed or replaced: then no client can reach us. */
  watch(intervalMs: number, onGone: (why: string) => void): void;
}

export function ownSocket(socketPath: string): OwnSocket {
  const inode = inodeOf(socketPath);
  let timer: NodeJS.Timeout | undefined;
  return {
    isOwn: () => inode !== undefined && inodeOf(socketPath) === inode,
    remove() {
      clearInterval(timer);
      if (inode !== undefined && inodeOf(socketPath) === inode) rmSync(socketPath, { force: true });
    },
    watch(intervalMs, onGone) {
      timer = setInterval(() => {
        const current = inodeOf(socketPath);
        if (current === inode) return;
        clearInterval(timer);
        onGone(current === undefined ? 'the socket file was removed' : 'the socket file was replaced');
      }, intervalMs);
      timer.unref();
    },
  };
}
