/** Files users read are replaced atomically: write a temp file, fsync it, rename it over. */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The temp file an atomic write of `path` goes through, beside it: the daemon's names
 * (daemon/fs/atomic.ts), which its start-up sweep and the work tree's stale-temp cleanup know.
 */
export function atomicTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const temp = atomicTempPath(path);
  // 'wx': a temp name planted as a symlink in the directory is refused, not written through.
  const fd = openSync(temp, 'wx', mode);
  try {
    // The mode asked for, whatever the umask.
    fchmodSync(fd, mode);
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  // The rename is durable only once the directory entry is.
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
