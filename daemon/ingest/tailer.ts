/**
 * One pass over one transcript file: check that it is still the file indexed so far, read only
 * the bytes after its last complete line, chunk by chunk, and commit the parsed lines with the new
 * offset in one transaction. Parsing runs in a LineParser (a worker thread by default) a few chunks
 * ahead of the commits. A replaced or shrunk file is indexed again from its start; a missing one is
 * marked gone. One tailer runs one pass at a time (its lane of the parser); the ingestor runs
 * several tailers, never two on the same file.
 */

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { TranscriptFile } from '../../shared/transcript/layout.js';
import { isInside, realPathOrNull } from '../fs/inside.js';
import { isMissingPath } from '../fs/read.js';
import type { Logger } from '../log/logger.js';
import { type EntryParam, firstSessionId } from '../store/entry-row.js';
import type { SearchParam } from '../store/search-row.js';
import { commitTurn } from './commit-turn.js';
import { headFor, isSameFile } from './file-identity.js';
import { createGroupPass } from './group-pass.js';
import { createInlineParser, type LineParser } from './parser.js';
import { ParseFault } from './retries.js';
import type {
  BadLine,
  CommitEvent,
  CommitObserver,
  FileIdentity,
  ParsedChunk,
  PassChoices,
  PassOutcome,
  PassResult,
  TailerCounters,
} from './types.js';
import { createIngestWriter, readsSearchTexts } from './writer.js';

/** Large enough that syscalls and transactions are rare, small enough to stay a minor part of RSS. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** Claude Code's lines are far smaller; a longer one is recorded as bad rather than held. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Partial last lines kept between passes, over all files; beyond this they are read again. */
export const DEFAULT_CARRY_BUDGET_BYTES = 16 * 1024 * 1024;
/**
 * Read this much before committing (when a line is complete): each commit writes the file's row
 * and WAL frames, so committing per 1 MiB line costs a fifth of ingest time. A commit holds the
 * main thread, and every request waits behind it: at 8 MiB a big file's commits took 25-72 ms
 * (~2,450 entries); at 4 MiB they stay under 40 ms, for 5 % more transactions and no measurable
 * ingest time (942 MB backfill, three runs each).
 */
export const DEFAULT_COMMIT_BYTES = 4 * 1024 * 1024;
/** ...or once this many entries wait (short lines): at ~25 µs an entry, a commit near 40 ms. */
const COMMIT_ENTRIES = 1536;
/**
 * The longest a pass keeps the event loop from requests and events: parsed chunks often wait
 * ready, so awaiting them never yields, and a big file would hold the loop for seconds.
 */
const YIELD_AFTER_MS = 10;

export interface TailerDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
  /** Called right after each transaction commits (publish events from here, not before). */
  onCommit(event: CommitEvent): void;
  /** Keeps what derives from the rows in each commit's transaction (the sessions' aggregates). */
  observer?: CommitObserver | undefined;
  chunkBytes?: number;
  maxLineBytes?: number;
  carryBudgetBytes?: number;
  commitBytes?: number | undefined;
  /**
   * The dir a transcript must resolve inside (the projects dir, or another machine's synced root):
   * one that resolves elsewhere (a symlink to elsewhere) is not read. Unset in tests that index a dir of their own.
   */
  rootOf?: (target: TranscriptFile) => string;
  /**
   * The parser and the lane of it this tailer uses (the ingestor shares one worker parser among
   * its tailers). Default: an inline parser of its own, built from the limits above.
   */
  parser?: { parser: LineParser; lane: number };
  /** Shared by the tailers of one ingestor. */
  counters?: TailerCounters;
}

export interface PassOptions extends PassChoices {
  /** Asked between chunks with the bytes read so far; true ends the pass early (it resumes later). */
  shouldYield(bytesThisPass: number): boolean;
}

export interface Tailer {
  pass(target: TranscriptFile, options: PassOptions): Promise<PassResult>;
  /**
   * One pass over several small files, committed in one transaction (group-pass.ts): a result per
   * target, null for one it left to a pass of its own.
   */
  passGroup(targets: readonly TranscriptFile[], options?: PassChoices): Promise<(PassResult | null)[]>;
  readonly counters: TailerCounters;
  /** Stops the parser if the tailer made its own; call once no pass runs. */
  close(): Promise<void>;
}

/** Parsed chunks waiting for their commit. */
interface Batch {
  /** One array of INSERT parameters per chunk (copying them into one array costs more than it saves). */
  rows: EntryParam[][];
  count: number;
  bad: BadLine[];
  newest: string | null;
  completeOffset: number;
  /** Absent when the pass does not read them (writer.ts readsSearchTexts). */
  search: SearchParam[][] | undefined;
}

