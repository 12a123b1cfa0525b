import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../../daemon/store/migrations.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const AT = new Date('2024-03-04T05:06:07.089Z');
const MOVED_SUFFIX = '.corrupt-2024-03-04T05-06-07-089Z';

let dir: string;
let dbPath: string;
const open: Store[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-db-'));
  dbPath = join(dir, 'memd.sqlite');
});

afterEach(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function openTracked(log = fakeLogger()): Store {
  const store = openStore(dbPath, log, () => AT);
  open.push(store);
  return store;
}

describe('openStore', () => {
  it('creates a fresh database in WAL mode at the current schema version', () => {
    expect(SCHEMA_VERSION).toBeGreaterThan(0);
    const log = fakeLogger();
    const store = openTracked(log);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.status).toEqual({ schemaVersion: SCHEMA_VERSION, recoveredFrom: null, whileRunning: null });
    // One line for the whole run, not one per migration (issue 29 item 4: 15 lines on a first `npm start`).
    const migrated = log.at('info').filter((line) => line.msg.startsWith('database migrated'));
    expect(migrated.map((line) => line.msg)).toEqual([
      `database migrated from 0 to ${SCHEMA_VERSION} (${MIGRATIONS.length} migrations)`,
    ]);
    expect(migrated[0]?.fields).toMatchObject({ from: 0, to: SCHEMA_VERSION, migrations: MIGRATIONS.length });
    // The file is a real SQLite database.
    expect(readFileSync(dbPath).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  });

  it('keeps its data across a reopen, without migrating again', () => {
    const first = openTracked();
    first.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('k', 'v');
    first.close();
    const log = fakeLogger();
    const second = openTracked(log);
    expect(second.db.prepare('SELECT value FROM meta WHERE key = ?').get('k')).toEqual({ value: 'v' });
    expect(second.status.recoveredFrom).toBeNull();
    expect(log.lines.filter((line) => line.msg.startsWith('database migrat'))).toEqual([]);
  });

  it('close is safe to call twice', () => {
    const store = openTracked();
    store.close();
    expect(() => store.close()).not.toThrow();
    expect(store.db.open).toBe(false);
  });

  it('takes an empty file for a new database, not a corrupt one', () => {
    writeFileSync(dbPath, '');
    const store = openTracked();
    expect(store.status.recoveredFrom).toBeNull();
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
  });

  it('moves a garbage file aside and starts fresh, saying where it went', () => {
    const garbage = randomBytes(8192);
    writeFileSync(dbPath, garbage);
    const log = fakeLogger();
    const store = openTracked(log);
    const movedTo = `${dbPath}${MOVED_SUFFIX}`;
    expect(store.status.recoveredFrom).toMatchObject({ movedTo, at: AT.toISOString() });
    expect(store.status.recoveredFrom?.reason).toMatch(/not a database/i);
    // The old bytes are kept for inspection, the new database works.
    expect(readFileSync(movedTo).equals(garbage)).toBe(true);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    store.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('k', 'v');
    expect(log.at('warn')).toEqual([
      {
        level: 'warn',
        msg: 'database was corrupt; moved aside and rebuilt',
        fields: { movedTo, reason: store.status.recoveredFrom?.reason },
      },
    ]);
  });

  it('moves aside a database from a newer memd', () => {
    const newer = new Database(dbPath);
    newer.pragma('journal_mode = WAL');
    newer.exec('CREATE TABLE future (x)');
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    const store = openTracked();
    expect(store.status.recoveredFrom?.movedTo).toBe(`${dbPath}${MOVED_SUFFIX}`);
    expect(store.status.recoveredFrom?.reason).toContain(`schema version ${SCHEMA_VERSION + 1} is newer`);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'future'").get()).toBeUndefined();
    // The moved file is the newer database, intact.
    const moved = new Database(`${dbPath}${MOVED_SUFFIX}`, { readonly: true });
    expect(moved.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    moved.close();
  });

  it('moves a database with damaged pages aside', () => {
    const damaged = new Database(dbPath);
    damaged.exec('CREATE TABLE t (x TEXT); CREATE INDEX t_x ON t (x);');
    const insert = damaged.prepare('INSERT INTO t (x) VALUES (?)');
    for (let i = 0; i < 300; i++) insert.run(`row ${i} ${'y'.repeat(50)}`);
    damaged.close();
    // Keep the header and the first page (the schema), scribble over the rest.
    const bytes = readFileSync(dbPath);
    const pageSize = bytes.readUInt16BE(16);
    randomBytes(bytes.length - pageSize).copy(bytes, pageSize);
    writeFileSync(dbPath, bytes);

    const store = openTracked();
    expect(store.status.recoveredFrom?.movedTo).toBe(`${dbPath}${MOVED_SUFFIX}`);
    expect(store.status.recoveredFrom?.reason).toMatch(/malformed|quick_check/);
    // What was moved is the damaged database (SQLite may have touched its header), not an empty one.
    expect(statSync(`${dbPath}${MOVED_SUFFIX}`).size).toBe(bytes.length);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").get()).toBeUndefined();
  });

  it('leaves no stale WAL of the corrupt database beside the fresh one', () => {
    writeFileSync(dbPath, randomBytes(8192));
    const staleWal = randomBytes(4096);
    writeFileSync(`${dbPath}-wal`, staleWal);
    const store = openTracked();
    expect(store.status.recoveredFrom).not.toBeNull();
    if (existsSync(`${dbPath}-wal`)) expect(readFileSync(`${dbPath}-wal`).equals(staleWal)).toBe(false);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  describe('after a clean close', () => {
    const skipped = (log: ReturnType<typeof fakeLogger>) =>
      log.lines.some((line) => line.msg.includes('quick_check skipped'));

    it('skips quick_check when the file is unchanged, and forgets that once open (a crash checks again)', () => {
      const first = openTracked();
      first.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('k', 'v');
      first.close();
      expect(existsSync(`${dbPath}-clean`)).toBe(true);
      const log = fakeLogger();
      const second = openTracked(log);
      expect(skipped(log)).toBe(true);
      expect(existsSync(`${dbPath}-clean`)).toBe(false);
      expect(second.db.prepare('SELECT value FROM meta WHERE key = ?').get('k')).toEqual({ value: 'v' });
      // Killed here: no mark, so the next start checks.
      const crashLog = fakeLogger();
      openStore(dbPath, crashLog, () => AT).close();
      expect(skipped(crashLog)).toBe(false);
    });

    it('checks a file changed since, and moves it aside when damaged', () => {
      const first = openTracked();
      first.db.exec('CREATE TABLE t (x TEXT)');
      const insert = first.db.prepare('INSERT INTO t (x) VALUES (?)');
      for (let i = 0; i < 300; i++) insert.run(`row ${i} ${'y'.repeat(50)}`);
      first.close();
      const bytes = readFileSync(dbPath);
      const pageSize = bytes.readUInt16BE(16);
      randomBytes(bytes.length - pageSize).copy(bytes, pageSize);
      writeFileSync(dbPath, bytes);
      const log = fakeLogger();
      const store = openTracked(log);
      expect(skipped(log)).toBe(false);
      expect(store.status.recoveredFrom?.movedTo).toBe(`${dbPath}${MOVED_SUFFIX}`);
    });

    it('checks when a WAL is beside the file', () => {
      openTracked().close();
      writeFileSync(`${dbPath}-wal`, randomBytes(4096));
      const log = fakeLogger();
      openTracked(log);
      expect(skipped(log)).toBe(false);
    });
  });

  it('does not move aside a database it merely cannot open', () => {
    // A path that cannot be opened is not corruption: fail loudly, move nothing.
    expect(() => openStore(join(dir, 'missing-dir', 'memd.sqlite'), fakeLogger(), () => AT)).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
