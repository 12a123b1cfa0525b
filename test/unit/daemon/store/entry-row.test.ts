import { describe, expect, it } from 'vitest';
import { ENTRY_COLUMNS, entriesFromParams, entryFromRow, INSERT_ENTRY_SQL, pushEntryParams, type EntryParam, type EntryRow } from '../../../../daemon/store/entry-row.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';

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
  compact: { trigger: 'auto', preTokens: 111, postTokens: 112, preservedSegment: { headUuid: 'h-1', anchorUuid: 'a-1', tailUuid: 't-1' } },
};

describe('entry rows', () => {
  it('come back from INSERT parameters as they went in, in runs of several rows', () => {
    const params: EntryParam[] = [];
    pushEntryParams(params, 7, ENTRY);
    pushEntryParams(params, 7, { ...ENTRY, offset: 201, usage: null, toolUses: [], toolResults: [], title: null, compact: null });
    expect(params).toHaveLength(2 * ENTRY_COLUMNS.length);
    expect(entriesFromParams([params.slice(0, ENTRY_COLUMNS.length), params.slice(ENTRY_COLUMNS.length)])).toEqual([
      ENTRY,
      { ...ENTRY, offset: 201, usage: null, toolUses: [], toolResults: [], title: null, compact: null },
    ]);
  });

  it('read from parameters equal the same row read back from SQLite', () => {
    const db = new Database(':memory:');
    for (const migration of MIGRATIONS) db.exec(migration.sql);
    db.prepare(
      "INSERT INTO files (id, path, project, session_id, agent_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen) VALUES (7, '/p', 'p', 's', NULL, 0, '1', '1', 0, 0, '', 0, 0, 0, 0, 0, 0, 0, 0)",
    ).run();
    const params: EntryParam[] = [];
    pushEntryParams(params, 7, ENTRY);
    db.prepare(INSERT_ENTRY_SQL).run(params);
    const stored = entryFromRow(db.prepare('SELECT * FROM entries').get() as EntryRow);
    expect(entriesFromParams([params])).toEqual([stored]);
    expect(stored).toEqual(ENTRY);
    db.close();
  });
});
