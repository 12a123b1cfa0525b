/**
 * `usage.report` (issue 18): tokens and cost by local day, project or model, from memd's index,
 * counted as ccusage 20 counts them (one API response once across every file, with its largest
 * usage; docs/protocol.md has the rules).
 */
import { arrayOf, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';
import { type TokenCounts, tokenCountsFields } from './tokens.js';

/** What rows are grouped by: the local calendar day (ccusage's daily view), the project folder, the model. */
export const USAGE_GROUPINGS = ['day', 'project', 'model'] as const;
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

export interface UsageRow extends UsageFigures {
  /** The day (`2026-03-02`, local to `timezone`), the project folder (`-home-user-src-app`) or the model id. */
  key: string;
  /** By project: the project as tables show it (`shop`, `acme/api`), which `project` accepts (issue 28). */
  name?: string;
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
  /** By day: oldest first, days with usage only. By project or model: costliest first. */
  rows: UsageRow[];
  totals: UsageFigures & { models: string[] };
  /** Every day of the window (from the first day with usage when `since` is unbounded), oldest first: a sparkline's series. */
  daily: UsageDay[];
  /**
   * `building` until the book has counted what the index held when memd started (a backfill, a
   * database from an older memd): the figures are partial until `ready`.
   */
  index: { state: 'ready' | 'building'; filesDone: number; filesTotal: number };
}

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
  rows: arrayOf(looseObject({ ...usageFiguresFields, key: str(), name: optional(str()), models: arrayOf(str()) })),
  totals: looseObject({ ...usageFiguresFields, models: arrayOf(str()) }),
  daily: arrayOf(looseObject({ day: str(), costUsd: num(), totalTokens: num() })),
  index: looseObject({ state: oneOf('ready', 'building'), filesDone: num(), filesTotal: num() }),
});
