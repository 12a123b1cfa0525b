/**
 * The transcript index's rows (migration 2) as the code sees them: the `files` row and its typed
 * form, shared by ingest (the writer) and transcripts (the reader), and the per-database cache of
 * prepared statements both use.
 */
import type Database from 'better-sqlite3';

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
  /** Lines kept with a bad timestamp (migration 17; shared/transcript/timestamp.ts). */
  bad_timestamps: number;
  generation: number;
  gone: number;
  first_seen: number;
  last_seen: number;
  last_activity: string | null;
  /** The file's lines below this offset are in the search index (migration 12). */
  search_offset: number;
  /** Another machine's device id (issue 35); null for this machine's transcripts. */
  device: string | null;
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
  badTimestamps: number;
  /** Bumped each time the file was replaced or truncated and indexed again from its start. */
  generation: number;
  gone: boolean;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Newest entry timestamp of the file (ISO), null before any. */
  lastActivity: string | null;
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
    badTimestamps: row.bad_timestamps,
    generation: row.generation,
    gone: row.gone === 1,
    firstSeenAt: row.first_seen,
    lastSeenAt: row.last_seen,
    lastActivity: row.last_activity,
  };
}
