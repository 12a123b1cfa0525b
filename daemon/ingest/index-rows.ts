/** What ingest and its status ask of the transcript index: its totals, recent bad lines, every file, and whether a file needs reading. */
import type Database from 'better-sqlite3';
import { fileFromRow, prepared, type FileRow, type IngestedFile } from '../store/rows.js';

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

/** Every indexed file by path, for comparing the index with what is on disk. */
export function allFiles(db: Db): Map<string, IngestedFile & { ino: string }> {
  const rows = prepared(db, 'SELECT * FROM files').all() as FileRow[];
  return new Map(rows.map((row) => [row.path, { ...fileFromRow(row), ino: row.ino }]));
}

/**
 * Whether the file is as it was when last read to its end: same inode and size, everything
 * committed, and not modified since (mtime before the row was last written). A rewrite in place
 * to the same size changes the mtime, so it is still read.
 */
export function readToEnd(row: IngestedFile & { ino: string }, file: { ino: string; size: number; mtimeMs?: number }): boolean {
  return !row.gone && row.ino === file.ino && row.size === file.size && row.committedOffset === file.size && file.mtimeMs !== undefined && file.mtimeMs < row.lastSeenAt;
}
