/**
 * One pass over one transcript file: check that it is still the file indexed so far, read only
 * the bytes after its last complete line, chunk by chunk, and commit each chunk's lines with the
 * new offset in one transaction. A replaced or shrunk file is indexed again from its start; a
 * missing one is marked gone. Passes must not overlap (the ingestor runs one at a time): they
 * share one read buffer.
 */
import type Database from 'better-sqlite3';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { parseEntry } from '../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { Logger } from '../log/logger.js';
import type { TranscriptFile } from './layout.js';
import { LineSplitter, type LineSink, type PendingLine } from './line-reader.js';
import type { FileRow } from './store.js';
import { createIngestWriter, type BadLine, type FileIdentity } from './writer.js';

/** Large enough that syscalls and transactions are rare, small enough to stay a minor part of RSS. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** Claude Code's lines are far smaller; a longer one is recorded as bad rather than held. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Partial last lines kept between passes, over all files; beyond this they are read again. */
export const DEFAULT_CARRY_BUDGET_BYTES = 16 * 1024 * 1024;
/**
 * Read this much before committing (when a line is complete): each commit writes the file's row
 * and WAL frames, so committing per 1 MiB line costs a fifth of ingest time; fewer, larger
 * transactions cost only memory for the batch of parsed entries.
 */
export const DEFAULT_COMMIT_BYTES = 8 * 1024 * 1024;
/** ...or once this many entries wait: 8 MiB of short lines would be a large heap of parsed rows. */
const COMMIT_ENTRIES = 4096;
/** How much of a file's start identifies it (a replaced file almost always differs there). */
export const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

export interface CommitEvent {
  file: TranscriptFile;
  row: FileRow;
  entries: number;
  bad: readonly BadLine[];
  reset: boolean;
  bytesRead: number;
}

export interface TailerDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
  /** Called right after each transaction commits (publish events from here, not before). */
  onCommit(event: CommitEvent): void;
  chunkBytes?: number;
  maxLineBytes?: number;
  carryBudgetBytes?: number;
  commitBytes?: number;
}

export interface PassOptions {
  /** Asked between chunks with the bytes read so far; true ends the pass early (it resumes later). */
  shouldYield(bytesThisPass: number): boolean;
}

/** `absent`: missing and already known as gone (or never indexed). */
export type PassOutcome = 'caught-up' | 'yielded' | 'gone' | 'absent' | 'not-a-file';

export interface PassResult {
  outcome: PassOutcome;
  /** Rows or the gone flag changed. */
  changed: boolean;
  bytesRead: number;
  /** Inode and size up to which the file was read, when it was read to its end. */
  end: { ino: string; size: number } | null;
}

export interface TailerCounters {
  /** Transcript bytes read by this process. */
  bytesRead: number;
  /** Bytes read to check a file's identity (head, last newline). */
  checkBytesRead: number;
}

export interface Tailer {
  pass(target: TranscriptFile, options: PassOptions): Promise<PassResult>;
  readonly counters: TailerCounters;
}

interface Batch {
  entries: IndexedEntry[];
  bad: BadLine[];
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function hashOf(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** Turns complete lines into entries or bad lines; the per-line hot path of ingest. */
function batchSink(batch: Batch): LineSink {
  return {
    line(line, offset) {
      // A blank line carries nothing and is no error.
      if (line.length === 0) return;
      // isUtf8 validates with SIMD, several times faster than a fatal TextDecoder on the hot path.
      if (!isUtf8(line)) {
        batch.bad.push({ offset, length: line.length, reason: 'invalid-utf8' });
        return;
      }
      const text = line.toString('utf8');
      let entry: IndexedEntry | null;
      try {
        entry = parseEntry(JSON.parse(text) as unknown, offset, line.length);
      } catch {
        // JSON.parse failed, or a valid value was nested too deep to walk.
        batch.bad.push({ offset, length: line.length, reason: 'invalid-json' });
        return;
      }
      if (entry === null) batch.bad.push({ offset, length: line.length, reason: 'not-an-object' });
      else batch.entries.push(entry);
    },
    tooLong(offset, length) {
      batch.bad.push({ offset, length, reason: 'too-long' });
    },
  };
}

export function createTailer(deps: TailerDeps): Tailer {
  const { clock, onCommit } = deps;
  const writer = createIngestWriter(deps.db);
  const chunkBytes = deps.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  // Two buffers: the next chunk is read while the current one is parsed.
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] as const;
  const maxLineBytes = deps.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const carryBudget = deps.carryBudgetBytes ?? DEFAULT_CARRY_BUDGET_BYTES;
  const commitBytes = deps.commitBytes ?? DEFAULT_COMMIT_BYTES;
  const counters: TailerCounters = { bytesRead: 0, checkBytesRead: 0 };
  const carries = new Map<string, { ino: string; pending: PendingLine }>();
  let carriedBytes = 0;
  let busy = false;

  async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
    const bytes = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(bytes, 0, length, position);
    counters.checkBytesRead += bytesRead;
    return bytes.subarray(0, bytesRead);
  }

  /** Same inode, not shorter, same head, and the last committed line still ends in a newline. */
  async function isSameFile(handle: FileHandle, row: FileRow, identity: FileIdentity): Promise<boolean> {
    if (row.dev !== identity.dev || row.ino !== identity.ino) return false;
    if (identity.size < row.committed_offset) return false;
    if (row.committed_offset === 0) return true;
    if (row.head_len > 0 && hashOf(await readAt(handle, row.head_len, 0)) !== row.head_hash) return false;
    if (row.committed_offset > row.head_len) {
      const last = await readAt(handle, 1, row.committed_offset - 1);
      if (last[0] !== NEWLINE) return false;
    }
    return true;
  }

