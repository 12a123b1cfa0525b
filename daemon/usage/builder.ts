/**
 * The usage book of a database that indexed transcripts before it kept one (migration 14 leaves
 * `usage.build` in meta: the files to count, by id). Their responses are read back from the index,
 * not from the transcripts, a slice of rows per turn of the event loop, beside ingest: folding is
 * order-free (book.ts), so a commit that folds a file's new rows meanwhile changes nothing here.
 * Progress survives a restart file by file (a file cut short is folded again, harmlessly).
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../log/logger.js';
import { STORED_ONCE } from '../store/entry-row.js';
import type { UsageBook } from './book.js';
import type { ResponseEntry } from './rank.js';

/** Response rows folded per turn of the event loop: a few ms of work (tens with a WAL checkpoint), so that requests are served between. */
export const BUILD_SLICE_ROWS = 250;
const PLAN_KEY = 'usage.build';

interface Plan {
  /** Files up to this id are counted. */
  after: number;
  /** The last file id indexed before the book existed; later files are counted by ingest. */
  through: number;
}

export interface BuildProgress {
  state: 'ready' | 'building';
  filesDone: number;
  filesTotal: number;
}

export interface UsageBuilder {
  progress(): BuildProgress;
  /** Runs the build, if one is owed, until it is done or stopped. */
  run(): Promise<void>;
  stop(): void;
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

function parsePlan(json: string | undefined): Plan | null {
  if (json === undefined) return null;
  try {
    const value = JSON.parse(json) as unknown;
    const { after, through } = (value ?? {}) as Record<string, unknown>;
    return typeof after === 'number' && typeof through === 'number' ? { after, through } : null;
  } catch {
    return null;
  }
}

export function createUsageBuilder(deps: { db: Database.Database; book: UsageBook; log: Logger; sliceRows?: number }): UsageBuilder {
  const { db, book, log } = deps;
  const sliceRows = deps.sliceRows ?? BUILD_SLICE_ROWS;
  const getPlan = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const putPlan = db.prepare('UPDATE meta SET value = ? WHERE key = ?');
  const dropPlan = db.prepare('DELETE FROM meta WHERE key = ?');
  const countFiles = db.prepare('SELECT count(*) FROM files WHERE id > ? AND id <= ?').pluck();
  const nextFile = db.prepare('SELECT id, path, project, session_id FROM files WHERE id > ? AND id <= ? ORDER BY id LIMIT 1');
  // Only what the book reads: a whole entry row (tool uses, titles, compact boundaries) costs several times as much.
  const responses = db.prepare(`
    SELECT e.offset, e.type, e.timestamp, e.message_id, e.request_id, coalesce(e.model, (SELECT value FROM strings WHERE id = e.${STORED_ONCE.model})) AS model,
           e.usage_input, e.usage_output, e.usage_cache_creation, e.usage_cache_read, e.usage_cache_5m, e.usage_cache_1h, e.is_sidechain
    FROM entries e WHERE e.file_id = ? AND e.offset > ? AND e.usage_input IS NOT NULL ORDER BY e.offset LIMIT ?`);
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  let open = true;
  let done = 0;
  let total: number | null = null;

  const plan = () => parsePlan(getPlan.get(PLAN_KEY) as string | undefined);

  /** Folds the next slice of a file; returns the offset to go on from, or null when the file is done. */
  const foldSlice = db.transaction((file: { id: number; path: string; project: string; session_id: string }, after: number, current: Plan): number | null => {
    const rows = responses.all(file.id, after, sliceRows) as ResponseRow[];
    book.fold({ id: file.id, path: file.path, project: file.project, sessionId: file.session_id }, rows.map(responseOf));
    if (rows.length === sliceRows) return (rows.at(-1) as ResponseRow).offset;
    putPlan.run(JSON.stringify({ ...current, after: file.id }), PLAN_KEY);
    return null;
  });

  return {
    progress() {
      const current = plan();
      if (current === null) return { state: 'ready', filesDone: done, filesTotal: total ?? done };
      total ??= done + (countFiles.get(current.after, current.through) as number);
      return { state: 'building', filesDone: done, filesTotal: total };
    },
    async run() {
      const started = Date.now();
      for (let current = plan(); current !== null && open; current = plan()) {
        const file = nextFile.get(current.after, current.through) as { id: number; path: string; project: string; session_id: string } | undefined;
        if (file === undefined) {
          dropPlan.run(PLAN_KEY);
          log.info('usage book built', { files: done, ms: Date.now() - started });
          return;
        }
        for (let after: number | null = -1; after !== null && open; ) {
          await turn();
          // The plan may be gone meanwhile (the database was rebuilt from nothing): nothing owed then.
          const now = plan();
          if (now === null) return;
          after = foldSlice(file, after, now);
        }
        done += 1;
      }
    },
    stop() {
      open = false;
    },
  };
}
