/**
 * Migration 31 (issue 35): the usage book by device. A book an older memd wrote keeps its totals,
 * every file of it this machine's; one that had counted another machine's files is folded again
 * from the index; and the migration runs again over a book that has its devices already.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';
import { createUsageService } from '../../../../daemon/usage/service.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { type IndexedFile, indexFiles, responseEntry } from '../../../helpers/usage-index.js';

/** The last schema whose usage book knew no devices. */
const BEFORE_USAGE_DEVICE = 30;
const THIS_DEVICE = { id: 'ffff000000000000', name: 'desk' };
const OTHER = 'bbbb000000000000';
const NOW = Date.parse('2026-03-03T12:00:00Z');

/** This machine's sessions: a resumed one repeats a response of its parent's file (counted once). */
const OWN: IndexedFile[] = [
  {
    id: 1,
    path: '/p/-p-a/s1.jsonl',
    project: '-p-a',
    sessionId: 's1',
    entries: [
      responseEntry(1, '2026-03-01T10:00:00Z', 'claude-sonnet-4-5', 100),
      responseEntry(2, '2026-03-01T10:20:00Z', 'claude-opus-4-6', 200),
    ],
  },
  {
    id: 2,
    path: '/p/-p-b/s2.jsonl',
    project: '-p-b',
    sessionId: 's2',
    entries: [
      responseEntry(2, '2026-03-01T10:20:00Z', 'claude-opus-4-6', 200, 50),
      responseEntry(3, '2026-03-02T09:00:00Z', 'claude-sonnet-4-5', 300),
    ],
  },
];
/** Another machine's copy of s1, resumed there: its first response again, and one of its own. */
const SYNCED: IndexedFile = {
  id: 3,
  path: `/state/sync/devices/${OTHER}/-p-a/s1.jsonl`,
  project: '-p-a',
  sessionId: 's1',
  device: OTHER,
  entries: [
    responseEntry(1, '2026-03-01T10:00:00Z', 'claude-sonnet-4-5', 100),
    responseEntry(4, '2026-03-02T11:00:00Z', 'claude-sonnet-4-5', 400),
  ],
};

let dir: string;
const stores: Store[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-usage-device-'));
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name: string): Store {
  const store = openStore(join(dir, name), fakeLogger());
  stores.push(store);
  return store;
}

/** A database at `version`, as a memd of that version left it (addColumns applied as db.ts applies them). */
function databaseAt(path: string, version: number): Database.Database {
  const old = new Database(path);
  for (const migration of MIGRATIONS.filter((candidate) => candidate.version <= version)) {
    old.exec(migration.sql);
    for (const { table, column, definition } of migration.addColumns ?? [])
      old.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    migration.apply?.(old);
  }
  old.pragma(`user_version = ${version}`);
  return old;
}

/** A book folded by today's memd over these files, and its service. */
async function foldedBook(name: string, files: readonly IndexedFile[]) {
  const store = open(name);
  indexFiles(store.db, files);
  const service = createUsageService({ db: store.db, log: fakeLogger(), clock: () => NOW, device: THIS_DEVICE });
  service.start();
  await service.caughtUp();
  return { store, service };
}

/**
 * What an older memd's book held for these files: today's book without its devices (the same rows
 * when every file is this machine's; its counted marks are kept as they were).
 */