function absorb(batch: Batch, parsed: ParsedChunk): void {
  if (parsed.count > 0) batch.rows.push(parsed.rows);
  if (parsed.search.length > 0) batch.search?.push(parsed.search);
  batch.count += parsed.count;
  for (const bad of parsed.bad) batch.bad.push(bad);
  if (parsed.newest !== null && (batch.newest === null || parsed.newest > batch.newest)) batch.newest = parsed.newest;
  batch.completeOffset = parsed.completeOffset;
}

/** Whether the path, symlinks resolved, is inside its root (a gone path counts as inside: it is marked gone). */
function insideRoot(path: string, root: string): boolean {
  const real = realPathOrNull(path);
  if (real === null) return true;
  return isInside(realPathOrNull(root) ?? root, real);
}

/** The first bytes of a kept partial line, re-read when a pass resumes it (tells a rewrite apart). */
const FINGERPRINT_BYTES = 64;

/** `length` bytes of the file at `offset` (fewer at its end; none when it cannot be read). */
function fingerprintAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, length, offset));
  } catch {
    return buffer.subarray(0, 0);
  }
}

export function createTailer(deps: TailerDeps): Tailer {
  const { clock, onCommit } = deps;
  const writer = createIngestWriter(deps.db, deps.observer);
  const commitBytes = deps.commitBytes ?? DEFAULT_COMMIT_BYTES;
  const own = deps.parser === undefined;
  const { parser, lane } = deps.parser ?? {
    parser: createInlineParser({
      lanes: 1,
      slotBytes: deps.chunkBytes ?? DEFAULT_CHUNK_BYTES,
      maxLineBytes: deps.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      carryBudgetBytes: deps.carryBudgetBytes ?? DEFAULT_CARRY_BUDGET_BYTES,
    }),
    lane: 0,
  };
  const chunkBytes = parser.slotBytes;
  const slots = parser.slots(lane);
  const counters: TailerCounters = deps.counters ?? { bytesRead: 0, checkBytesRead: 0 };
  let busy = false;

  const group = createGroupPass({
    writer,
    parser,
    lane,
    counters,
    clock,
    onCommit,
    ...(deps.rootOf === undefined ? {} : { rootOf: deps.rootOf }),
  });

  function markGone(target: TranscriptFile): PassResult {
    parser.forget(target.path);
    const row = writer.getFile(target.path);
    if (row === undefined || row.gone === 1)
      return {
        outcome: 'absent',
        changed: false,
        bytesRead: 0,
        end: null,
        sessionId: row?.session_id ?? target.sessionId,
      };
    writer.markGone(row, clock());
    return { outcome: 'gone', changed: true, bytesRead: 0, end: null, sessionId: row.session_id };
  }

  async function readNew(fd: number, target: TranscriptFile, options: PassOptions): Promise<PassResult> {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile())
      return { outcome: 'not-a-file', changed: false, bytesRead: 0, end: null, sessionId: target.sessionId };
    const identity: FileIdentity = { dev: String(stat.dev), ino: String(stat.ino), size: Number(stat.size) };
    const row = writer.getFile(target.path) ?? writer.insertFile(target, identity, clock());
    const reset = !isSameFile(fd, row, identity, counters);
    const start = reset ? 0 : row.committed_offset;
    const search = readsSearchTexts(row, reset, options.deferSearch === true);
    const emptyBatch = (completeOffset: number): Batch => ({
      rows: [],
      count: 0,
      bad: [],
      newest: null,
      completeOffset,
      search: search ? [] : undefined,
    });
    let batch = emptyBatch(start);
    let position = parser.begin(lane, {
      path: target.path,
      ino: identity.ino,
      start,
      fileId: row.id,
      search,
      stillThere: (offset, fingerprint) => fingerprintAt(fd, offset, fingerprint.length).equals(fingerprint),
    });
    let committedOffset = start;
    let parsedSinceCommit = 0;
    let resetPending = reset;
    let changed = false;
    let kept = false;

    /** Commits the batch, in a turn of the event loop of its own (commit-turn.ts). */
    const commit = async () => {
      await commitTurn(options.commitRank);
      const offset = batch.completeOffset;
      const head = headFor(fd, row, offset, resetPending, counters);
      const { rows, count, bad, newest } = batch;
      const size = Math.max(identity.size, position);
      const bytesRead = parsedSinceCommit;
      const sessionId = target.sessionFromEntries ? (firstSessionId(rows) ?? undefined) : undefined;
      writer.commit({
        row,
        reset: resetPending,
        rows,
        count,
        newest,
        bad,
        identity: { ...identity, size },
        head,
        committedOffset: offset,
        bytesRead,
        now: clock(),
        sessionId,
        search: batch.search,
      });
      onCommit({ file: target, row, entries: count, bad, reset: resetPending, bytesRead });
      changed ||= resetPending || count > 0 || bad.length > 0 || offset !== committedOffset;
      batch = emptyBatch(offset);
      committedOffset = offset;
      parsedSinceCommit = 0;
      resetPending = false;
    };

    // Chunks handed to the parser, oldest first; their slots come back as they settle.
    const inflight: { slot: number; bytes: number; parsed: Promise<ParsedChunk> }[] = [];
    const free = slots.map((_, slot) => slot).reverse();
    let outcome: PassOutcome = 'caught-up';
    let passBytes = 0;
    let ranSince = performance.now();
    let atEnd = false;
    /** Hands every free slot a chunk to parse. */
    const fill = () => {
      while (!atEnd && outcome !== 'yielded' && free.length > 0) {
        const slot = free.pop() as number;
        // Synchronous: a page-cache read of one chunk takes a fraction of a millisecond, while a
        // thread-pool read waits for a core that the parse worker and SQLite keep busy.
        const bytesRead = readSync(fd, slots[slot] as Buffer, 0, chunkBytes, position);
        if (bytesRead === 0) {
          free.push(slot);
          atEnd = true;
          break;
        }
        position += bytesRead;
        passBytes += bytesRead;
        counters.bytesRead += bytesRead;
        inflight.push({ slot, bytes: bytesRead, parsed: parser.parse(lane, slot, bytesRead) });
        if (options.shouldYield(passBytes)) outcome = 'yielded';
      }
    };
    try {
      for (;;) {
        fill();
        const next = inflight.shift();
        if (next === undefined) break;
        // Tagged, so that the ingestor backs off a parse failure as such and not as a read error.
        const parsed = await next.parsed.catch((error: unknown) => {
          throw new ParseFault(error);
        });
        free.push(next.slot);
        // The next chunk goes to the parser before this one's rows are committed: the worker
        // parses while this thread writes, instead of waiting for it.
        fill();
        absorb(batch, parsed);
        parsedSinceCommit += next.bytes;
        const due = parsedSinceCommit >= commitBytes || batch.count >= COMMIT_ENTRIES;
        if (due && batch.completeOffset !== committedOffset) await commit();
        if (performance.now() - ranSince >= YIELD_AFTER_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          ranSince = performance.now();
        }
      }
      const size = Math.max(identity.size, position);
      const stale = row.gone === 1 || row.size !== size || row.dev !== identity.dev || row.ino !== identity.ino;
      if (resetPending || parsedSinceCommit > 0 || stale) await commit();
      kept = true;
    } finally {
      // A slot still being parsed must not be read into by the next pass.
      await Promise.allSettled(inflight.map((chunk) => chunk.parsed));
      const partial = Math.min(FINGERPRINT_BYTES, position - batch.completeOffset);
      parser.end(
        lane,
        batch.completeOffset,
        position,
        kept,
        kept && partial > 0 ? fingerprintAt(fd, batch.completeOffset, partial) : undefined,
      );
    }
    const end = outcome === 'caught-up' ? { ino: identity.ino, size: position } : null;
    return { outcome, changed, bytesRead: passBytes, end, sessionId: row.session_id };
  }

  return {
    counters,
    async pass(target, options) {
      if (busy) throw new Error('tailer passes must not overlap');
      busy = true;
      try {
        // The ingestor logs it (once) and retries it with backoff, as a read fault.
        if (deps.rootOf !== undefined && !insideRoot(target.path, deps.rootOf(target))) {
          return { outcome: 'outside', changed: false, bytesRead: 0, end: null, sessionId: target.sessionId };
        }
        let fd: number;
        try {
          // Non-blocking: opening a FIFO put where a transcript was must not wait for a writer.
          // Synchronous, as the reads are: the promise calls cost a thread-pool round trip each.
          fd = openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK);
        } catch (error) {
          if (isMissingPath(error)) return markGone(target);
          throw error;
        }
        try {
          return await readNew(fd, target, options);
        } finally {
          closeSync(fd);
        }
      } finally {
        busy = false;
      }
    },
    async passGroup(targets, options = {}) {
      if (busy) throw new Error('tailer passes must not overlap');
      busy = true;
      try {
        return await group(targets, options);
      } finally {
        busy = false;
      }
    },
    close: () => (own ? parser.close() : Promise.resolve()),
  };
}
