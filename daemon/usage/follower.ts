/**
 * The usage book follows the index, as the search index builder and the archive do: it reads the
 * responses ingest committed back from the `entries` table, a slice of rows per turn of the event
 * loop, outside ingest's transactions. In them it cost a heavy user's backfill a fifth more (every
 * commit scattered writes over the book's key index); here a slice gathers many files' responses,
 * and the backfill pays nothing. How far each file is folded is `usage_files.folded_through` (the
 * file's committed offset then) and its `generation`, written with the slice that folds it, so a
 * crash loses nothing and a file read again from its start (truncated, replaced) is taken back and
 * folded anew. A database from before the book has no such rows: all of it is pending, and built.
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../log/logger.js';
import { STORED_ONCE } from '../store/entry-row.js';
import type { UsageBook } from './book.js';
import type { ResponseEntry } from './rank.js';

/**
 * Response rows folded per turn of the event loop, in one transaction, over as many files as they
 * come from: 10-30 ms at a heavy user's scale (more with a WAL checkpoint; 1,000 rows reached
 * 50 ms), so that requests are served between, and the key index's pages are written once for
 * many files' responses.
 */
export const FOLD_SLICE_ROWS = 500;
/** What looking at a file costs a slice, in rows: a slice of files without responses stays short too. */
const FILE_COST_ROWS = 10;
/** A later pass over more files than this is a build too (a burst of rewritten transcripts): reports say `building` meanwhile, as during the first. */
const LIVE_PASS_FILES = 16;

export interface FollowProgress {
  state: 'ready' | 'building';
  filesDone: number;
  filesTotal: number;
}

export interface UsageFollower {
  /** Folds what ingest committed since, soon (ingest's `transcripts.committed`). */
  wake(): void;
  /** Starts following; every file not folded yet is folded first. */
  start(): void;
  progress(): FollowProgress;
  /** Resolves once nothing is pending (tests, benchmarks). */
  idle(): Promise<void>;
  stop(): void;
}

interface PendingFile {
  id: number;
  path: string;
  project: string;
  session_id: string;
  /** '' for this machine's transcript (files.device is NULL), else another machine's id. */
  device: string;
  generation: number;
  committed_offset: number;
  folded_generation: number | null;
  folded_through: number | null;
}

interface ResponseRow {
  offset: number;
  type: string;
  timestamp: string | null;
  message_id: string | null;
  request_id: string | null;
  model: string | null;
  usage_input: number;
  usage_output: number | null;
  usage_cache_creation: number | null;
  usage_cache_read: number | null;
  usage_cache_5m: number | null;
  usage_cache_1h: number | null;
  is_sidechain: number;
}

const responseOf = (row: ResponseRow): ResponseEntry => ({
  offset: row.offset,
  type: row.type,
  timestamp: row.timestamp,
  messageId: row.message_id,
  requestId: row.request_id,
  model: row.model,
  usage: {
    input: row.usage_input,
    output: row.usage_output ?? 0,
    cacheCreation: row.usage_cache_creation ?? 0,
    cacheRead: row.usage_cache_read ?? 0,
    cache5m: row.usage_cache_5m ?? 0,
    cache1h: row.usage_cache_1h ?? 0,
  },
  isSidechain: row.is_sidechain === 1,
});

