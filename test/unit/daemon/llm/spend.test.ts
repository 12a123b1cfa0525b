import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSpendBook, localDay, nextLocalMidnight, tokensOfUsage } from '../../../../daemon/llm/spend.js';
import { MIGRATIONS } from '../../../../daemon/store/migrations.js';

describe('the budget day', () => {
  it("is the daemon's local calendar day, and the next one starts at local midnight", () => {
    const evening = new Date(2026, 11, 31, 23, 59, 30).getTime();
    expect(localDay(evening)).toBe('2026-12-31');
    expect(nextLocalMidnight(evening)).toBe(new Date(2027, 0, 1).getTime());
    expect(localDay(nextLocalMidnight(evening))).toBe('2027-01-01');
    expect(localDay(nextLocalMidnight(evening) - 1)).toBe('2026-12-31');
  });
});

function migrated(): Database.Database {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) {
    db.exec(migration.sql);
    for (const { table, column, definition } of migration.addColumns ?? [])
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    migration.apply?.(db);
  }
  return db;
}

const noon = new Date(2026, 11, 5, 12).getTime();
const tokens = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });

describe('the spend ledger by kind (issue 32)', () => {
  it("prices each summarizer's call at its model's rates and counts every kind in the one daily budget", () => {
    const book = createSpendBook(migrated());
    book.add('s1', 0.01, noon, tokens(100, 10));
    // Haiku 4.5 at $1 / $5 per million: $0.0045. Sonnet 4.6 at $3 / $15: $0.0135.
    book.record({ kind: 'compaction', sessionId: 's1', model: 'claude-haiku-4-5', tokens: tokens(2_000, 500) }, noon);
    book.record({ kind: 'handoff', sessionId: 's2', model: 'claude-sonnet-4-6', tokens: tokens(2_000, 500) }, noon);
    expect(book.onDayOf(noon)).toBeCloseTo(0.01 + 0.0045 + 0.0135, 9);
    const byKind = book.kindsOnDayOf(noon);
    expect(byKind.extraction).toBeCloseTo(0.01, 9);
    expect(byKind.compaction).toBeCloseTo(0.0045, 9);
    expect(byKind.handoff).toBeCloseTo(0.0135, 9);
    // s1: $0.0145 of extraction and compaction together, before s2's $0.0135. The memory line stays its extractions'.
    expect(book.ofSession('s1')).toBeCloseTo(0.01, 9);
    expect(book.tokensOfSession('s1', 'compaction')).toEqual(tokens(2_000, 500));
    expect(book.sessionsOnDayOf(noon, 10).map((spent) => spent.sessionId)).toEqual(['s1', 's2']);
  });

  it('counts a handoff of no known session in the day, in no session, and an unpriced model as 0 USD with its tokens', () => {
    const book = createSpendBook(migrated());
    book.record({ kind: 'handoff', sessionId: null, model: 'claude-sonnet-4-6', tokens: tokens(1_000, 0) }, noon);
    book.record({ kind: 'compaction', sessionId: 's3', model: 'a-model-nobody-prices', tokens: tokens(5, 5) }, noon);
    expect(book.onDayOf(noon)).toBeCloseTo(0.003, 9);
    expect(book.sessionsOnDayOf(noon, 10)).toEqual([]);
    expect(book.kindsOfSession('s3')).toEqual([{ kind: 'compaction', usd: 0, runs: 1, tokens: tokens(5, 5) }]);
  });

  it("reads a reply's usage, network data, as counts or 0", () => {
    expect(
      tokensOfUsage({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 6 }),
    ).toEqual({ input: 3, output: 4, cacheRead: 5, cacheWrite: 6 });
    expect(tokensOfUsage({ input_tokens: '3', output_tokens: -1 })).toEqual(tokens(0, 0));
    expect(tokensOfUsage(undefined)).toEqual(tokens(0, 0));
  });
});
