/**
 * Write side of the transcript index. `commit` is the one way rows and offsets change: the rows
 * derived from a run of complete lines and the file's new committed offset go in one SQLite
 * transaction, so a crash keeps both or neither.
 */
import type Database from 'better-sqlite3';
import type { TranscriptFile } from '../../shared/transcript/layout.js';
import {
  ENTRY_COLUMNS,
  ENTRY_INSERT_BATCH,
  type EntryParam,
  entriesFromParams,
  INSERT_ENTRY_BATCH_SQL,
  INSERT_ENTRY_SQL,
  OFFSET_COLUMN,
  SESSION_ID_COLUMN,
  STORED_ONCE_AT,
} from '../store/entry-row.js';
import type { FileRow } from '../store/rows.js';
import type { SearchParam } from '../store/search-row.js';
import { createSearchWriter } from '../store/search-writer.js';
import type { BadLine, CommitObserver, FileIdentity } from './types.js';

/** Whether the line was kept, only its value dropped: counted as a bad timestamp, not a bad line. */
export const isBadValue = (bad: BadLine): boolean => bad.reason === 'bad-timestamp';

export interface Commit {
  /** The file's row as last committed; updated in place once the transaction succeeds. */
  row: FileRow;
  /** Drop the file's rows first: it is being indexed again from its start. */
  reset: boolean;
  /** INSERT parameters in ENTRY_COLUMNS order, in runs of whole rows; `count` rows in all (the commit clears their session ids). */
  rows: readonly EntryParam[][];
  count: number;
  /** The newest timestamp among the rows. */
  newest: string | null;
  bad: readonly BadLine[];
  identity: FileIdentity;
  head: { len: number; hash: string };
  committedOffset: number;
  /** Transcript bytes read since the last commit. */
  bytesRead: number;
  now: number;
  /** The file's session as its entries name it (2.0.x top-level agent files); files it there. */
  sessionId?: string | undefined;
  /**
   * Searchable texts of the rows, (offset, kind, text) triples in runs (chunk-parser.ts); absent
   * when the pass did not read them (readsSearchTexts): the file's search offset stays behind.
   */
  search?: readonly (readonly SearchParam[])[] | undefined;
}

/**
 * Whether a pass over a file reads its lines' search texts: when its commits keep them (the file's
 * search index caught up with its rows, or the file read again from its start), unless the pass
 * defers a new file's to the search index builder (ingestor.ts: the backfill of a big history).
 */
export function readsSearchTexts(row: FileRow, reset: boolean, deferSearch: boolean): boolean {
  if (reset) return true;
  return row.search_offset === row.committed_offset && !(deferSearch && row.committed_offset === 0);
}

export interface IngestWriter {
  getFile(path: string): FileRow | undefined;
  insertFile(target: TranscriptFile, identity: FileIdentity, now: number): FileRow;
  /** insertFile for several files in one transaction. */
  insertFiles(files: readonly { target: TranscriptFile; identity: FileIdentity }[], now: number): FileRow[];
  commit(commit: Commit): void;
  /** Commits of several files in one transaction (a transaction per small file cost most of its ingest). */
  commitAll(commits: readonly Commit[]): void;
  markGone(row: FileRow, now: number): void;
}

