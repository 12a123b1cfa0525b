/**
 * One synced archive file decoded into a plain transcript in the state dir, from where it stopped:
 * whole members only (a torn last one waits for the rest), appended after the decoded bytes the
 * book holds (anything past them, from a crash, is cut first). A synced file shorter than what was
 * decoded is an older copy (an engine rolled it back, or a copy is still arriving): what was
 * decoded stays. A file whose first bytes changed, or that stops being members where the last one
 * ended, was started anew on its machine: decoded again from its start into a temp file that then
 * takes the decoded file's place (ingest reads it as a replaced transcript).
 */
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_FILE_MODE } from '../fs/atomic.js';
import { firstMember } from './gzip-members.js';
import { HEAD_BYTES, headHash } from './head.js';
import { SYNC_DIR_MODE } from './layout.js';
import type { ReceivedRow } from './store.js';

/** Compressed bytes read at once: several members of memd's (8 MB of source each, ~1-2 MB gzipped). */
const WINDOW_BYTES = 4 * 1024 * 1024;
/** The largest member waited for: a longer run without a whole member is a bad file, not a slow copy. */
const MAX_WINDOW_BYTES = 64 * 1024 * 1024;
/** What one member may inflate to: memd writes 8 MB of source per member; far more is not its. */
export const MAX_MEMBER_SOURCE_BYTES = 64 * 1024 * 1024;

export interface DecodeResult {
  row: ReceivedRow;
  /** Decoded bytes were added (or the file decoded anew). */
  changed: boolean;
  /** Input bytes left for a later call (the budget ran out). */
  more: boolean;
  /** Compressed bytes consumed. */
  consumed: number;
}

const fresh = (device: string, rel: string): ReceivedRow => ({
  device,
  rel,
  archive_bytes: 0,
  source_bytes: 0,
  head_len: 0,
  head_hash: '',
  seen_size: 0,
  seen_mtime_ms: 0,
  problem: null,
});

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await file.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read);
}

/**
 * Decodes what `source` holds beyond `known` into `target`, at most about `budget` compressed
 * bytes. Never throws for what the synced file holds (that is the row's `problem`); throws for
 * this machine's own faults (a full disk).
 */
export async function decodeFile(
  source: string,
  target: string,
  known: ReceivedRow | undefined,
  ids: { device: string; rel: string },
  budget: number,
): Promise<DecodeResult> {
  const input = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  const base = known ?? fresh(ids.device, ids.rel);
  if (input === null) return { row: base, changed: false, more: false, consumed: 0 };
  try {
    const stat = await input.stat();
    const seen = { seen_size: stat.size, seen_mtime_ms: Math.trunc(stat.mtimeMs) };
    if (!stat.isFile())
      return { row: { ...base, ...seen, problem: 'not a regular file' }, changed: false, more: false, consumed: 0 };
    // A file that failed, or whose last member was torn, is looked at again only once it changes.
    if (base.seen_size === seen.seen_size && base.seen_mtime_ms === seen.seen_mtime_ms && base.seen_size > 0)
      return { row: base, changed: false, more: false, consumed: 0 };
    // An older copy, or one still arriving (or one started anew, not past what was decoded yet): what was decoded stays.
    if (stat.size <= base.archive_bytes) return { row: { ...base, ...seen }, changed: false, more: false, consumed: 0 };
    if (base.archive_bytes > 0 && (await headHash(input, base.head_len)) !== base.head_hash)
      return await decodeAnew(input, target, base, seen);
    const outcome = await decodeInto(input, target, { ...base, ...seen, problem: null }, stat.size, budget);
    // Not members where the last one ended: started anew on its machine.
    if (outcome.row.problem !== null && base.archive_bytes > 0 && outcome.consumed === 0)
      return await decodeAnew(input, target, base, seen);
    return outcome;
  } finally {
    await input.close();
  }
}

async function decodeAnew(
  input: FileHandle,
  target: string,
  base: ReceivedRow,
  seen: { seen_size: number; seen_mtime_ms: number },
): Promise<DecodeResult> {
  const temp = `${target}.memd-decode`;
  await rm(temp, { force: true });
  // The whole file at once, whatever the budget: the decoded file is replaced only by a whole one.
  const outcome = await decodeInto(
    input,
    temp,
    { ...fresh(base.device, base.rel), ...seen },
    seen.seen_size,
    Number.POSITIVE_INFINITY,
  );
  if (outcome.consumed === 0) {
    // Not one whole member yet (still arriving) or none at all (bad): the decoded file stays as it was.
    await rm(temp, { force: true });
    return { row: { ...base, ...seen, problem: outcome.row.problem }, changed: false, more: false, consumed: 0 };
  }
  await rename(temp, target);
  return outcome;
}

async function decodeInto(
  input: FileHandle,
  target: string,
  row: ReceivedRow,
  size: number,
  budget: number,
): Promise<DecodeResult> {
  await mkdir(dirname(target), { recursive: true, mode: SYNC_DIR_MODE });
  const output = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  const next = { ...row };
  let consumed = 0;
  let more = false;
  try {
    const { size: decodedSize } = await output.stat();
    // Shorter than the book: the decoded copy was damaged; decoded again from the start.
    if (decodedSize < next.source_bytes) {
      next.archive_bytes = 0;
      next.source_bytes = 0;
    }
    if (decodedSize !== next.source_bytes) await output.truncate(next.source_bytes);
    let window = WINDOW_BYTES;
    while (next.archive_bytes < size && !more) {
      const bytes = await readAt(input, next.archive_bytes, Math.min(window, size - next.archive_bytes));
      let offset = 0;
      let stop = false;
      while (offset < bytes.length) {
        const member = await firstMember(bytes.subarray(offset), MAX_MEMBER_SOURCE_BYTES);
        if (member.kind === 'bad') {
          next.problem = `${member.reason} at byte ${next.archive_bytes + offset}`;
          stop = true;
          break;
        }
        if (member.kind === 'torn') break;
        await writeAll(output, member.data, next.source_bytes);
        next.source_bytes += member.data.length;
        offset += member.length;
        // The budget is counted in whole members: the next call goes on from here.
        if (consumed + offset >= budget && next.archive_bytes + offset < size) {
          more = true;
          break;
        }
      }
      next.archive_bytes += offset;
      consumed += offset;
      if (stop) break;
      if (offset === 0) {
        // A member longer than the window: a wider one, up to a bound; past it, or at the end of the file, it waits.
        if (window >= MAX_WINDOW_BYTES || next.archive_bytes + window >= size) break;
        window = Math.min(window * 4, MAX_WINDOW_BYTES);
      } else {
        window = WINDOW_BYTES;
      }
    }
    // Not flushed: the decoded copy is rebuilt from the synced file when a crash leaves it shorter than the book.
  } finally {
    await output.close();
  }
  if (consumed > 0 && next.head_len < HEAD_BYTES) {
    next.head_len = Math.min(next.archive_bytes, HEAD_BYTES);
    next.head_hash = await headHash(input, next.head_len);
  }
  // Stopped for the budget: not looked at whole, so the next call goes on though the file is unchanged.
  if (more) next.seen_size = 0;
  return { row: next, changed: consumed > 0, more, consumed };
}

async function writeAll(file: FileHandle, data: Buffer, at: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await file.write(data, written, data.length - written, at + written);
    written += bytesWritten;
  }
}
