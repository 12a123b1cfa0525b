/** Files users read are replaced atomically: write a temp file, fsync it, rename it over. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', mode);
  try {
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
