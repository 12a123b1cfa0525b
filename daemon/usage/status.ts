/**
 * `usage.status` (issue 31): the inputs of the three forecasts (shared/usage/forecast.ts) gathered
 * from the session's summary, the tail of its main transcript's index rows, the usage book and
 * what Claude Code's status lines reported. Every read is bounded: a tail of rows, a window of
 * quarter hours, so a session of 100,000 entries answers as fast as a new one.
 */
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';
import type { PlanWindow } from '../../shared/protocol/reports.js';
import type { SessionSummary } from '../../shared/protocol/sessions.js';
import { costOf, priceFor } from '../../shared/transcript/models.js';
import { timestampMs } from '../../shared/transcript/timestamp.js';
import {
  FIVE_HOUR_WINDOW_MS,
  forecastAutoCompact,
  forecastCacheRebuild,
  forecastLimit,
} from '../../shared/usage/forecast.js';
import { holdsTurns, recentTurns, type TurnEntry } from '../../shared/usage/turns.js';
import type { SessionReports } from '../sessions/reports.js';
import type { SlotRow, TimedRow } from './book.js';
import { usageOfRow } from './book-rows.js';

/**
 * Index rows read from the end of the main transcript at most: a turn of a busy agent writes 50 to
 * 300 entries (tool calls, results, progress), so this holds the last ten turns of all but the
 * busiest. Read backwards on the primary key, a page at a time, until the turns are there.
 */
export const TAIL_ROWS = 3_000;
/** Rows per page of that read: the ten turns of a chat are one page; an agent's, a few. */
export const TAIL_PAGE_ROWS = 250;
/** Turns the pace is read from: ten growth samples between them, the last half hour to hour of work. */
export const PACE_TURNS = 11;
/** The session's spend rate is over its last half hour of activity: its pace now, not its morning's. */
export const SPEND_SPAN_MS = 30 * 60_000;
/** Shorter activity is read as this long: one response in a minute would otherwise be a wild hourly rate. */
export const MIN_SPEND_SPAN_MS = 5 * 60_000;
const MINUTE_MS = 60_000;
const SLOT_MS = 15 * MINUTE_MS;

export interface UsageStatusDeps {
  clock: () => number;
  /** sessions.get: the summary, or the NotFound it throws for an unknown session. */
  summary(sessionId: string): SessionSummary;
  reports: Pick<SessionReports, 'get'>;
  /** The main transcript's last rows, read backwards until `enough` (transcripts' mainTurnRows). */
  mainTurnRows(
    sessionId: string,
    enough: (newestFirst: readonly TurnEntry[]) => boolean,
    limits: { pageRows: number; maxRows: number },
  ): TurnEntry[];
  usage: {
    windowUsage(fromMs: number, toMs: number): SlotRow[];
    sessionResponses(sessionId: string, fromMs: number): TimedRow[];
  };
}

export interface UsageStatus {
  status(sessionId: string): UsageStatusResult;
}

/** USD of some counted rows; responses of models without a price are left out (their cost is unknown, not 0). */
function costOfRows(rows: readonly (SlotRow | TimedRow)[]): number {
  let usd = 0;
  for (const row of rows) {
    const price = priceFor(row.model);
    if (price !== null) usd += costOf(usageOfRow(row), price);
  }
  return usd;
}

/** USD an hour over the session's last SPEND_SPAN_MS of activity (from `fromMs` on), with the minutes it was read over. */
function sessionRate(rows: readonly TimedRow[], now: number): { usdPerHour: number | null; spanMinutes: number } {
  const timed = rows.map((row) => ({ row, ms: timestampMs(row.timestamp, now) ?? row.slot * SLOT_MS }));
  if (timed.length === 0) return { usdPerHour: null, spanMinutes: 0 };
  const last = Math.max(...timed.map((response) => response.ms));
  const recent = timed.filter((response) => response.ms >= last - SPEND_SPAN_MS);
  const first = Math.min(...recent.map((response) => response.ms));
  const span = Math.max(MIN_SPEND_SPAN_MS, last - first);
  const usd = costOfRows(recent.map((response) => response.row));
  return { usdPerHour: usd > 0 ? (usd / span) * 60 * MINUTE_MS : null, spanMinutes: span / MINUTE_MS };
}

export function createUsageStatus(deps: UsageStatusDeps): UsageStatus {
  const limitOf = (sessionId: string, now: number) => {
    const reported = deps.reports.get(sessionId);
    const own = reported.rateLimits?.value.fiveHour;
    const window: PlanWindow | null = own ?? reported.accountRateLimits?.value.fiveHour ?? null;
    const reportedBy = own !== undefined ? 'session' : window === null ? null : 'account';
    if (window === null || window.resetsAt === null || window.resetsAt <= now)
      return forecastLimit({
        now,
        window,
        reportedBy,
        accountSpendUsd: null,
        sessionUsdPerHour: null,
        sessionSpanMinutes: 0,
      });
    const opened = window.resetsAt - FIVE_HOUR_WINDOW_MS;
    const rate = sessionRate(deps.usage.sessionResponses(sessionId, opened), now);
    return forecastLimit({
      now,
      window,
      reportedBy,
      accountSpendUsd: costOfRows(deps.usage.windowUsage(opened, now)),
      sessionUsdPerHour: rate.usdPerHour,
      sessionSpanMinutes: rate.spanMinutes,
    });
  };

  return {
    status(sessionId) {
      const summary = deps.summary(sessionId);
      const now = deps.clock();
      const reported = deps.reports.get(sessionId);
      const tail = deps.mainTurnRows(sessionId, (rows) => holdsTurns(rows, PACE_TURNS + 1), {
        pageRows: TAIL_PAGE_ROWS,
        maxRows: TAIL_ROWS,
      });
      const recent = recentTurns(tail, PACE_TURNS, now);
      return {
        sessionId,
        model: summary.model,
        at: now,
        autoCompact: forecastAutoCompact({
          contextTokens: summary.contextTokens,
          threshold: summary.threshold,
          turns: recent.turns,
        }),
        limit: limitOf(sessionId, now),
        cacheRebuild: forecastCacheRebuild({
          now,
          model: summary.model,
          price: priceFor(summary.model),
          contextTokens: summary.contextTokens,
          reported: reported.promptCache?.value ?? null,
          lastResponse: recent.lastResponse,
        }),
        reported,
      };
    },
  };
}
