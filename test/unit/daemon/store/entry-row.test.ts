import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type Commit, createIngestWriter, type IngestWriter } from '../../../../daemon/ingest/writer.js';
import { applyMigration } from '../../../../daemon/store/db.js';
import {
  ENTRY_COLUMNS,
  type EntryParam,
  type EntryRow,
  entriesFromParams,
  entryFromRow,
  pushEntryParams,
  selectEntries,
} from '../../../../daemon/store/entry-row.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';
import type { FileRow } from '../../../../daemon/store/rows.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';

/** Every field set, each to a value no other field has: a column read into the wrong field shows. */
const ENTRY: IndexedEntry = {
  offset: 101,
  length: 102,
  type: 'assistant',
  subtype: 'sub-1',
  uuid: 'uuid-1',
  parentUuid: 'parent-1',
  logicalParentUuid: 'logical-1',
  timestamp: '2026-12-04T01:02:03.004Z',
  sessionId: 'session-1',
  chars: 103,
  estTokens: 104,
  messageId: 'msg-1',
  requestId: 'req-1',
  model: 'model-1',
  usage: { input: 105, output: 106, cacheCreation: 107, cacheRead: 108, cache5m: 109, cache1h: 110 },
  toolUses: [{ id: 'tool-1', name: 'Read' }],
  toolResults: [{ id: 'tool-0', isError: true }],
  isSidechain: true,
  isMeta: false,
  isCompactSummary: true,
  cwd: '/cwd-1',
  gitBranch: 'branch-1',
  title: { kind: 'summary', value: 'title-1', leafUuid: 'leaf-1' },
  compact: {
    trigger: 'auto',
    preTokens: 111,
    postTokens: 112,
    preservedSegment: { headUuid: 'h-1', anchorUuid: 'a-1', tailUuid: 't-1' },
  },
};

describe('entry rows', () => {
  it('come back from INSERT parameters as they went in, in runs of several rows', () => {
    const params: EntryParam[] = [];
    pushEntryParams(params, 7, ENTRY);
    pushEntryParams(params, 7, {
      ...ENTRY,
      offset: 201,
      usage: null,
      toolUses: [],
      toolResults: [],
      title: null,
      compact: null,
    });
    expect(params).toHaveLength(2 * ENTRY_COLUMNS.length);
    expect(entriesFromParams([params.slice(0, ENTRY_COLUMNS.length), params.slice(ENTRY_COLUMNS.length)])).toEqual([
      ENTRY,
      { ...ENTRY, offset: 201, usage: null, toolUses: [], toolResults: [], title: null, compact: null },
    ]);
  });

  it('read from parameters equal the same row written by the ingest writer and read back from SQLite', () => {
    const { db, writer, row } = indexWithOneFile();
    writer.commit(commitOf(row, [ENTRY]));
    const stored = readBack(db);
    expect(stored).toEqual([{ ...ENTRY, sessionId: null }]);
    // The strings that repeat are stored once, as ids; the text columns hold nothing.
    expect(db.prepare('SELECT cwd, git_branch, model, cwd_id IS NOT NULL AS ids FROM entries').get()).toEqual({
      cwd: null,
      git_branch: null,
      model: null,
      ids: 1,
    });
    expect(db.prepare('SELECT value FROM strings ORDER BY value').pluck().all()).toEqual([
      '/cwd-1',
      'branch-1',
      'model-1',
    ]);
    db.close();
  });

  it('written before migration 9 (text in the row) read back the same as rows written after it', () => {
    const { db, writer, row } = indexWithOneFile();
    const params: EntryParam[] = [];
    pushEntryParams(params, row.id, ENTRY);
    const columns = ENTRY_COLUMNS.join(', ');
    db.prepare(`INSERT INTO entries (${columns}) VALUES (${ENTRY_COLUMNS.map(() => '?').join(', ')})`).run(params);
    writer.commit(commitOf(row, [{ ...ENTRY, offset: 500 }]));
    const [before, after] = readBack(db);
    expect(before).toEqual(ENTRY);
    expect(after).toEqual({ ...ENTRY, offset: 500, sessionId: null });
    db.close();
  });

  it('name strings that exist after a commit that rolled back had added them', () => {
    const { db, writer, row } = indexWithOneFile();
    const first = { ...ENTRY, cwd: '/only-in-the-failed-commit' };
    // Two rows at one offset break the primary key: the commit's transaction rolls back, strings included.
    expect(() => writer.commit(commitOf(row, [first, first]))).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT COUNT(*) FROM strings').pluck().get()).toBe(0);
    writer.commit(commitOf(row, [first]));
    expect(readBack(db).map((entry) => entry.cwd)).toEqual(['/only-in-the-failed-commit']);
    db.close();
  });
});

function indexWithOneFile(): { db: Database.Database; writer: IngestWriter; row: FileRow } {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) applyMigration(db, migration);
  const writer = createIngestWriter(db);
  const row = writer.insertFile(
    { path: '/p/s.jsonl', project: 'p', sessionId: 's', agentId: null, sessionFromEntries: false },
    { dev: '1', ino: '1', size: 0 },
    0,
  );
  return { db, writer, row };
}

function commitOf(row: FileRow, entries: readonly IndexedEntry[]): Commit {
  const params: EntryParam[] = [];
  for (const entry of entries) pushEntryParams(params, row.id, entry);
  const end = Math.max(...entries.map((entry) => entry.offset + entry.length));
  return {
    row,
    reset: false,
    rows: [params],
    count: entries.length,
    newest: null,
    bad: [],
    identity: { dev: '1', ino: '1', size: end },
    head: { len: 0, hash: '' },
    committedOffset: end,
    bytesRead: end,
    now: 1,
  };
}

function readBack(db: Database.Database): IndexedEntry[] {
  return (db.prepare(selectEntries('ORDER BY e.offset')).all() as EntryRow[]).map(entryFromRow);
}