export function createUsageFollower(deps: {
  db: Database.Database;
  book: UsageBook;
  log: Logger;
  sliceRows?: number;
}): UsageFollower {
  const { db, book, log } = deps;
  const sliceRows = deps.sliceRows ?? FOLD_SLICE_ROWS;
  const pendingFiles = db.prepare(`
    SELECT f.id, f.path, f.project, f.session_id, coalesce(f.device, '') AS device, f.generation, f.committed_offset, u.generation AS folded_generation, u.folded_through
    FROM files f LEFT JOIN usage_files u ON u.id = f.id
    WHERE u.id IS NULL OR u.generation != f.generation OR u.folded_through < f.committed_offset
    ORDER BY f.id`);
  const fileNow = db.prepare('SELECT generation, committed_offset FROM files WHERE id = ?');
  const putProgress = db.prepare(`
    INSERT INTO usage_files (id, path, project, device, generation, folded_through) VALUES (@id, @path, @project, @device, @generation, @through)
    ON CONFLICT (id) DO UPDATE SET path = excluded.path, project = excluded.project, device = excluded.device,
      generation = excluded.generation, folded_through = excluded.folded_through`);
  // Only what the book reads: a whole entry row (tool uses, titles, compact boundaries) costs several times as much.
  const responses = db.prepare(`
    SELECT e.offset, e.type, e.timestamp, e.message_id, e.request_id, coalesce(e.model, (SELECT value FROM strings WHERE id = e.${STORED_ONCE.model})) AS model,
           e.usage_input, e.usage_output, e.usage_cache_creation, e.usage_cache_read, e.usage_cache_5m, e.usage_cache_1h, e.is_sidechain
    FROM entries e WHERE e.file_id = ? AND e.offset >= ? AND e.offset < ? AND e.usage_input IS NOT NULL ORDER BY e.offset LIMIT ?`);
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  let started = false;
  let open = true;
  let running: Promise<void> | null = null;
  let again = false;
  let pass = { done: 0, total: 0 };
  /** Until the first pass ends, the book is behind what the index held at start. */
  let initial = true;

  /**
   * Folds the next `budget` response rows of a file, with its progress; returns how many rows it
   * read and whether the file is done. The file is read as it is now: rows ingest committed
   * meanwhile are folded too.
   */
  const foldPart = (file: PendingFile, budget: number): { rows: number; done: boolean } => {
    const now = fileNow.get(file.id) as { generation: number; committed_offset: number } | undefined;
    if (now === undefined) return { rows: 0, done: true };
    let from = file.folded_generation === now.generation ? (file.folded_through ?? 0) : 0;
    // Read again from its start (or never folded under this generation): what it counted goes first.
    if (file.folded_generation !== null && file.folded_generation !== now.generation) book.dropFile(file.id);
    const rows = responses.all(file.id, from, now.committed_offset, budget) as ResponseRow[];
    book.fold(
      { id: file.id, path: file.path, project: file.project, sessionId: file.session_id, device: file.device },
      rows.map(responseOf),
    );
    const full = rows.length === budget;
    from = full ? (rows.at(-1) as ResponseRow).offset + 1 : now.committed_offset;
    putProgress.run({
      id: file.id,
      path: file.path,
      project: file.project,
      device: file.device,
      generation: now.generation,
      through: from,
    });
    file.folded_generation = now.generation;
    file.folded_through = from;
    return { rows: rows.length, done: !full };
  };

  /** One slice: files from `at` on, until the budget is spent; returns the first file not done. */
  const foldSlice = db.transaction((files: readonly PendingFile[], at: number): number => {
    let next = at;
    for (let budget = sliceRows; budget > 0 && next < files.length; ) {
      const { rows, done } = foldPart(files[next] as PendingFile, budget);
      budget -= Math.max(rows, FILE_COST_ROWS);
      if (done) next += 1;
    }
    return next;
  });

  const follow = async () => {
    const startedAt = Date.now();
    do {
      again = false;
      const files = pendingFiles.all() as PendingFile[];
      pass = { done: 0, total: files.length };
      while (pass.done < files.length) {
        await turn();
        if (!open) return;
        pass.done = foldSlice(files, pass.done);
      }
      if (files.length > LIVE_PASS_FILES)
        log.info('usage book caught up', { files: files.length, ms: Date.now() - startedAt });
    } while (again && open);
  };

  const run = () => {
    if (!started || !open) return;
    if (running !== null) {
      again = true;
      return;
    }
    running = follow()
      .catch((error: unknown) =>
        log.error('usage book: following the index failed; reports stay behind until the next commit', { error }),
      )
      .finally(() => {
        running = null;
        initial = false;
        pass = { done: 0, total: 0 };
      });
  };

  return {
    wake: run,
    start() {
      started = true;
      run();
    },
    progress() {
      if (!started) return { state: 'building', filesDone: 0, filesTotal: 0 };
      const building = running !== null && (initial || pass.total > LIVE_PASS_FILES);
      return { state: building ? 'building' : 'ready', filesDone: pass.done, filesTotal: pass.total };
    },
    async idle() {
      while (running !== null) await running;
    },
    stop() {
      open = false;
    },
  };
}
