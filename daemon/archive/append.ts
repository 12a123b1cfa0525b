/**
 * Appending to an archive file: one gzip member per run of new source bytes, written after the
 * bytes the book says the file holds (a torn tail from a crash is cut first) and flushed before the
 * book moves. Never through a symlink: the archive dir is memd's, and a link put there is refused.
 */
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ARCHIVE_DIR_MODE, ARCHIVE_FILE_MODE } from './layout.js';

const gzipAsync = promisify(gzip);
/** zlib's default: a sixth smaller than level 1 on transcripts, at half its speed (in the thread pool). */
const GZIP_LEVEL = 6;

/** Compresses in libuv's thread pool: the event loop only waits. */
export function compress(bytes: Uint8Array): Promise<Buffer> {
  return gzipAsync(bytes, { level: GZIP_LEVEL });
}

/** The archive would pass `archiveMaxBytes`: archiving stops until a prune makes room or the cap is raised. */
export class ArchiveCapReached extends Error {
  constructor(readonly capBytes: number) {
    super(`the archive has reached its size cap (archiveMaxBytes, ${capBytes} bytes)`);
  }
}

/** A write refused for want of space (or quota): archiving stops, with nothing half-written kept. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The archive file is shorter than the book says: it was cut or replaced by someone else. */
export class ArchiveDamagedError extends Error {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly expected: number,
  ) {
    super(`archive file ${path} holds ${size} bytes, fewer than the ${expected} memd wrote`);
  }
}

/**
 * Appends `member` at `at` (the file's committed length, cutting anything after it) and flushes;
 * returns the new length. The dir is made owner-only; the file is created 0600.
 */
export async function appendMember(path: string, at: number, member: Uint8Array): Promise<number> {
  await mkdir(dirname(path), { recursive: true, mode: ARCHIVE_DIR_MODE });
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, ARCHIVE_FILE_MODE);
  try {
    const { size } = await file.stat();
    if (size < at) throw new ArchiveDamagedError(path, size, at);
    if (size > at) await file.truncate(at);
    try {
      let written = 0;
      while (written < member.length) {
        const { bytesWritten } = await file.write(member, written, member.length - written, at + written);
        written += bytesWritten;
      }
      await file.datasync();
    } catch (error) {
      // A full disk mid-write leaves a partial member: cut back to what the book holds.
      await file.truncate(at).catch(() => undefined);
      throw error;
    }
    return at + member.length;
  } finally {
    await file.close();
  }
}

/** Cuts a torn tail (a crash between the write and the book) back to the committed length. */
export async function cutTornTail(path: string, at: number): Promise<'ok' | 'cut' | 'missing' | 'short'> {
  let file;
  try {
    file = await open(path, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return at === 0 ? 'ok' : 'missing';
    throw error;
  }
  try {
    const { size } = await file.stat();
    if (size === at) return 'ok';
    if (size < at) return 'short';
    await file.truncate(at);
    await file.datasync();
    return 'cut';
  } finally {
    await file.close();
  }
}
