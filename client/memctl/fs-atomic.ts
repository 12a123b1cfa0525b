/** Files users read are replaced atomically: write a temp file, fsync it, rename it over. */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  // The daemon's temp names (daemon/fs/atomic.ts): its start-up sweep and the work tree's stale-temp cleanup know them.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
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
