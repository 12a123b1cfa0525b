/**
 * memctl's one atomic writer: a file's content goes to a temp file beside it, which is synced and
 * then renamed over the target, so a reader sees the old file or the new one, never half of one.
 * The temp file is created exclusively (a planted symlink makes that fail) and the rename replaces a
 * link at the target instead of following it.
 *
 * Two ways in. `createAtomicFile` writes piece by piece (an export runs to tens of MB, so it is not
 * built in memory first), refuses a target that is a symlink or not a regular file, and lets the
 * umask narrow the mode. `writeFileAtomic` writes a small file memctl owns (a unit file, a hook
 * binding, a work-tree file) with exactly the mode asked for, replacing whatever is at the target.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface AtomicFile {
  write(piece: string | Buffer): void;
  /** Syncs the file and puts it in place; the target then holds every piece written. */
  commit(): void;
  /** Removes the temp file; the target is left as it was. */
  abort(): void;
}

/**
 * The temp file an atomic write of `path` goes through, beside it: the daemon's names
 * (daemon/fs/atomic.ts), which its start-up sweep and the work tree's stale-temp cleanup know.
 */
export function atomicTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
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

/** The temp file and its put-in-place; `exactMode` sets the mode whatever the umask. */
function openAtomic(path: string, mode: number, exactMode: boolean): AtomicFile {
  const temp = atomicTempPath(path);
  // From its first byte the temp file has the final mode: no moment where others may read it.
  const fd = openSync(temp, 'wx', mode);
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  const file: AtomicFile = {
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
  if (exactMode) {
    try {
      fchmodSync(fd, mode);
    } catch (error) {
      file.abort();
      throw error;
    }
  }
  return file;
}

/**
 * `mode` is the most the file gets: the umask narrows it as it would any new file's (the file is
 * created with it, not chmod'ed after). A file already at `path` is replaced, so its mode is not kept.
 */
export function createAtomicFile(path: string, mode: number): AtomicFile {
  const refusal = refusalOf(path);
  if (refusal !== null) throw new Error(refusal);
  return openAtomic(path, mode, false);
}

/** `content` at `path` with exactly `mode`, put in place atomically; on a failed write the target is left as it was. */
export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const file = openAtomic(path, mode, true);
  try {
    file.write(content);
  } catch (error) {
    file.abort();
    throw error;
  }
  file.commit();
}
