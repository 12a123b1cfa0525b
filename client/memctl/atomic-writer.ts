/**
 * A file written piece by piece and put in place atomically (an export runs to tens of MB, so it
 * is not built in memory first): the pieces go to a temp file beside it, which is synced and then
 * renamed over the target. Nothing is written through a symlink: a target that is one is refused,
 * the temp file is created exclusively (a planted symlink makes that fail), and a rename replaces a
 * link that appears meanwhile instead of following it.
 */
import { atomicTempPath } from './fs-atomic.js';
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface AtomicFile {
  write(piece: string | Buffer): void;
  /** Syncs the file and puts it in place; the target then holds every piece written. */
  commit(): void;
  /** Removes the temp file; the target is left as it was. */
  abort(): void;
}

/** Why `path` cannot be replaced by a file (a symlink, a directory), or null when it can. */
export function refusalOf(path: string): string | null {
  let found;
  try {
    found = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (found.isSymbolicLink()) return `${path} is a symlink; memctl does not write through symlinks`;
  if (!found.isFile()) return `${path} exists and is not a regular file`;
  return null;
}

/**
 * `mode` is the most the file gets: the umask narrows it as it would any new file's (the file is
 * created with it, not chmod'ed after). A file already at `path` is replaced, so its mode is not kept.
 */
export function createAtomicFile(path: string, mode: number): AtomicFile {
  const refusal = refusalOf(path);
  if (refusal !== null) throw new Error(refusal);
  const temp = atomicTempPath(path);
  // From its first byte the temp file has the final mode: no moment where others may read it.
  const fd = openSync(temp, 'wx', mode);
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(piece) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    },
    commit() {
      fsyncSync(fd);
      close();
      renameSync(temp, path);
      // The rename is durable only once the directory entry is.
      const dirFd = openSync(dirname(path), 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
    },
    abort() {
      close();
      rmSync(temp, { force: true });
    },
  };
}