  async function headFor(handle: FileHandle, row: FileRow, committedOffset: number, reset: boolean): Promise<{ len: number; hash: string }> {
    const len = Math.min(HEAD_BYTES, committedOffset);
    if (!reset && row.head_len === len) return { len, hash: row.head_hash };
    if (len === 0) return { len: 0, hash: '' };
    return { len, hash: hashOf(await readAt(handle, len, 0)) };
  }

  function dropCarry(path: string): { ino: string; pending: PendingLine } | undefined {
    const carry = carries.get(path);
    if (carry === undefined) return undefined;
    carries.delete(path);
    carriedBytes -= carry.pending.bytes?.length ?? 0;
    return carry;
  }

  /** The partial line kept from the last pass, if it continues exactly where this pass starts. */
  function takeCarry(path: string, ino: string, start: number): PendingLine | undefined {
    const carry = dropCarry(path);
    return carry !== undefined && carry.ino === ino && carry.pending.offset === start ? carry.pending : undefined;
  }

  function keepCarry(path: string, ino: string, splitter: LineSplitter): void {
    if (splitter.nextOffset === splitter.completeOffset) return;
    const pending = splitter.pending();
    const bytes = pending.bytes?.length ?? 0;
    if (carriedBytes + bytes > carryBudget) return;
    carries.set(path, { ino, pending });
    carriedBytes += bytes;
  }

  function markGone(target: TranscriptFile): PassResult {
    dropCarry(target.path);
    const row = writer.getFile(target.path);
    if (row === undefined || row.gone === 1) return { outcome: 'absent', changed: false, bytesRead: 0, end: null };
    writer.markGone(row, clock());
    return { outcome: 'gone', changed: true, bytesRead: 0, end: null };
  }

  async function readNew(handle: FileHandle, target: TranscriptFile, options: PassOptions): Promise<PassResult> {
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile()) return { outcome: 'not-a-file', changed: false, bytesRead: 0, end: null };
    const identity: FileIdentity = { dev: String(stat.dev), ino: String(stat.ino), size: Number(stat.size) };
    const row = writer.getFile(target.path) ?? writer.insertFile(target, identity, clock());
    const reset = !(await isSameFile(handle, row, identity));
    const start = reset ? 0 : row.committed_offset;
    const batch: Batch = { entries: [], bad: [] };
    const splitter = new LineSplitter(batchSink(batch), maxLineBytes, start, takeCarry(target.path, identity.ino, start));
    let position = splitter.nextOffset;
    let committedOffset = start;
    let readSinceCommit = 0;
    let resetPending = reset;
    let changed = false;

    const commit = async () => {
      const offset = splitter.completeOffset;
      const head = await headFor(handle, row, offset, resetPending);
      const entries = batch.entries;
      const bad = batch.bad;
      const size = Math.max(identity.size, position);
      const bytesRead = readSinceCommit;
      writer.commit({ row, reset: resetPending, entries, bad, identity: { ...identity, size }, head, committedOffset: offset, bytesRead, now: clock() });
      onCommit({ file: target, row, entries: entries.length, bad, reset: resetPending, bytesRead });
      changed ||= resetPending || entries.length > 0 || bad.length > 0 || offset !== committedOffset;
      batch.entries = [];
      batch.bad = [];
      committedOffset = offset;
      readSinceCommit = 0;
      resetPending = false;
    };

    const readInto = (buffer: Buffer, at: number) => {
      const read = handle.read(buffer, 0, chunkBytes, at).then(({ bytesRead }) => bytesRead);
      // Awaited below unless the pass fails first; then its failure is of no interest.
      read.catch(() => {});
      return read;
    };
    let outcome: PassOutcome = 'caught-up';
    let passBytes = 0;
    let turn = 0;
    let next = readInto(buffers[0], position);
    for (;;) {
      const chunk = buffers[turn] as Buffer;
      const bytesRead = await next;
      if (bytesRead === 0) break;
      position += bytesRead;
      passBytes += bytesRead;
      readSinceCommit += bytesRead;
      counters.bytesRead += bytesRead;
      const yielding = options.shouldYield(passBytes);
      turn = 1 - turn;
      if (!yielding) next = readInto(buffers[turn] as Buffer, position);
      splitter.push(chunk.subarray(0, bytesRead));
      const due = readSinceCommit >= commitBytes || batch.entries.length >= COMMIT_ENTRIES;
      if (due && splitter.completeOffset !== committedOffset) await commit();
      if (yielding) {
        outcome = 'yielded';
        break;
      }
    }
    const size = Math.max(identity.size, position);
    const stale = row.gone === 1 || row.size !== size || row.dev !== identity.dev || row.ino !== identity.ino;
    if (resetPending || readSinceCommit > 0 || stale) await commit();
    keepCarry(target.path, identity.ino, splitter);
    return { outcome, changed, bytesRead: passBytes, end: outcome === 'caught-up' ? { ino: identity.ino, size: position } : null };
  }

  return {
    counters,
    async pass(target, options) {
      if (busy) throw new Error('tailer passes must not overlap');
      busy = true;
      try {
        let handle: FileHandle;
        try {
          handle = await open(target.path, 'r');
        } catch (error) {
          if (isMissing(error)) return markGone(target);
          throw error;
        }
        try {
          return await readNew(handle, target, options);
        } finally {
          await handle.close();
        }
      } finally {
        busy = false;
      }
    },
  };
}
