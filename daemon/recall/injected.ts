/**
 * What recall injected in each session, so that a passage goes into a session's context once
 * (issue 33): Claude Code keeps it in the conversation, and a second copy only costs tokens. Kept
 * in the database (recall_injected), so that a daemon restart mid-session does not inject a passage
 * again; bounded per session, and aged out with the sessions that used it.
 */
import type Database from 'better-sqlite3';

/** Passages remembered per session: a long session's whole recall. */
const PASSAGES_PER_SESSION = 512;
/** A session not given a passage for this long has ended: its book goes (Claude Code resumes are rarer than this). */
const KEPT_MS = 30 * 86_400_000;

export function createInjectedBook(db: Database.Database, clock: () => number = Date.now) {
  const holds = db.prepare('SELECT 1 FROM recall_injected WHERE session_id = ? AND key = ?').pluck();
  const insert = db.prepare('INSERT OR IGNORE INTO recall_injected (session_id, key, at) VALUES (?, ?, ?)');
  const trim = db.prepare(`
    DELETE FROM recall_injected WHERE session_id = @session AND key IN (
      SELECT key FROM recall_injected WHERE session_id = @session ORDER BY at DESC, key LIMIT -1 OFFSET @kept)`);
  const age = db.prepare('DELETE FROM recall_injected WHERE at < ?');
  const add = db.transaction((sessionId: string, keys: readonly string[], now: number) => {
    for (const key of keys) insert.run(sessionId, key, now);
    trim.run({ session: sessionId, kept: PASSAGES_PER_SESSION });
    age.run(now - KEPT_MS);
  });

  return {
    has: (sessionId: string, key: string): boolean => holds.get(sessionId, key) !== undefined,
    add(sessionId: string, keys: readonly string[]): void {
      add(sessionId, keys, clock());
    },
  };
}

export type InjectedBook = ReturnType<typeof createInjectedBook>;
