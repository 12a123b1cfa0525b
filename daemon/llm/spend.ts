/**
 * What memd's model calls spend, per local day, session and kind (migrations 11, 26, 28): the
 * session-memory extractions, the compaction summaries and the handoff narratives of the anthropic
 * summarizers all run on the user's key, so the user can see the spend, each kind apart, and cap it
 * per day (one budget for all of it: docs/session-memory.md); and whether background extraction is
 * paused (`memory.pause`). Writes are synchronous statements, run inside the job store's
 * transactions where they belong to one.
 */
import type Database from 'better-sqlite3';
import { SPEND_KINDS, type SpendKind } from '../../shared/protocol/memory.js';
import type { KindSpend } from '../../shared/protocol/sessions.js';
import { costOf, priceFor } from '../../shared/transcript/models.js';

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

/** No tokens: what a call without a count records, and a session without spend of a kind reports. */
export const NO_TOKENS: Readonly<SpendTokens> = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** One model call of a summarizer, as it answered: recorded by the caller, priced by the ledger. */
export interface ModelCall {
  kind: SpendKind;
  /** Null: a handoff of a transcript the index does not know; it counts in the day, in no session. */
  sessionId: string | null;
  model: string;
  tokens: SpendTokens;
}

/** What a summarizer calls after each reply that came back (a rejected one was paid for too). */
export type RecordCall = (call: ModelCall) => void;

/** A count from the API's `usage` (unknown: it came from the network); anything else is 0. */
const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** The tokens of a Messages API reply's `usage`, cache writes and reads apart. */
export function tokensOfUsage(usage: Record<string, unknown> | undefined): SpendTokens {
  return {
    input: count(usage?.input_tokens),
    output: count(usage?.output_tokens),
    cacheRead: count(usage?.cache_read_input_tokens),
    cacheWrite: count(usage?.cache_creation_input_tokens),
  };
}

/** USD of a call at its model's rates (cache writes at the 5-minute rate, the API's default); null when unpriced. */
export function costOfCall(model: string, tokens: SpendTokens): number | null {
  const price = priceFor(model);
  if (price === null) return null;
  return costOf(
    {
      input: tokens.input,
      output: tokens.output,
      cacheRead: tokens.cacheRead,
      cacheCreation: tokens.cacheWrite,
      cache5m: tokens.cacheWrite,
      cache1h: 0,
    },
    price,
  );
}

export interface SpendBook {
  /**
   * Adds one model call (an extraction unless said): its cost and tokens. A run with neither
   * tokens nor a cost (the offline summarizer) is not recorded; an unknown price (null) counts 0 USD.
   */
  add(sessionId: string, costUsd: number | null, at: number, tokens?: SpendTokens, kind?: SpendKind): void;
  /** A summarizer's call, priced at its model's rates. */
  record(call: ModelCall, at: number): void;
  /** USD spent on the local day of `at`, over every session and kind: the one daily budget. */
  onDayOf(at: number): number;
  /** USD spent on the local day of `at` per kind, every kind present (0 when none). */
  kindsOnDayOf(at: number): Record<SpendKind, number>;
  /** USD spent on one session's calls of a kind (extraction unless said), over every day. */
  ofSession(sessionId: string, kind?: SpendKind): number;
  /** Tokens of one session's calls of a kind (extraction unless said), over every day. */
  tokensOfSession(sessionId: string, kind?: SpendKind): SpendTokens;
  /** One session's spend per kind over every day, in SPEND_KINDS order, only the kinds it has. */
  kindsOfSession(sessionId: string): KindSpend[];
  /** USD spent per session (every kind) on the local day of `at`, most first (at most `limit`). */
  sessionsOnDayOf(at: number, limit: number): { sessionId: string; usd: number }[];
  paused(): boolean;
  setPaused(paused: boolean): void;
}