async function olderBook(name: string, files: readonly IndexedFile[]): Promise<void> {
  const { store, service } = await foldedBook(`${name}-today.sqlite`, files);
  service.stop();
  const path = join(dir, `${name}.sqlite`);
  const old = databaseAt(path, BEFORE_USAGE_DEVICE);
  indexFiles(old, files);
  const copy = (table: string, columns: string) => {
    // 64-bit keys read as BigInt: a JS number would round them.
    const rows = store.db.prepare(`SELECT ${columns} FROM ${table}`).raw().safeIntegers().all() as unknown[][];
    const insert = old.prepare(`INSERT INTO ${table} (${columns}) VALUES (${columns.split(',').map(() => '?')})`);
    for (const row of rows) insert.run(row);
  };
  old.transaction(() => {
    copy('usage_files', 'id, path, project, generation, folded_through');
    copy(
      'usage_candidates',
      'file_id, key, offset, slot, sidechain, model, input, output, cache_creation, cache_read, cache_5m, cache_1h, counted',
    );
    const slots = store.db
      .prepare(
        'SELECT slot, project, model, sum(responses), sum(input), sum(output), sum(cache_creation), sum(cache_read), sum(cache_5m), sum(cache_1h) FROM usage_slots GROUP BY slot, project, model',
      )
      .raw()
      .all() as unknown[][];
    const insert = old.prepare('INSERT INTO usage_slots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const row of slots) insert.run(row);
  })();
  old.close();
}

const slotRows = (store: Store) =>
  store.db.prepare('SELECT * FROM usage_slots ORDER BY slot, project, model, device').all();

describe('the usage book by device (migration 31, issue 35)', () => {
  it("keeps an older book's totals, every file of it this machine's, and folds other machines' files into it", async () => {
    const today = await foldedBook('today.sqlite', OWN);
    const expected = await today.service.report({ timezone: 'UTC' });
    today.service.stop();
    await olderBook('older', OWN);

    const migrated = open('older.sqlite');
    expect(migrated.db.pragma('user_version', { simple: true })).toBeGreaterThan(BEFORE_USAGE_DEVICE);
    expect(slotRows(migrated)).toEqual(slotRows(today.store));
    expect(migrated.db.prepare("SELECT count(*) FROM usage_files WHERE device != ''").pluck().get()).toBe(0);
    const service = createUsageService({ db: migrated.db, log: fakeLogger(), clock: () => NOW, device: THIS_DEVICE });
    service.start();
    await service.caughtUp();
    // Nothing to fold again: the report is the older book's.
    expect(await service.report({ timezone: 'UTC' })).toEqual(expected);

    // Another machine's copy arrives: its repeated response is its own now (its id sorts first), counted once.
    indexFiles(migrated.db, [SYNCED]);
    service.committed();
    await service.caughtUp();
    const byDevice = await service.report({ by: 'device', timezone: 'UTC' });
    expect(byDevice.rows.map((row) => [row.key, row.responses, row.output])).toEqual([
      [THIS_DEVICE.id, 2, 500],
      [OTHER, 2, 500],
    ]);
    expect(byDevice.totals).toMatchObject({ responses: 4, output: expected.totals.output + 400 });
    service.stop();
  });

  it("folds again from the index a book that had counted another machine's files", async () => {
    const files = [...OWN, SYNCED];
    const today = await foldedBook('today.sqlite', files);
    const expected = await today.service.report({ by: 'device', timezone: 'UTC' });
    today.service.stop();
    await olderBook('older', files);

    const migrated = open('older.sqlite');
    expect(migrated.db.prepare('SELECT count(*) FROM usage_files').pluck().get()).toBe(0);
    expect(slotRows(migrated)).toEqual([]);
    const service = createUsageService({ db: migrated.db, log: fakeLogger(), clock: () => NOW, device: THIS_DEVICE });
    service.start();
    await service.caughtUp();
    expect(await service.report({ by: 'device', timezone: 'UTC' })).toEqual(expected);
    expect(slotRows(migrated)).toEqual(slotRows(today.store));
    service.stop();
  });

  it('runs again over a book that has its devices (a database set back to an older version), rows kept', async () => {
    const { store, service } = await foldedBook('again.sqlite', [...OWN, SYNCED]);
    service.stop();
    const before = slotRows(store);
    expect(before.some((row) => (row as { device: string }).device === OTHER)).toBe(true);
    store.db.pragma(`user_version = ${BEFORE_USAGE_DEVICE - 1}`);
    store.close();
    stores.splice(stores.indexOf(store), 1);

    const again = open('again.sqlite');
    expect(slotRows(again)).toEqual(before);
    expect(again.db.prepare('SELECT count(*) FROM usage_files WHERE device = ?').pluck().get(OTHER)).toBe(1);
  });
});