export function createIngestWriter(db: Database.Database, observer?: CommitObserver): IngestWriter {
  const getFile = db.prepare('SELECT * FROM files WHERE path = ?');
  const insertFile = db.prepare(`
    INSERT INTO files (path, project, session_id, agent_id, is_sidechain, dev, ino, size, head_len, head_hash,
                       committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen, device)
    VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, '', 0, 0, 0, 0, 0, 0, ?, ?, ?) RETURNING *`);
  const insertEntry = db.prepare(INSERT_ENTRY_SQL);
  const insertBad = db.prepare(
    'INSERT INTO bad_lines (file_id, offset, length, reason, seen_at) VALUES (?, ?, ?, ?, ?)',
  );
  const deleteEntries = db.prepare('DELETE FROM entries WHERE file_id = ?');
  const deleteBad = db.prepare('DELETE FROM bad_lines WHERE file_id = ?');
  const updateFile = db.prepare(`
    UPDATE files SET dev = ?, ino = ?, size = ?, head_len = ?, head_hash = ?, committed_offset = ?, bytes_read = ?,
                     entries = ?, bad_lines = ?, bad_timestamps = ?, generation = ?, gone = 0, last_seen = ?
    WHERE id = ?`);
  const setGone = db.prepare('UPDATE files SET gone = 1, last_seen = ? WHERE id = ?');
  const setLastActivity = db.prepare('UPDATE files SET last_activity = ? WHERE id = ?');
  const setSession = db.prepare('UPDATE files SET session_id = ? WHERE id = ?');
  const search = createSearchWriter(db);
  /** Commits that moved their file's search offset, applied to the row once the transaction succeeds. */
  const searchCaughtUp = new WeakSet<Commit>();

  const insertEntryBatch = db.prepare(INSERT_ENTRY_BATCH_SQL);
  const strings = createStrings(db);
  const width = ENTRY_COLUMNS.length;
  const batchWidth = width * ENTRY_INSERT_BATCH;
  /** The slice of rows to bind: the text of columns stored once replaced by its id (the rows stay as they are, for the observer). */
  const stored = (rows: readonly EntryParam[], from: number, to: number): EntryParam[] => {
    const params = rows.slice(from, to);
    for (let row = 0; row < params.length; row += width) {
      for (const at of STORED_ONCE_AT) {
        const value = params[row + at];
        if (typeof value === 'string') params[row + at] = strings.idOf(value);
      }
    }
    return params;
  };
  /** The rows' rowids by offset, for the search index's keys (store/search-row.ts). */
  const insertEntries = (runs: readonly EntryParam[][]): Map<number, number> => {
    const rowids = new Map<number, number>();
    // An INSERT's rows get consecutive rowids, the last one reported: SQLite gives each new row one
    // more than the largest in the table.
    const note = (rows: readonly EntryParam[], from: number, to: number, last: number | bigint) => {
      let rowid = Number(last) - (to - from) / width + 1;
      for (let at = from; at < to; at += width) rowids.set(rows[at + OFFSET_COLUMN] as number, rowid++);
    };
    for (const rows of runs) {
      // Every row of a file names the file's session (files.session_id, which a 2.0.x agent file
      // took from them before this): not stored again per row (~11 % of the entries' bytes).
      for (let at = SESSION_ID_COLUMN; at < rows.length; at += width) rows[at] = null;
      let at = 0;
      for (; at + batchWidth <= rows.length; at += batchWidth)
        note(rows, at, at + batchWidth, insertEntryBatch.run(stored(rows, at, at + batchWidth)).lastInsertRowid);
      for (; at < rows.length; at += width)
        note(rows, at, at + width, insertEntry.run(stored(rows, at, at + width)).lastInsertRowid);
    }
    return rowids;
  };

  const writeOne = (c: Commit) => {
    const { row } = c;
    if (c.reset) {
      search.dropFile(row.id);
      deleteEntries.run(row.id);
      deleteBad.run(row.id);
    }
    const rowids = insertEntries(c.rows);
    if (c.search !== undefined && search.commit(row, c.reset, c.committedOffset, c.search, rowids))
      searchCaughtUp.add(c);
    // A line kept without its bad timestamp is only counted: a row each would cost a write per line of a file that has none.
    for (const bad of c.bad) if (!isBadValue(bad)) insertBad.run(row.id, bad.offset, bad.length, bad.reason, c.now);
    const next = nextCounts(c);
    updateFile.run(
      c.identity.dev,
      c.identity.ino,
      c.identity.size,
      c.head.len,
      c.head.hash,
      c.committedOffset,
      next.bytesRead,
      next.entries,
      next.badLines,
      next.badTimestamps,
      next.generation,
      c.now,
      row.id,
    );
    const moved = c.sessionId !== undefined && c.sessionId !== row.session_id;
    if (moved) setSession.run(c.sessionId, row.id);
    const { newest } = c;
    if (c.reset || (newest !== null && (row.last_activity === null || newest > row.last_activity)))
      setLastActivity.run(newest, row.id);
    observer?.committed({
      sessionId: c.sessionId ?? row.session_id,
      ...(moved ? { movedFrom: row.session_id } : {}),
      path: row.path,
      agentId: row.agent_id,
      reset: c.reset,
      entries: c.count === 0 ? [] : entriesFromParams(c.rows),
      fileEntries: next.entries,
      complete: c.committedOffset >= c.identity.size,
    });
  };
  const write = db.transaction((commits: readonly Commit[]) => {
    for (const c of commits) writeOne(c);
  });
  const commitAll = (commits: readonly Commit[]) => {
    try {
      write(commits);
    } catch (error) {
      strings.rolledBack();
      throw error;
    }
    for (const c of commits) {
      afterCommit(c);
      if (searchCaughtUp.has(c)) c.row.search_offset = c.committedOffset;
    }
  };

  const insertOne = (target: TranscriptFile, identity: FileIdentity, now: number): FileRow => {
    const row = insertFile.get(
      target.path,
      target.project,
      target.sessionId,
      target.agentId,
      target.agentId === null ? 0 : 1,
      identity.dev,
      identity.ino,
      now,
      now,
      target.device ?? null,
    ) as FileRow;
    // An empty file may never be committed: its session is known (and listed as empty) from here.
    observer?.committed({
      sessionId: row.session_id,
      path: row.path,
      agentId: row.agent_id,
      reset: false,
      entries: [],
      fileEntries: 0,
      complete: true,
    });
    return row;
  };
  const insertMany = db.transaction(
    (files: readonly { target: TranscriptFile; identity: FileIdentity }[], now: number) =>
      files.map(({ target, identity }) => insertOne(target, identity, now)),
  );

  return {
    getFile: (path) => getFile.get(path) as FileRow | undefined,
    insertFile: (target, identity, now) => insertMany([{ target, identity }], now)[0] as FileRow,
    insertFiles: insertMany,
    commit: (c) => commitAll([c]),
    commitAll,
    markGone(row, now) {
      db.transaction(() => {
        setGone.run(now, row.id);
        observer?.gone(row.session_id, row);
      })();
      row.gone = 1;
      row.last_seen = now;
    },
  };
}