export function createSpendBook(db: Database.Database): SpendBook {
  const sql = {
    add: db.prepare(
      `INSERT INTO memory_spend (day, session_id, kind, cost_usd, runs, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
       VALUES (@day, @sessionId, @kind, @costUsd, 1, @input, @output, @cacheRead, @cacheWrite)
       ON CONFLICT (day, session_id, kind) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd, runs = runs + 1,
         input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
         cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
         cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`,
    ),
    tokens: db.prepare(
      `SELECT coalesce(SUM(input_tokens), 0) AS input, coalesce(SUM(output_tokens), 0) AS output,
         coalesce(SUM(cache_read_tokens), 0) AS cacheRead, coalesce(SUM(cache_write_tokens), 0) AS cacheWrite
       FROM memory_spend WHERE session_id = ? AND kind = ?`,
    ),
    day: db.prepare('SELECT coalesce(SUM(cost_usd), 0) AS usd FROM memory_spend WHERE day = ?').pluck(),
    kindsOnDay: db.prepare('SELECT kind, SUM(cost_usd) AS usd FROM memory_spend WHERE day = ? GROUP BY kind'),
    session: db
      .prepare('SELECT coalesce(SUM(cost_usd), 0) AS usd FROM memory_spend WHERE session_id = ? AND kind = ?')
      .pluck(),
    kindsOfSession: db.prepare(
      `SELECT kind, SUM(cost_usd) AS usd, SUM(runs) AS runs, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
         SUM(cache_read_tokens) AS cacheRead, SUM(cache_write_tokens) AS cacheWrite
       FROM memory_spend WHERE session_id = ? GROUP BY kind`,
    ),
    // The calls of no session ('') count in the day but are no session's.
    sessionsOnDay: db.prepare(
      `SELECT session_id AS sessionId, SUM(cost_usd) AS usd FROM memory_spend WHERE day = ? AND session_id <> ''
       GROUP BY session_id HAVING usd > 0 ORDER BY usd DESC LIMIT ?`,
    ),
    paused: db.prepare('SELECT 1 FROM meta WHERE key = ?').pluck(),
    pause: db.prepare("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING"),
    resume: db.prepare('DELETE FROM meta WHERE key = ?'),
  };
  const add: SpendBook['add'] = (sessionId, costUsd, at, tokens = NO_TOKENS, kind = 'extraction') => {
    const cost = costUsd !== null && costUsd > 0 ? costUsd : 0;
    const used = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
    if (cost === 0 && used === 0) return;
    sql.add.run({ day: localDay(at), sessionId, kind, costUsd: cost, ...tokens });
  };
  return {
    add,
    record: (call, at) => add(call.sessionId ?? '', costOfCall(call.model, call.tokens), at, call.tokens, call.kind),
    onDayOf: (at) => sql.day.get(localDay(at)) as number,
    kindsOnDayOf(at) {
      const byKind = Object.fromEntries(SPEND_KINDS.map((kind) => [kind, 0])) as Record<SpendKind, number>;
      for (const row of sql.kindsOnDay.all(localDay(at)) as { kind: SpendKind; usd: number }[])
        byKind[row.kind] = row.usd;
      return byKind;
    },
    ofSession: (sessionId, kind = 'extraction') => sql.session.get(sessionId, kind) as number,
    tokensOfSession: (sessionId, kind = 'extraction') => sql.tokens.get(sessionId, kind) as SpendTokens,
    kindsOfSession(sessionId) {
      const rows = sql.kindsOfSession.all(sessionId) as ({
        kind: SpendKind;
        usd: number;
        runs: number;
      } & SpendTokens)[];
      return SPEND_KINDS.flatMap((kind) => {
        const row = rows.find((candidate) => candidate.kind === kind);
        if (row === undefined) return [];
        const { input, output, cacheRead, cacheWrite } = row;
        return [{ kind, usd: row.usd, runs: row.runs, tokens: { input, output, cacheRead, cacheWrite } }];
      });
    },
    sessionsOnDayOf: (at, limit) => sql.sessionsOnDay.all(localDay(at), limit) as { sessionId: string; usd: number }[],
    paused: () => sql.paused.get(PAUSED_KEY) !== undefined,
    setPaused(paused) {
      if (paused) sql.pause.run(PAUSED_KEY);
      else sql.resume.run(PAUSED_KEY);
    },
  };
}
