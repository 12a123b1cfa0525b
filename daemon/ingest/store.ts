/**
 * Read side of the transcript index (migration 2): what the sessions service and status ask of
 * it. Every function takes the database, so callers (and tests, on a read-only copy) need no
 * other state. Counters live on the `files` rows, so the totals cost O(files), not O(entries).
 */
import type Database from 'better-sqlite3';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { entryFromRow, type EntryRow } from './entry-row.js';

type Db = Database.Database;

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** Prepared once per database: preparing costs more than running these small queries. */
export function prepared(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (cache === undefined) {
    cache = new Map();
    statements.set(db, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** A `files` row as SQLite returns it. */
export interface FileRow {
  id: number;
  path: string;
  project: string;
  session_id: string;
  agent_id: string | null;
  is_sidechain: number;
  dev: string;
  ino: string;
  size: number;
  head_len: number;
  head_hash: string;
  committed_offset: number;
  bytes_read: number;
  entries: number;
  bad_lines: number;
  generation: number;
  gone: number;
  first_seen: number;
  last_seen: number;
  last_activity: string | null;
}

/** One indexed transcript file. */
export interface IngestedFile {
  id: number;
  path: string;
  project: string;
  sessionId: string;
  /** Null for the main transcript. */
  agentId: string | null;
  /** Offset just past the last complete line indexed. */
  committedOffset: number;
  /** File size when last read. */
  size: number;
  entries: number;
  badLines: number;
  /** Bumped each time the file was replaced or truncated and indexed again from its start. */
  generation: number;
  gone: boolean;
  firstSeenAt: number;
  lastSeenAt: number;
}

export interface IngestedSession {
  sessionId: string;
  project: string;
  /** Path of `<sessionId>.jsonl`, or null when only sub-agent files have been seen. */
  mainFile: string | null;
  /** The main transcript was deleted (its rows stay). */
  gone: boolean;
  /** Every file of the session was deleted: it is history, listed only when asked for all. */
  allGone: boolean;
  /** Committed offset of the main transcript (0 without one). */
  lastOffset: number;
  /** Main transcript plus sub-agent files. */
  files: number;
  entries: number;
  badLines: number;
  firstSeenAt: number;
  /** When a file of the session last changed the index, in ms since the epoch. */
  lastSeenAt: number;
  /** Newest entry timestamp over the session's files (ISO), null before any. */
  lastActivity: string | null;
}

export interface IngestStatsRow {
  files: number;
  sessions: number;
  entries: number;
  badLines: number;
  bytesRead: number;
}

export function fileFromRow(row: FileRow): IngestedFile {
  return {
    id: row.id,
    path: row.path,
    project: row.project,
    sessionId: row.session_id,
    agentId: row.agent_id,
    committedOffset: row.committed_offset,
    size: row.size,
    entries: row.entries,
    badLines: row.bad_lines,
    generation: row.generation,
    gone: row.gone === 1,
    firstSeenAt: row.first_seen,
    lastSeenAt: row.last_seen,
  };
}

interface SessionRow {
  session_id: string;
  main_project: string | null;
  any_project: string;
  main_path: string | null;
  main_gone: number | null;
  all_gone: number;
  main_offset: number | null;
  files: number;
  entries: number;
  bad_lines: number;
  first_seen: number;
  last_seen: number;
  last_activity: string | null;
}

const LIST_SESSIONS_SQL = `
  SELECT session_id,
         MAX(CASE WHEN agent_id IS NULL THEN project END) AS main_project,
         MIN(project) AS any_project,
         MAX(CASE WHEN agent_id IS NULL THEN path END) AS main_path,
         MAX(CASE WHEN agent_id IS NULL THEN gone END) AS main_gone, MIN(gone) AS all_gone,
         MAX(CASE WHEN agent_id IS NULL THEN committed_offset END) AS main_offset,
         COUNT(*) AS files, SUM(entries) AS entries, SUM(bad_lines) AS bad_lines,
         MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen, MAX(last_activity) AS last_activity
  FROM files GROUP BY session_id ORDER BY last_seen DESC, session_id`;

/** Every session with at least one indexed file, most recently changed first. */
export function listSessions(db: Db): IngestedSession[] {
  const rows = prepared(db, LIST_SESSIONS_SQL).all() as SessionRow[];
  return rows.map((row) => ({
    sessionId: row.session_id,
    project: row.main_project ?? row.any_project,
    mainFile: row.main_path,
    gone: row.main_gone === 1,
    allGone: row.all_gone === 1,
    lastOffset: row.main_offset ?? 0,
    files: row.files,
    entries: row.entries,
    badLines: row.bad_lines,
    firstSeenAt: row.first_seen,
    lastSeenAt: row.last_seen,
    lastActivity: row.last_activity,
  }));
}

/** The session's files: the main transcript first, then sub-agent files by path. */
export function sessionFiles(db: Db, sessionId: string): IngestedFile[] {
  const sql = 'SELECT * FROM files WHERE session_id = ? ORDER BY agent_id IS NOT NULL, path';
  return (prepared(db, sql).all(sessionId) as FileRow[]).map(fileFromRow);
}

/** Entries of one file in offset order, from `fromOffset` on (to load only what was appended). */
export function loadFileEntries(db: Db, fileId: number, fromOffset = 0): IndexedEntry[] {
  const sql = 'SELECT * FROM entries WHERE file_id = ? AND offset >= ? ORDER BY offset';
  return (prepared(db, sql).all(fileId, fromOffset) as EntryRow[]).map(entryFromRow);
}

/**
 * All entries of a session: the main transcript's, and the sub-agent files' (file by file, by
 * path), each in offset order. Run it inside one read transaction when consistency across the
 * files matters (`db.transaction(() => loadSessionEntries(db, id))()`).
 */
export function loadSessionEntries(db: Db, sessionId: string): { main: IndexedEntry[]; sidechain: IndexedEntry[] } {
  const main: IndexedEntry[] = [];
  const sidechain: IndexedEntry[] = [];
  for (const file of sessionFiles(db, sessionId)) {
    const entries = loadFileEntries(db, file.id);
    // A loop, not push(...entries): spreading 100k arguments overflows the stack.
    const target = file.agentId === null ? main : sidechain;
    for (const entry of entries) target.push(entry);
  }
  return { main, sidechain };
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
 * The titles `summary` entries give, by leafUuid, from every file of one project folder: Claude
 * Code 1.0.x wrote a session's summary at the top of a later session's file. Few rows, found
 * through the partial index on leaf_uuid.
 */
export function leafTitles(db: Db, project: string): Map<string, string> {
  const sql = `SELECT e.leaf_uuid AS leaf, e.title AS title FROM entries e JOIN files f ON f.id = e.file_id
               WHERE e.leaf_uuid IS NOT NULL AND f.project = ? ORDER BY f.id, e.offset`;
  const titles = new Map<string, string>();
  for (const row of prepared(db, sql).all(project) as { leaf: string; title: string | null }[]) {
    if (row.title !== null) titles.set(row.leaf, row.title);
  }
  return titles;
}

/** Up to `limit` distinct session ids that start with `prefix`, in order (a range scan of files_session). */
export function sessionIdsWithPrefix(db: Db, prefix: string, limit: number): string[] {
  const sql = 'SELECT DISTINCT session_id AS id FROM files WHERE session_id >= ? AND session_id < ? ORDER BY session_id LIMIT ?';
  // U+FFFF sorts after every character a session id (a uuid, or a file stem) holds.
  return (prepared(db, sql).all(prefix, `${prefix}\uffff`, limit) as { id: string }[]).map((row) => row.id);
}
