/** A file's first bytes, hashed: tells a file that was replaced from one that only grew. */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Enough to tell two gzip streams apart (their deflate data differs within the first block). */
export const HEAD_BYTES = 4096;

export async function headHash(file: FileHandle, length: number): Promise<string> {
  const head = Buffer.alloc(Math.min(length, HEAD_BYTES));
  let read = 0;
  while (read < head.length) {
    const { bytesRead } = await file.read(head, read, head.length - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return createHash('sha256').update(head.subarray(0, read)).digest('hex');
}
