/**
 * Files in the sync folder, read and written only along plain dirs (issue 35): the folder is
 * carried by another program from other machines, so a symlink or a FIFO found in it is never
 * followed or opened, and a file is read only up to a size its kind can have. The sync folder
 * itself may be reached through a link (the user named it); nothing below it may be.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, rmdir, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { isMissingPath } from '../fs/read.js';
import { SYNC_DIR_MODE } from './layout.js';

/** A symlink at the end is refused (ELOOP), and a FIFO does not hold the open waiting for a writer. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Something in the sync folder that memd will not follow or open: a link, a FIFO, a file too large. */
export class RefusedPath extends Error {
  override name = 'RefusedPath';
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/** The dirs from `root` down to the file's own, each a plain dir; false when one is missing. */
async function plainDirs(root: string, dirs: readonly string[]): Promise<boolean> {
  let at = root;
  for (const dir of dirs) {
    at = join(at, dir);
    const stat = await lstat(at).catch((error: unknown) => {
      if (isMissingPath(error)) return null;
      throw error;
    });
    if (stat === null) return false;
    if (!stat.isDirectory()) throw new RefusedPath(`${at} is not a plain dir (a link is never followed)`);
  }
  return true;
}

/** What changes when a file is rewritten, replaced or copied over. */
export const fingerprintText = (stat: Stats): string => `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;

/** The file's fingerprint; null when it is not there. */
export async function fingerprintOf(path: string): Promise<string | null> {
  const stat = await lstat(path).catch((error: unknown) => {
    if (isMissingPath(error)) return null;
    throw error;
  });
  if (stat === null) return null;
  if (!stat.isFile()) throw new RefusedPath(`${path} is not a regular file`);
  return fingerprintText(stat);
}

/** `root/…segments` as text, or null when it (or a dir on its way) is not there (yet). */
export async function readSynced(root: string, segments: readonly string[], maxBytes: number): Promise<string | null> {
  if (!(await plainDirs(root, segments.slice(0, -1)))) return null;
  const path = join(root, ...segments);
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    if (isMissingPath(error)) return null;
    const code = errorCode(error);
    if (code === 'ELOOP' || code === 'EMLINK') throw new RefusedPath(`${path} is a symlink (never followed)`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new RefusedPath(`${path} is not a regular file`);
    if (stat.size > maxBytes) throw new RefusedPath(`${path} is over ${maxBytes} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Makes the dirs from `root` down, owner only, refusing any that is not a plain dir. */
async function makePlainDirs(root: string, dirs: readonly string[]): Promise<void> {
  let at = root;
  for (const dir of dirs) {
    at = join(at, dir);
    await mkdir(at, { mode: SYNC_DIR_MODE }).catch((error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error;
    });
    if (!(await lstat(at)).isDirectory()) throw new RefusedPath(`${at} is not a plain dir (a link is never followed)`);
  }
}

/** The whole seconds of an mtime: what rsync and rclone compare (with the size) to decide a file is unchanged. */
const MTIME_GRAIN_MS = 1_000;

/**
 * Writes `root/…segments` whole (a link in its place is replaced by the rename, never written
 * through). A rewrite of the same size within the second of the last would look unchanged to an
 * engine that compares size and mtime (rsync's default) and never be carried, so its mtime is moved
 * to the next second.
 */
export async function writeSynced(root: string, segments: readonly string[], text: string): Promise<void> {
  await makePlainDirs(root, segments.slice(0, -1));
  const path = join(root, ...segments);
  const before = await lstat(path).catch(() => null);
  await writeFileAtomic(path, text);
  if (before === null) return;
  const after = await lstat(path);
  const grain = (ms: number) => Math.floor(ms / MTIME_GRAIN_MS);
  if (after.size !== before.size || grain(after.mtimeMs) > grain(before.mtimeMs)) return;
  const next = new Date((grain(before.mtimeMs) + 1) * MTIME_GRAIN_MS);
  await utimes(path, after.atime, next);
}

/** Removes `root/…segments` if there, and the dirs it leaves empty down to `keep` segments. */
export async function removeSynced(root: string, segments: readonly string[], keep: number): Promise<void> {
  if (!(await plainDirs(root, segments.slice(0, -1)))) return;
  await unlink(join(root, ...segments)).catch((error: unknown) => {
    if (!isMissingPath(error)) throw error;
  });
  for (let depth = segments.length - 1; depth > keep; depth--) {
    const removed = await rmdir(join(root, ...segments.slice(0, depth))).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}
