import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDatabase } from '../../../../daemon/store/check.js';
import { openStore } from '../../../../daemon/store/db.js';
import { SCHEMA_VERSION } from '../../../../daemon/store/migrations.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

let dir: string;
let dbPath: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-check-'));
  dbPath = join(dir, 'memd.sqlite');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('checkDatabase', () => {
  it('reports a missing database as fine and absent', () => {
    expect(checkDatabase(dbPath)).toEqual({ path: dbPath, exists: false, ok: true, schemaVersion: null, problems: [] });
  });

  it('reports a healthy database with its schema version', () => {
    openStore(dbPath, fakeLogger()).close();
    expect(checkDatabase(dbPath)).toEqual({
      path: dbPath,
      exists: true,
      ok: true,
      schemaVersion: SCHEMA_VERSION,
      problems: [],
    });
  });

  it('checks a database the daemon has open', () => {
    const store = openStore(dbPath, fakeLogger());
    try {
      store.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('k', 'v');
      expect(checkDatabase(dbPath)).toMatchObject({ exists: true, ok: true, schemaVersion: SCHEMA_VERSION });
    } finally {
      store.close();
    }
  });

  it('reports a garbage file as not ok, with the reason', () => {
    writeFileSync(dbPath, randomBytes(4096));
    const result = checkDatabase(dbPath);
    expect(result).toMatchObject({ path: dbPath, exists: true, ok: false, schemaVersion: null });
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/not a database/i);
  });

  it('does not change the file it checks', () => {
    const db = new Database(dbPath);
    db.pragma('user_version = 7');
    db.close();
    expect(checkDatabase(dbPath).schemaVersion).toBe(7);
    const reopened = new Database(dbPath, { readonly: true });
    expect(reopened.pragma('journal_mode', { simple: true })).toBe('delete');
    reopened.close();
  });
});
