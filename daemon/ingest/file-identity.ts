/**
 * Whether an open transcript is still the file the index holds, and the hash of its head. The
 * reads are synchronous: a few bytes from the page cache take microseconds, where a thread-pool
 * read waits for a core that the parse worker and SQLite keep busy (~0.1 ms a call).
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import type { FileRow } from '../store/rows.js';
import type { FileIdentity } from './types.js';

/** How much of a file's start identifies it (a replaced file almost always differs there). */
export const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

/** Bytes read to check identities are counted apart from the transcript bytes ingested. */
export interface CheckCounter {
  checkBytesRead: number;
}

function hashOf(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

function readAt(fd: number, length: number, position: number, counter: CheckCounter): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  const read = readSync(fd, bytes, 0, length, position);
  counter.checkBytesRead += read;
  return bytes.subarray(0, read);
}

/** Same inode, not shorter, same head, and the last committed line still ends in a newline. */
export function isSameFile(fd: number, row: FileRow, identity: FileIdentity, counter: CheckCounter): boolean {
  if (row.dev !== identity.dev || row.ino !== identity.ino) return false;
  if (identity.size < row.committed_offset) return false;
  if (row.committed_offset === 0) return true;
  if (row.head_len > 0 && hashOf(readAt(fd, row.head_len, 0, counter)) !== row.head_hash) return false;
  if (row.committed_offset > row.head_len) {
    const last = readAt(fd, 1, row.committed_offset - 1, counter);
    if (last[0] !== NEWLINE) return false;
  }
  return true;
}

/** The head to record once the file is committed up to `committedOffset`. */
export function headFor(
  fd: number,
  row: FileRow,
  committedOffset: number,
  reset: boolean,
  counter: CheckCounter,
): { len: number; hash: string } {
  const len = Math.min(HEAD_BYTES, committedOffset);
  if (!reset && row.head_len === len) return { len, hash: row.head_hash };
  if (len === 0) return { len: 0, hash: '' };
  return { len, hash: hashOf(readAt(fd, len, 0, counter)) };
}
