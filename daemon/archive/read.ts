/**
 * Reading an archive back: its committed bytes inflated as a stream (zlib in the thread pool, the
 * event loop free between chunks), and compared with a file without holding either in memory.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

/**
 * Bytes per read of the archive and per inflated chunk: a 50 MB session in ~50 writes, not the
 * 3,000 of the streams' 16 KB default (each a thread-pool round trip).
 */
const CHUNK_BYTES = 1024 * 1024;

/** The source bytes an archive holds, in order; its first `archiveBytes` only (a torn tail is not the archive's). */
export async function* inflate(path: string, archiveBytes: number): AsyncGenerator<Buffer> {
  if (archiveBytes === 0) return;
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  // The stream closes the handle when it ends or fails.
  const raw = handle.createReadStream({ start: 0, end: archiveBytes - 1, highWaterMark: CHUNK_BYTES });
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  raw.on('error', (error) => gunzip.destroy(error));
  try {
    yield* raw.pipe(gunzip) as AsyncIterable<Buffer>;
  } finally {
    raw.destroy();
  }
}

/**
 * Whether the file at `path` starts with exactly the archive's bytes, and how long the archive's
 * content is. `whole`: the file must also end there.
 */
export function compareWithFile(
  archivePath: string,
  archiveBytes: number,
  path: string,
  whole: boolean,
): Promise<{ equal: boolean; inflated: number }> {
  return compareChunksWithFile(inflate(archivePath, archiveBytes), path, whole);
}

/** Whether the file at `path` starts with exactly these bytes (`whole`: and ends there), and how many there were. */
export async function compareChunksWithFile(
  chunks: AsyncIterable<Buffer>,
  path: string,
  whole: boolean,
): Promise<{ equal: boolean; inflated: number }> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await file.stat();
    if (!stat.isFile()) return { equal: false, inflated: 0 };
    let position = 0;
    let equal = true;
    let scratch = Buffer.alloc(0);
    for await (const chunk of chunks) {
      if (equal) {
        if (scratch.length < chunk.length) scratch = Buffer.alloc(chunk.length);
        const { bytesRead } = await file.read(scratch, 0, chunk.length, position);
        equal = bytesRead === chunk.length && scratch.subarray(0, bytesRead).equals(chunk);
      }
      position += chunk.length;
    }
    if (whole && stat.size !== position) equal = false;
    return { equal, inflated: position };
  } finally {
    await file.close();
  }
}

/** A plain file's first `bytes`, in chunks (another machine's decoded transcript, restored as the archive's are). */
export async function* plainChunks(path: string, bytes: number): AsyncGenerator<Buffer> {
  if (bytes === 0) return;
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const stream = handle.createReadStream({ start: 0, end: bytes - 1, highWaterMark: CHUNK_BYTES });
  try {
    yield* stream as AsyncIterable<Buffer>;
  } finally {
    stream.destroy();
  }
}
