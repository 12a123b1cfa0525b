import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpendBook } from '../../../../daemon/llm/spend.js';
import { openStore } from '../../../../daemon/store/db.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

/** The last schema whose spend ledger had no kind: every row an extraction's. */
const BEFORE_SPEND_KIND = 27;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-spend-kind-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

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

const at = new Date(2026, 11, 5, 12).getTime();

describe('the spend ledger by kind (migration 28, issue 32)', () => {
  it('keeps every earlier row as an extraction, and keys the ledger by kind', () => {
    const path = join(dir, 'memd.sqlite');
    const old = databaseAt(path, BEFORE_SPEND_KIND);
    old
      .prepare(
        `INSERT INTO memory_spend (day, session_id, cost_usd, runs, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
         VALUES ('2026-12-05', 's1', 0.25, 3, 1000, 200, 50, 10)`,
      )
      .run();
    old.close();

    const store = openStore(path, fakeLogger(), () => new Date());
    try {
      const book = createSpendBook(store.db);
      expect(book.kindsOfSession('s1')).toEqual([
        { kind: 'extraction', usd: 0.25, runs: 3, tokens: { input: 1000, output: 200, cacheRead: 50, cacheWrite: 10 } },
      ]);
      // Same day and session, another kind: a row of its own, not summed into the extraction's.
      book.record(
        {
          kind: 'compaction',
          sessionId: 's1',
          model: 'claude-haiku-4-5',
          tokens: { input: 2_000, output: 500, cacheRead: 0, cacheWrite: 0 },
        },
        at,
      );
      expect(book.ofSession('s1')).toBe(0.25);
      expect(book.ofSession('s1', 'compaction')).toBeCloseTo(0.0045, 9);
      expect(book.kindsOfSession('s1').map((spent) => [spent.kind, spent.runs])).toEqual([
        ['extraction', 3],
        ['compaction', 1],
      ]);
    } finally {
      store.close();
    }
  });

  it('runs again over a ledger that has its kind already (a database set back to an older version), rows kept', () => {
    const path = join(dir, 'memd.sqlite');
    const first = openStore(path, fakeLogger(), () => new Date());
    createSpendBook(first.db).record(
      {
        kind: 'handoff',
        sessionId: 's2',
        model: 'claude-sonnet-4-6',
        tokens: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 },
      },
      at,
    );
    first.db.pragma(`user_version = ${BEFORE_SPEND_KIND - 10}`);
    first.close();

    const again = openStore(path, fakeLogger(), () => new Date());
    try {
      expect(
        createSpendBook(again.db)
          .kindsOfSession('s2')
          .map((spent) => spent.kind),
      ).toEqual(['handoff']);
    } finally {
      again.close();
    }
  });
});
