/** What ingest and its status ask of the transcript index: its totals, recent bad lines, every file, and whether a file needs reading. */
import type Database from 'better-sqlite3';
import { prepared } from '../store/rows.js';

type Db = Database.Database;

export interface IngestStatsRow {
  files: number;
  sessions: number;
  entries: number;
  badLines: number;
  bytesRead: number;
}

export function ingestStats(db: Db): IngestStatsRow {
  const sql = `SELECT COUNT(*) AS files, COUNT(DISTINCT session_id) AS sessions, COALESCE(SUM(entries), 0) AS entries,
                      COALESCE(SUM(bad_lines), 0) AS badLines, COALESCE(SUM(bytes_read), 0) AS bytesRead FROM files`;
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

/** What comparing the index with the disk needs of a file's row. */
export interface FileState {
  ino: string;
  size: number;
  committedOffset: number;
  entries: number;
  gone: boolean;
  lastSeenAt: number;
}

/**
 * Every indexed file by path, for comparing the index with what is on disk. Only these columns,
 * as arrays: whole rows as objects cost ~9 µs each (20 ms at 2,500 files, on every start and sweep).
 */
export function allFiles(db: Db): Map<string, FileState> {
  const rows = prepared(db, 'SELECT path, ino, size, committed_offset, entries, gone, last_seen FROM files').raw().all() as [string, string, number, number, number, number, number][];
  const files = new Map<string, FileState>();
  for (const [path, ino, size, committedOffset, entries, gone, lastSeenAt] of rows) files.set(path, { ino, size, committedOffset, entries, gone: gone === 1, lastSeenAt });
  return files;
}

/** The rows of these files (those indexed), for a sweep over a few of them: no read of the whole table. */
export function filesAt(db: Db, paths: Iterable<string>): Map<string, FileState> {
  const statement = prepared(db, 'SELECT path, ino, size, committed_offset, entries, gone, last_seen FROM files WHERE path = ?').raw();
  const files = new Map<string, FileState>();
  for (const path of paths) {
    const row = statement.get(path) as [string, string, number, number, number, number, number] | undefined;
    if (row !== undefined) files.set(path, { ino: row[1], size: row[2], committedOffset: row[3], entries: row[4], gone: row[5] === 1, lastSeenAt: row[6] });
  }
  return files;
}

/**
 * Whether the file is as it was when last read to its end: same inode and size, everything
 * committed, and not modified since (mtime before the row was last written). A rewrite in place
 * to the same size changes the mtime, so it is still read.
 */
export function readToEnd(row: FileState, file: { ino: string; size: number; mtimeMs?: number }): boolean {
  return !row.gone && row.ino === file.ino && row.size === file.size && row.committedOffset === file.size && file.mtimeMs !== undefined && file.mtimeMs < row.lastSeenAt;
}
