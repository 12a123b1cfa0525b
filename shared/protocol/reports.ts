/**
 * What Claude Code reports of the plan limits and the prompt cache on its status line's stdin
 * (`rate_limits` since 2.1.80, `prompt_cache` since 2.1.251), as memctl statusline passes it to
 * memd (`sessions.report`) and memd gives it back (`sessions.get`'s `reported`). Times are epoch
 * ms; the stdin's own names and units are read by client/memctl/quick/reports.ts.
 *
 * Provenance: every figure here is `official` (Claude Code reported it, memd only keeps it); a
 * figure memd computes from its own index is `estimated` and says so where it is shown.
 */
import { arrayOf, bool, int, looseObject, nullable, num, object, oneOf, optional, type Schema, str } from './schema.js';

export const PROVENANCES = ['official', 'estimated'] as const;
export type Provenance = (typeof PROVENANCES)[number];

/** One plan window (`rate_limits.five_hour`, `.seven_day`): how much of it is used and when it starts again. */
export interface PlanWindow {
  /** 0-100 (Claude Code's `used_percentage`, a float). */
  usedPercent: number;
  /** Epoch ms of the window's reset; null when Claude Code gave none. */
  resetsAt: number | null;
}

export interface RateLimitsReport {
  fiveHour?: PlanWindow;
  sevenDay?: PlanWindow;
}

/** `prompt_cache`: each field only when Claude Code sent it with the right type. */
export interface PromptCacheReport {
  /** `5m` or `1h` as Claude Code says it. */
  ttl?: string;
  expiresAt?: number;
  /** 0-1, the session's share of input read from the cache. */
  hitRatio?: number;
  warm?: boolean;
  misses?: number;
  expectedRebuilds?: number;
  lastMissAt?: number;
  /** `last_miss_cause.causes` (2.1.260): `tools_changed`, `ttl_expired_5m`, … */
  lastMissCauses?: string[];
}

/**
 * The reasoning effort Claude Code runs the session's model at (its status line's `effort.level`,
 * 2.1.197, for models that take one): `low`, `medium`, `high`, `xhigh`, `max`, or a newer word.
 */
export interface EffortReport {
  level: string;
}

/** A report as memd keeps it: who reported it, when it reached memd, and its provenance. */
export interface Reported<T> {
  value: T;
  provenance: Provenance;
  /** The session whose status line reported it (for the account's limits, the latest one). */
  sessionId: string;
  /** ISO time memd received it. */
  reportedAt: string;
}

/**
 * `sessions.get`'s `reported`: the session's latest reports, and the account's plan limits (the
 * windows are the account's, not the session's: the latest any session reported).
 */
export interface ReportedState {
  rateLimits: Reported<RateLimitsReport> | null;
  accountRateLimits: Reported<RateLimitsReport> | null;
  promptCache: Reported<PromptCacheReport> | null;
  /** The session's reasoning effort; absent from a memd that predates it. */
  effort?: Reported<EffortReport> | null;
}

export interface SessionsReportResult {
  stored: boolean;
}

/** Far above any cause list Claude Code sends (8 causes in 2.1.260). */
const MAX_CAUSES = 32;
const epochMs = int({ min: 0 });

const planWindowFields = { usedPercent: num(), resetsAt: nullable(epochMs) };
const rateLimitsFields = {
  fiveHour: optional(looseObject(planWindowFields)),
  sevenDay: optional(looseObject(planWindowFields)),
};
const promptCacheFields = {
  ttl: optional(str({ minLength: 1, maxLength: 20 })),
  expiresAt: optional(epochMs),
  hitRatio: optional(num()),
  warm: optional(bool()),
  misses: optional(int({ min: 0 })),
  expectedRebuilds: optional(int({ min: 0 })),
  lastMissAt: optional(epochMs),
  lastMissCauses: optional(arrayOf(str({ minLength: 1, maxLength: 100 }), { maxItems: MAX_CAUSES })),
};

/** The params of `sessions.report` (exact: a typo surfaces). */
export const rateLimitsParamsSchema: Schema<RateLimitsReport> = object({
  fiveHour: optional(object(planWindowFields)),
  sevenDay: optional(object(planWindowFields)),
});
export const promptCacheParamsSchema: Schema<PromptCacheReport> = object(promptCacheFields);

/** Far above Claude Code's longest level (`medium`); a longer one is no level. */
const MAX_EFFORT_CHARS = 20;
const effortFields = { level: str({ minLength: 1, maxLength: MAX_EFFORT_CHARS }) };
export const effortParamsSchema: Schema<EffortReport> = object(effortFields);

const reportedSchema = <T>(value: Schema<T>): Schema<Reported<T>> =>
  looseObject({ value, provenance: oneOf(...PROVENANCES), sessionId: str(), reportedAt: str() });

export const reportedStateSchema: Schema<ReportedState> = looseObject({
  rateLimits: nullable(reportedSchema(looseObject(rateLimitsFields))),
  accountRateLimits: nullable(reportedSchema(looseObject(rateLimitsFields))),
  promptCache: nullable(reportedSchema(looseObject(promptCacheFields))),
  effort: optional(nullable(reportedSchema(looseObject(effortFields)))),
});
