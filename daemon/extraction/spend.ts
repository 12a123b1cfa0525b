/**
 * What session-memory extraction spends, per local day and session (migration 11), and whether
 * background extraction is paused (`memory.pause`): with the anthropic summarizer, extraction runs
 * on the user's API key, so the user can see the spend, cap it per day and stop it. Writes are
 * synchronous statements, run inside the job store's transactions where they belong to one.
 */
import type Database from 'better-sqlite3';

/** The meta key whose presence means background extraction is paused; it survives restarts. */
const PAUSED_KEY = 'memory.paused';

/** `2026-12-04` in the daemon's local time zone: a budget "per day" is the user's day. */
export function localDay(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Epoch ms of the next local midnight after `ms`: when a spent daily budget is whole again. */
export function nextLocalMidnight(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
}

/** The tokens of one model call or a sum of them; cache writes and reads apart from plain input. */
export interface SpendTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const NO_TOKENS: SpendTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export interface SpendBook {
  /**
   * Adds one extraction by a model: its cost and tokens. A run with neither tokens nor a cost
   * (the offline summarizer) is not recorded; an unknown price (null) counts 0 USD.
   */
  add(sessionId: string, costUsd: number | null, at: number, tokens?: SpendTokens): void;
  /** USD spent on the local day of `at`, over every session. */
  onDayOf(at: number): number;
  /** USD spent on one session's extractions, over every day. */
  ofSession(sessionId: string): number;
  /** Tokens of one session's extractions, over every day. */
  tokensOfSession(sessionId: string): SpendTokens;
  /** USD spent per session on the local day of `at`, most first (at most `limit`). */
  sessionsOnDayOf(at: number, limit: number): { sessionId: string; usd: number }[];
  paused(): boolean;
  setPaused(paused: boolean): void;
}

export function createSpendBook(db: Database.Database): SpendBook {
  const sql = {
    add: db.prepare(
      `INSERT INTO memory_spend (day, session_id, cost_usd, runs, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
       VALUES (@day, @sessionId, @costUsd, 1, @input, @output, @cacheRead, @cacheWrite)
       ON CONFLICT (day, session_id) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd, runs = runs + 1,
         input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
         cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
         cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`,
    ),
    tokens: db.prepare(
      `SELECT coalesce(SUM(input_tokens), 0) AS input, coalesce(SUM(output_tokens), 0) AS output,
         coalesce(SUM(cache_read_tokens), 0) AS cacheRead, coalesce(SUM(cache_write_tokens), 0) AS cacheWrite
       FROM memory_spend WHERE session_id = ?`,
    ),
    day: db.prepare('SELECT coalesce(SUM(cost_usd), 0) AS usd FROM memory_spend WHERE day = ?').pluck(),
    session: db.prepare('SELECT coalesce(SUM(cost_usd), 0) AS usd FROM memory_spend WHERE session_id = ?').pluck(),
    sessionsOnDay: db.prepare(
      'SELECT session_id AS sessionId, cost_usd AS usd FROM memory_spend WHERE day = ? AND cost_usd > 0 ORDER BY cost_usd DESC LIMIT ?',
    ),
    paused: db.prepare('SELECT 1 FROM meta WHERE key = ?').pluck(),
    pause: db.prepare("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING"),
    resume: db.prepare('DELETE FROM meta WHERE key = ?'),
  };
  return {
    add(sessionId, costUsd, at, tokens = NO_TOKENS) {
      const cost = costUsd !== null && costUsd > 0 ? costUsd : 0;
      const used = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
      if (cost === 0 && used === 0) return;
      sql.add.run({ day: localDay(at), sessionId, costUsd: cost, ...tokens });
    },
    onDayOf: (at) => sql.day.get(localDay(at)) as number,
    ofSession: (sessionId) => sql.session.get(sessionId) as number,
    tokensOfSession: (sessionId) => sql.tokens.get(sessionId) as SpendTokens,
    sessionsOnDayOf: (at, limit) => sql.sessionsOnDay.all(localDay(at), limit) as { sessionId: string; usd: number }[],
    paused: () => sql.paused.get(PAUSED_KEY) !== undefined,
    setPaused(paused) {
      if (paused) sql.pause.run(PAUSED_KEY);
      else sql.resume.run(PAUSED_KEY);
    },
  };
}
