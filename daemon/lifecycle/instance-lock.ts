/**
 * One daemon per state dir: `memd.lock` holds the owner's pid. It is created with O_EXCL (via a
 * hard link of a complete temp file, so no reader ever sees it half-written). A lock whose pid is
 * dead is taken over, which is what lets a new daemon start right after `kill -9`.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export class LockHeldError extends Error {
  override name = 'LockHeldError';
  constructor(
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(`memd is already running (pid ${pid}); lock ${lockPath}`);
  }
}

export interface InstanceLock {
  readonly path: string;
  release(): void;
}

/** Two racing takeovers cannot both win; a third attempt means something else keeps interfering. */
const MAX_ACQUIRE_ATTEMPTS = 3;

function readOwnerPid(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim().split('\n')[0] ?? '', 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireInstanceLock(lockPath: string, pid = process.pid): InstanceLock {
  const temp = `${lockPath}.${pid}.tmp`;
  writeFileSync(temp, `${pid}\n${new Date().toISOString()}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < MAX_ACQUIRE_ATTEMPTS; attempt++) {
      try {
        linkSync(temp, lockPath);
        return {
          path: lockPath,
          release() {
            if (readOwnerPid(lockPath) === pid) rmSync(lockPath, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwnerPid(lockPath);
      if (owner !== undefined && owner !== pid && isProcessAlive(owner)) throw new LockHeldError(owner, lockPath);
      // Dead or unreadable owner: move the stale lock aside atomically, so that of two racing
      // takeovers only one removes it; the loser then finds the winner's live lock.
      const aside = `${lockPath}.stale-${pid}`;
      try {
        renameSync(lockPath, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        continue;
      }
      const movedOwner = readOwnerPid(aside);
      if (movedOwner !== undefined && movedOwner !== pid && isProcessAlive(movedOwner)) {
        // A racing daemon took the lock between our read and our rename: give it back.
        try {
          linkSync(aside, lockPath);
        } finally {
          rmSync(aside, { force: true });
        }
        throw new LockHeldError(movedOwner, lockPath);
      }
      rmSync(aside, { force: true });
    }
    const owner = readOwnerPid(lockPath);
    throw new LockHeldError(owner ?? -1, lockPath);
  } finally {
    rmSync(temp, { force: true });
  }
}