/** The file's row as the commit left it, once its transaction succeeded. */
function afterCommit(c: Commit): void {
  const next = nextCounts(c);
  Object.assign(c.row, {
    dev: c.identity.dev,
    ino: c.identity.ino,
    size: c.identity.size,
    head_len: c.head.len,
    head_hash: c.head.hash,
    committed_offset: c.committedOffset,
    bytes_read: next.bytesRead,
    entries: next.entries,
    bad_lines: next.badLines,
    bad_timestamps: next.badTimestamps,
    generation: next.generation,
    last_activity: lastActivityAfter(c),
    gone: 0,
    last_seen: c.now,
    session_id: c.sessionId ?? c.row.session_id,
  } satisfies Partial<FileRow>);
}

function nextCounts(c: Commit): {
  bytesRead: number;
  entries: number;
  badLines: number;
  badTimestamps: number;
  generation: number;
} {
  const { row } = c;
  const badValues = c.bad.filter(isBadValue).length;
  return {
    bytesRead: row.bytes_read + c.bytesRead,
    entries: (c.reset ? 0 : row.entries) + c.count,
    badLines: (c.reset ? 0 : row.bad_lines) + c.bad.length - badValues,
    badTimestamps: (c.reset ? 0 : row.bad_timestamps) + badValues,
    generation: row.generation + (c.reset ? 1 : 0),
  };
}

function lastActivityAfter(c: Commit): string | null {
  const { newest } = c;
  if (c.reset) return newest;
  const current = c.row.last_activity;
  return newest !== null && (current === null || newest > current) ? newest : current;
}

/** Most distinct strings kept in memory: a user has a few dozen cwds, branches and models; a bound all the same. */
const STRINGS_CACHED_MAX = 10_000;

/**
 * Ids of the strings stored once (migration 9). Known ids are cached, and the cache is cleared
 * when a transaction rolls back, since the ids it added there no longer exist.
 */
function createStrings(db: Database.Database): { idOf(value: string): number; rolledBack(): void } {
  const insert = db.prepare('INSERT INTO strings (value) VALUES (?) ON CONFLICT (value) DO NOTHING');
  const find = db.prepare('SELECT id FROM strings WHERE value = ?').pluck();
  const known = new Map<string, number>();
  return {
    idOf(value) {
      const cached = known.get(value);
      if (cached !== undefined) return cached;
      insert.run(value);
      const id = find.get(value) as number;
      if (known.size >= STRINGS_CACHED_MAX) known.clear();
      known.set(value, id);
      return id;
    },
    rolledBack: () => known.clear(),
  };
}
