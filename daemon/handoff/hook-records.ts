/**
 * The hook records in SQLite (migration 6): expected SessionStart injections and PostCompact
 * summaries, with each summary's survival score (migration 27).
 */
import type Database from 'better-sqlite3';
import type { Survival } from '../../shared/protocol/compaction.js';
import type { CompactRecord, HandoffInjection } from '../../shared/protocol/handoff.js';

/** PostCompact records kept per session: a session compacts a few times a day at most. */
export const KEEP_COMPACT_RECORDS = 50;

export interface PendingInjection {
  sessionId: string;
  marker: string;
  expectedAt: number;
}

interface InjectionRow {
  session_id: string;
  source: string;
  marker: string;
  expected_at: number;
  injected: number | null;
  checked_at: number | null;
}

interface CompactRow {
  trigger: string;
  recorded_at: number;
  summary: string;
  lost: string | null;
  survival: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createHookRecords(db: Database.Database) {
  const sql = {
    expect: db.prepare(
      `INSERT INTO handoff_injections (session_id, source, marker, expected_at, injected, checked_at) VALUES (?, ?, ?, ?, NULL, NULL)
       ON CONFLICT (session_id) DO UPDATE SET source = excluded.source, marker = excluded.marker, expected_at = excluded.expected_at, injected = NULL, checked_at = NULL`,
    ),
    pending: db.prepare('SELECT * FROM handoff_injections WHERE session_id = ? AND injected IS NULL'),
    settle: db.prepare(
      'UPDATE handoff_injections SET injected = ?, checked_at = ? WHERE session_id = ? AND marker = ? AND injected IS NULL',
    ),
    injection: db.prepare('SELECT * FROM handoff_injections WHERE session_id = ?'),
    addCompact: db.prepare(
      'INSERT INTO compact_records (session_id, trigger, recorded_at, summary, lost) VALUES (?, ?, ?, ?, ?)',
    ),
    pruneCompacts: db.prepare(
      `DELETE FROM compact_records WHERE session_id = ? AND id NOT IN (SELECT id FROM compact_records WHERE session_id = ? ORDER BY recorded_at DESC, id DESC LIMIT ?)`,
    ),
    addSurvival: db.prepare('INSERT OR REPLACE INTO compact_survival (record_id, survival) VALUES (?, ?)'),
    pruneSurvival: db.prepare('DELETE FROM compact_survival WHERE record_id NOT IN (SELECT id FROM compact_records)'),
    compacts: db.prepare(
      `SELECT r.*, s.survival FROM compact_records r LEFT JOIN compact_survival s ON s.record_id = r.id
       WHERE r.session_id = ? ORDER BY r.recorded_at DESC, r.id DESC`,
    ),
  };
  const addCompact = db.transaction((sessionId: string, record: CompactRow) => {
    const { lastInsertRowid } = sql.addCompact.run(
      sessionId,
      record.trigger,
      record.recorded_at,
      record.summary,
      record.lost,
    );
    if (record.survival !== null) sql.addSurvival.run(lastInsertRowid, record.survival);
    sql.pruneCompacts.run(sessionId, sessionId, KEEP_COMPACT_RECORDS);
    sql.pruneSurvival.run();
  });

  const compactOf = (row: CompactRow): CompactRecord => ({
    trigger: row.trigger,
    recordedAt: iso(row.recorded_at),
    summaryChars: row.summary.length,
    lost: row.lost === null ? null : (JSON.parse(row.lost) as CompactRecord['lost']),
    survival: row.survival === null ? null : (JSON.parse(row.survival) as Survival),
  });

  return {
    expect(sessionId: string, source: string, marker: string, at: number): void {
      sql.expect.run(sessionId, source, marker, at);
    },
    pending(sessionId: string): PendingInjection | null {
      const row = sql.pending.get(sessionId) as InjectionRow | undefined;
      return row === undefined ? null : { sessionId, marker: row.marker, expectedAt: row.expected_at };
    },
    settle(pending: PendingInjection, injected: boolean, at: number): void {
      sql.settle.run(injected ? 1 : 0, at, pending.sessionId, pending.marker);
    },
    injection(sessionId: string): HandoffInjection | null {
      const row = sql.injection.get(sessionId) as InjectionRow | undefined;
      if (row === undefined) return null;
      return {
        source: row.source,
        expectedAt: iso(row.expected_at),
        injected: row.injected === null ? null : row.injected === 1,
        checkedAt: row.checked_at === null ? null : iso(row.checked_at),
      };
    },
    addCompact(
      sessionId: string,
      trigger: string,
      at: number,
      summary: string,
      lost: CompactRecord['lost'],
      survival: Survival | null = null,
    ): CompactRecord {
      const row: CompactRow = {
        trigger,
        recorded_at: at,
        summary,
        lost: lost === null ? null : JSON.stringify(lost),
        survival: survival === null ? null : JSON.stringify(survival),
      };
      addCompact.immediate(sessionId, row);
      return compactOf(row);
    },
    compactions(sessionId: string): CompactRecord[] {
      return (sql.compacts.all(sessionId) as CompactRow[]).map(compactOf);
    },
  };
}

export type HookRecords = ReturnType<typeof createHookRecords>;
