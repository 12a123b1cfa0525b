/**
 * Read side of the transcript index: the sessions, their files and their indexed entries. Every
 * function takes the database, so callers (and tests, on a read-only copy) need no other state.
 * Counters live on the `files` rows, so the totals cost O(files), not O(entries).
 */
import type Database from 'better-sqlite3';
import type { IndexedEntry, TitleKind } from '../../shared/transcript/types.js';
import type { TurnEntry } from '../../shared/usage/turns.js';
import { type EntryRow, entryFromRow, selectEntries } from '../store/entry-row.js';
import { type FileRow, fileFromRow, type IngestedFile, type IngestedSession, prepared } from '../store/rows.js';

type Db = Database.Database;

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
  const sql = selectEntries('WHERE e.file_id = ? AND e.offset >= ? ORDER BY e.offset');
  return (prepared(db, sql).all(fileId, fromOffset) as EntryRow[]).map(entryFromRow);
}

/** Up to `limit` entries of one file in offset order, from `fromOffset` up to (not including) `toOffset`: a page of a sliced load. */
export function loadFileEntriesPage(
  db: Db,
  fileId: number,
  fromOffset: number,
  toOffset: number,
  limit: number,
): IndexedEntry[] {
  const sql = selectEntries('WHERE e.file_id = ? AND e.offset >= ? AND e.offset < ? ORDER BY e.offset LIMIT ?');
  return (prepared(db, sql).all(fileId, fromOffset, toOffset, limit) as EntryRow[]).map(entryFromRow);
}

/** The last `limit` entries of one file, in offset order. */
export function loadLastEntries(db: Db, fileId: number, limit: number): IndexedEntry[] {
  const sql = selectEntries('WHERE e.file_id = ? ORDER BY e.offset DESC LIMIT ?');
  return (prepared(db, sql).all(fileId, limit) as EntryRow[]).map(entryFromRow).reverse();
}

interface TurnRow {
  offset: number;
  type: string;
  subtype: string | null;
  timestamp: string | null;
  message_id: string | null;
  request_id: string | null;
  model: string | null;
  usage_input: number | null;
  usage_output: number | null;
  usage_cache_creation: number | null;
  usage_cache_read: number | null;
  usage_cache_5m: number | null;
  usage_cache_1h: number | null;
  asks_tools: number;
  has_tool_results: number;
  is_sidechain: number;
  is_meta: number;
  is_compact_summary: number;
  title_kind: TitleKind | null;
}

// The model's text is looked up only for responses: the other rows do not need it.
const TURN_ROWS_SQL = `
  SELECT e.offset, e.type, e.subtype, e.timestamp, e.message_id, e.request_id,
         CASE WHEN e.usage_input IS NOT NULL THEN coalesce(e.model, (SELECT value FROM strings WHERE id = e.model_id)) END AS model,
         e.usage_input, e.usage_output, e.usage_cache_creation, e.usage_cache_read, e.usage_cache_5m, e.usage_cache_1h,
         e.tool_uses IS NOT NULL AS asks_tools, e.tool_results IS NOT NULL AS has_tool_results,
         e.is_sidechain, e.is_meta, e.is_compact_summary, e.title_kind
  FROM entries e WHERE e.file_id = ? AND e.offset < ? ORDER BY e.offset DESC LIMIT ?`;

/** Up to `limit` rows of one file before `beforeOffset`, newest first, with only what the turns read (usage.status). */
export function loadTurnRows(db: Db, fileId: number, beforeOffset: number, limit: number): TurnEntry[] {
  return (prepared(db, TURN_ROWS_SQL).all(fileId, beforeOffset, limit) as TurnRow[]).map((row) => ({
    offset: row.offset,
    type: row.type,
    subtype: row.subtype,
    timestamp: row.timestamp,
    messageId: row.message_id,
    requestId: row.request_id,
    model: row.model,
    usage:
      row.usage_input === null
        ? null
        : {
            input: row.usage_input,
            output: row.usage_output ?? 0,
            cacheCreation: row.usage_cache_creation ?? 0,
            cacheRead: row.usage_cache_read ?? 0,
            cache5m: row.usage_cache_5m ?? 0,
            cache1h: row.usage_cache_1h ?? 0,
          },
    asksTools: row.asks_tools === 1,
    hasToolResults: row.has_tool_results === 1,
    isSidechain: row.is_sidechain === 1,
    isMeta: row.is_meta === 1,
    isCompactSummary: row.is_compact_summary === 1,
    titleKind: row.title_kind,
  }));
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

/**
 * The titles `summary` entries give, by leafUuid, from every file of one project folder: Claude
 * Code 1.0.x wrote a session's summary at the top of a later session's file. Few rows, found
 * through the partial index on leaf_uuid.
 */
export function leafTitles(db: Db, project: string): Map<string, string> {
  // From the partial index, then each row's file by id: without INDEXED BY, SQLite may scan the
  // files of the project first (no index on project), which at 50,000 sessions takes milliseconds per call.
  const sql = `SELECT e.leaf_uuid AS leaf, e.title AS title FROM entries e INDEXED BY entries_leaf JOIN files f ON f.id = e.file_id
               WHERE e.leaf_uuid IS NOT NULL AND f.project = ? ORDER BY f.id, e.offset`;
  const titles = new Map<string, string>();
  for (const row of prepared(db, sql).all(project) as { leaf: string; title: string | null }[]) {
    if (row.title !== null) titles.set(row.leaf, row.title);
  }
  return titles;
}

/**
 * The title a `summary` entry gives the session whose main transcript is `fileId` (sessionTitle's
 * third choice): that of the latest main-thread entry whose uuid a summary in the project names.
 * One scan of the file's rows inside SQLite, only in projects that have such entries (1.0.x).
 */
export function summaryTitle(db: Db, project: string, fileId: number): string | null {
  const titles = leafTitles(db, project);
  if (titles.size === 0) return null;
  const sql = `SELECT uuid FROM entries WHERE file_id = ? AND is_sidechain = 0 AND uuid IN (SELECT value FROM json_each(?))
               ORDER BY offset DESC LIMIT 1`;
  const uuid = prepared(db, sql)
    .pluck()
    .get(fileId, JSON.stringify([...titles.keys()])) as string | undefined;
  return uuid === undefined ? null : (titles.get(uuid) ?? null);
}

/** Up to `limit` distinct session ids that start with `prefix`, in order (a range scan of files_session). */
export function sessionIdsWithPrefix(db: Db, prefix: string, limit: number): string[] {
  const sql =
    'SELECT DISTINCT session_id AS id FROM files WHERE session_id >= ? AND session_id < ? ORDER BY session_id LIMIT ?';
  // U+FFFF sorts after every character a session id (a uuid, or a file stem) holds.
  return (prepared(db, sql).all(prefix, `${prefix}\uffff`, limit) as { id: string }[]).map((row) => row.id);
}
