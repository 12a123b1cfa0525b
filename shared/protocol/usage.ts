/**
 * `usage.report` (issue 18): tokens and cost by local day, project, model or device, from memd's index,
 * counted as ccusage 20 counts them (one API response once across every file, with its largest
 * usage; docs/protocol.md has the rules).
 */
import { arrayOf, bool, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';
import { type TokenCounts, tokenCountsFields } from './tokens.js';

/**
 * What rows are grouped by: the local calendar day (ccusage's daily view), the project folder, the
 * model, the local week from Monday and the local month (ccusage's weekly and monthly views), and
 * the 5-hour billing block (ccusage's blocks view), and the machine whose transcripts counted it
 * (issue 35: with sync, other machines' sessions are indexed too).
 */
export const USAGE_GROUPINGS = ['day', 'project', 'model', 'week', 'month', 'block', 'device'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** A report row's or the totals' figures: tokens, and the responses and cost they came from. */
export interface UsageFigures extends TokenCounts {
  /** input + output + cacheCreation + cacheRead, as ccusage's totalTokens. */
  totalTokens: number;
  /** USD at standard API prices; responses of a model without a known price add nothing (see unpricedResponses). */
  costUsd: number;
  /** API responses counted. */
  responses: number;
  /** Of those, responses of a model memd has no price for: their tokens are counted, their cost is not. */
  unpricedResponses: number;
}

/**
 * Where a figure comes from: `official` is what Claude Code wrote (the API's token counts in its
 * transcripts), `estimated` is what memd computed from them (costs at list prices, rates, projections).
 */
export type Provenance = 'official' | 'estimated';

/** A block's pace, as ccusage's `blocks --active` computes it (first to last response of the block). */
export interface UsageBurnRate {
  /** All tokens (cache reads and writes included) per minute. */
  tokensPerMinute: number;
  /** Input and output tokens per minute: what ccusage's indicator reads. */
  tokensPerMinuteForIndicator: number;
  costPerHour: number;
}

/** Where the active block ends at that pace. */
export interface UsageProjection {
  /** Rounded to the token, cost to the cent, minutes to the minute, as ccusage rounds them. */
  totalTokens: number;
  totalCost: number;
  remainingMinutes: number;
}

/** A 5-hour billing block (`by: 'block'`), as ccusage's blocks view shows it. */
export interface UsageBlock {
  /** ISO instants: the hour of its first response, and five hours later (a gap: from five hours after the last response to the next one). */
  start: string;
  end: string;
  /** Its last response; null for a gap. */
  lastResponse: string | null;
  /** A gap of more than five hours without responses (no figures). */
  gap: boolean;
  /** Within five hours of its last response and before its end: burnRate and projection are given. */
  active: boolean;
  burnRate: UsageBurnRate | null;
  projection: UsageProjection | null;
}

export interface UsageRow extends UsageFigures {
  /**
   * The day (`2026-03-02`, local to `timezone`), the project folder (`-home-user-src-app`), the
   * model id, the week's Monday (`2026-03-02`), the month (`2026-03`), the block's start as
   * ccusage names it (`2026-03-02T09:00:00.000Z`, a gap `gap-` and its start), or the device id
   * (16 hex digits; this machine's own for its transcripts).
   */
  key: string;
  /** By block: the block's times, and its pace when active. */
  block?: UsageBlock;
  /**
   * By project: the project as tables show it (`shop`, `acme/api`), which `project` accepts (issue
   * 28). By device: the device's name (the id when memd knows no name for it), which `device` accepts.
   */
  name?: string;
  /** By device: whether the row is this machine's. */
  local?: boolean;
  /** The models of the row's responses, sorted. */
  models: string[];
}

export interface UsageDay {
  day: string;
  costUsd: number;
  totalTokens: number;
}

export interface UsageReportResult {
  by: UsageGrouping;
  /** The IANA time zone days are counted in. */
  timezone: string;
  /** The window as resolved: ISO instants, `until` exclusive; null when unbounded. */
  since: string | null;
  until: string | null;
  /** By day, week, month and block: oldest first, periods with usage only (and gaps). By project or model: costliest first. */
  rows: UsageRow[];
  totals: UsageFigures & { models: string[] };
  /** Every day of the window (from the first day with usage when `since` is unbounded), oldest first: a sparkline's series. */
  daily: UsageDay[];
  /**
   * `building` until the book has counted what the index held when memd started (a backfill, a
   * database from an older memd): the figures are partial until `ready`.
   */
  index: { state: 'ready' | 'building'; filesDone: number; filesTotal: number };
  /** Which figures Claude Code reported and which memd computed. */
  provenance: {
    tokens: Provenance;
    costUsd: Provenance;
    burnRate: Provenance;
    projection: Provenance;
  };
}

/** The same for every report: tokens are the transcripts', the rest is memd's arithmetic. */
export const USAGE_PROVENANCE: UsageReportResult['provenance'] = {
  tokens: 'official',
  costUsd: 'estimated',
  burnRate: 'estimated',
  projection: 'estimated',
};

const usageFiguresFields = {
  ...tokenCountsFields,
  totalTokens: num(),
  costUsd: num(),
  responses: num(),
  unpricedResponses: num(),
};

export const usageReportResultSchema: Schema<UsageReportResult> = looseObject({
  by: oneOf(...USAGE_GROUPINGS),
  timezone: str(),
  since: nullable(str()),
  until: nullable(str()),
  rows: arrayOf(
    looseObject({
      ...usageFiguresFields,
      key: str(),
      name: optional(str()),
      local: optional(bool()),
      models: arrayOf(str()),
      block: optional(
        looseObject({
          start: str(),
          end: str(),
          lastResponse: nullable(str()),
          gap: bool(),
          active: bool(),
          burnRate: nullable(
            looseObject({ tokensPerMinute: num(), tokensPerMinuteForIndicator: num(), costPerHour: num() }),
          ),
          projection: nullable(looseObject({ totalTokens: num(), totalCost: num(), remainingMinutes: num() })),
        }),
      ),
    }),
  ),
  totals: looseObject({ ...usageFiguresFields, models: arrayOf(str()) }),
  daily: arrayOf(looseObject({ day: str(), costUsd: num(), totalTokens: num() })),
  index: looseObject({ state: oneOf('ready', 'building'), filesDone: num(), filesTotal: num() }),
  provenance: looseObject({
    tokens: oneOf('official', 'estimated'),
    costUsd: oneOf('official', 'estimated'),
    burnRate: oneOf('official', 'estimated'),
    projection: oneOf('official', 'estimated'),
  }),
});
