import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createReopenableDb } from '../../../../daemon/store/reopenable.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function table(path: string, value: string): Database.Database {
  const db = new Database(path);
  db.exec('CREATE TABLE t (v TEXT)');
  db.prepare('INSERT INTO t VALUES (?)').run(value);
  return db;
}

describe('a database handle that outlives its connection', () => {
  it('statements and transactions made before a swap run on the new connection', () => {
    dir = mkdtempSync(join(tmpdir(), 'memd-reopen-'));
    const handle = createReopenableDb(table(join(dir, 'a.sqlite'), 'first'), () => undefined);
    const select = handle.db.prepare('SELECT v FROM t');
    const plucked = handle.db.prepare('SELECT v FROM t').pluck();
    const insert = handle.db.transaction((value: string) => handle.db.prepare('INSERT INTO t VALUES (?)').run(value));
    expect(select.get()).toEqual({ v: 'first' });
    handle.swap(table(join(dir, 'b.sqlite'), 'second')).close();
    expect(select.get()).toEqual({ v: 'second' });
    // pluck() set on the old statement holds for the one prepared again.
    expect(plucked.get()).toBe('second');
    insert.immediate('third');
    expect(select.all()).toEqual([{ v: 'second' }, { v: 'third' }]);
    expect(handle.current().open).toBe(true);
  });

  it('reports an error that says the file is broken, after the throwing call', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memd-reopen-'));
    const path = join(dir, 'garbage.sqlite');
    writeFileSync(path, 'not a database at all'.repeat(300));
    const reported: unknown[] = [];
    const handle = createReopenableDb(new Database(path), (error) => reported.push(error));
    expect(() => handle.db.prepare('SELECT 1 FROM sqlite_master')).toThrow(
      expect.objectContaining({ code: 'SQLITE_NOTADB' }),
    );
    expect(reported).toEqual([]);
    await Promise.resolve();
    expect(reported).toHaveLength(1);
    // Errors of the statement itself are not the file's fault.
    handle.swap(table(join(dir, 'ok.sqlite'), 'x')).close();
    expect(() => handle.db.prepare('SELECT nope FROM t')).toThrow(/no such column/);
    await Promise.resolve();
    expect(reported).toHaveLength(1);
  });
});
