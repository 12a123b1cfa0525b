/** What ingest and its status ask of the transcript index: its totals, recent bad lines, every file, and whether a file needs reading. */
import type Database from 'better-sqlite3';
import type { IngestStatus } from '../../shared/protocol/ingest.js';
import { prepared } from '../store/rows.js';

type Db = Database.Database;

export interface IngestStatsRow {
  files: number;
  sessions: number;
  entries: number;
  badLines: number;
  badTimestamps: number;
  bytesRead: number;
}

export function ingestStats(db: Db): IngestStatsRow {
  const sql = `SELECT COUNT(*) AS files, COUNT(DISTINCT session_id) AS sessions, COALESCE(SUM(entries), 0) AS entries,
                      COALESCE(SUM(bad_lines), 0) AS badLines,
                      COALESCE(SUM(bad_timestamps), 0) AS badTimestamps, COALESCE(SUM(bytes_read), 0) AS bytesRead FROM files`;
  return prepared(db, sql).get() as IngestStatsRow;
}

export interface BadLineRow {
  path: string;
  sessionId: string;
  offset: number;
  length: number;
  reason: string;
  seenAt: number;
}

export function recentBadLines(db: Db, limit: number): BadLineRow[] {
  const sql = `SELECT f.path AS path, f.session_id AS sessionId, b.offset AS offset, b.length AS length, b.reason AS reason,
                      b.seen_at AS seenAt
               FROM bad_lines b JOIN files f ON f.id = b.file_id ORDER BY b.seen_at DESC, b.offset DESC LIMIT ?`;
  return prepared(db, sql).all(limit) as BadLineRow[];
}

/** How old daemon.status's index totals may be while passes run (they are exact when ingest is idle). */
export const TOTALS_STALE_MS = 250;
/** Status shows this many recent bad lines; the table keeps them all. */
const RECENT_BAD_LINES = 10;

export type IndexTotals = Pick<IngestStatus, 'recentBadLines'> & { stats: IngestStatsRow };

/**
 * The index's totals, read from SQLite only after ingest wrote something (`stale`): daemon.status
 * is called far more often than transcripts change, and its SQL dominated a busy status profile.
 * While passes run the totals change at every commit: recounted at most every TOTALS_STALE_MS then
 * (a client polling status would otherwise cost ingest a sum over every file per call).
 */
export function createIndexTotals(db: Db, clock: () => number): { read(reading: boolean): IndexTotals; stale(): void } {
  let current: IndexTotals | null = null;
  let last: IndexTotals = {
    stats: { files: 0, sessions: 0, entries: 0, badLines: 0, badTimestamps: 0, bytesRead: 0 },
    recentBadLines: [],
  };
  let readAt = Number.NEGATIVE_INFINITY;
  return {
    stale: () => {
      current = null;
    },
    read(reading) {
      if (current !== null) return current;
      if (reading && clock() - readAt < TOTALS_STALE_MS) return last;
      readAt = clock();
      try {
        current = {
          stats: ingestStats(db),
          recentBadLines: recentBadLines(db, RECENT_BAD_LINES).map(({ seenAt, ...bad }) => ({
            ...bad,
            at: new Date(seenAt).toISOString(),
          })),
        };
      } catch {
        // A corrupt or unreadable index must not take daemon.status down with it: the last totals
        // stand, and the store fault shows in `failing` once a pass meets it.
        return last;
      }
      last = current;
      return current;
    },
  };
}

/** What comparing the index with the disk needs of a file's row. */
export interface FileState {
  ino: string;
  size: number;
  committedOffset: number;
  entries: number;
  gone: boolean;
  lastSeenAt: number;
}

const FILE_STATE_COLUMNS = 'path, ino, size, committed_offset, entries, gone, last_seen';
type FileStateRow = [
  path: string,
  ino: string,
  size: number,
  committedOffset: number,
  entries: number,
  gone: number,
  lastSeenAt: number,
];

function fileState([, ino, size, committedOffset, entries, gone, lastSeenAt]: FileStateRow): FileState {
  return { ino, size, committedOffset, entries, gone: gone === 1, lastSeenAt };
}

/**
 * Every indexed file by path, for comparing the index with what is on disk. Only these columns,
 * as arrays: whole rows as objects cost ~9 µs each (20 ms at 2,500 files, on every start and sweep).
 */
export function allFiles(db: Db, scope: 'local' | 'all' = 'all'): Map<string, FileState> {
  // 'local': the projects dir's files, which the watcher compares with its tree (others' are the sync reader's).
  const where = scope === 'local' ? ' WHERE device IS NULL' : '';
  const rows = prepared(db, `SELECT ${FILE_STATE_COLUMNS} FROM files${where}`).raw().all() as FileStateRow[];
  return new Map(rows.map((row) => [row[0], fileState(row)]));
}

/** The rows of these files (those indexed), for a sweep over a few of them: no read of the whole table. */
export function filesAt(db: Db, paths: Iterable<string>): Map<string, FileState> {
  const statement = prepared(db, `SELECT ${FILE_STATE_COLUMNS} FROM files WHERE path = ?`).raw();
  const files = new Map<string, FileState>();
  for (const path of paths) {
    const row = statement.get(path) as FileStateRow | undefined;
    if (row !== undefined) files.set(path, fileState(row));
  }
  return files;
}

/**
 * Whether the file is as it was when last read to its end: same inode and size, everything
 * committed, and not modified since (mtime before the row was last written). A rewrite in place
 * to the same size changes the mtime, so it is still read.
 */
export function readToEnd(row: FileState, file: { ino: string; size: number; mtimeMs?: number }): boolean {
  return (
    !row.gone &&
    row.ino === file.ino &&
    row.size === file.size &&
    row.committedOffset === file.size &&
    file.mtimeMs !== undefined &&
    file.mtimeMs < row.lastSeenAt
  );
}
