/**
 * The plan limits and the prompt cache from the status line's stdin, read field by field: Claude
 * Code sends `rate_limits` (since 2.1.80, Claude.ai subscriptions only, after the session's first
 * response) and `prompt_cache` (since 2.1.251; `last_miss_cause` since 2.1.260). A field that is
 * absent or of the wrong type is left out and the others kept; a window without a usable
 * `used_percentage` is no window. Times come as epoch seconds (2.1.197's `resets_at`, the header
 * value) or ISO strings (seen in reports of other versions): both become epoch ms.
 */
import type {
  EffortReport,
  PlanWindow,
  PromptCacheReport,
  RateLimitsReport,
} from '../../../shared/protocol/reports.js';
import { number, object, text } from './stdin.js';

/** Below this an epoch number is in seconds (as seconds it is the year 5138; as ms, 1973). */
const EPOCH_SECONDS_BELOW = 100_000_000_000;
/** sessions.report takes cause names up to this long and this many. */
const MAX_CAUSE_CHARS = 100;
const MAX_CAUSES = 32;

export interface StdinReports {
  rateLimits?: RateLimitsReport;
  promptCache?: PromptCacheReport;
}

/** Epoch ms of an epoch-seconds number, an epoch-ms number or an ISO string; null otherwise. */
export function epochMsOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
    return Math.round(value < EPOCH_SECONDS_BELOW ? value * 1000 : value);
  if (typeof value === 'string' && value !== '') {
    const parsed = Date.parse(value);
    return Number.isFinite(parsed) && parsed >= 0 ? parsed : null;
  }
  return null;
}

function planWindow(record: Record<string, unknown> | null): PlanWindow | undefined {
  const used = number(record, 'used_percentage');
  if (used === null || used < 0) return undefined;
  return { usedPercent: used, resetsAt: epochMsOf(record?.resets_at) };
}

export function rateLimitsOf(input: Record<string, unknown> | null): RateLimitsReport | undefined {
  const limits = object(input, 'rate_limits');
  const fiveHour = planWindow(object(limits, 'five_hour'));
  const sevenDay = planWindow(object(limits, 'seven_day'));
  if (fiveHour === undefined && sevenDay === undefined) return undefined;
  return { ...(fiveHour === undefined ? {} : { fiveHour }), ...(sevenDay === undefined ? {} : { sevenDay }) };
}

function count(record: Record<string, unknown> | null, key: string): number | undefined {
  const value = number(record, key);
  return value !== null && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export function promptCacheOf(input: Record<string, unknown> | null): PromptCacheReport | undefined {
  const cache = object(input, 'prompt_cache');
  if (cache === null) return undefined;
  const ttl = text(cache, 'ttl');
  const expiresAt = epochMsOf(cache.expires_at);
  const hitRatio = number(cache, 'hit_ratio');
  const misses = count(cache, 'misses');
  const expectedRebuilds = count(cache, 'expected_rebuilds');
  const lastMissAt = epochMsOf(cache.last_miss_at);
  const rawCauses = object(cache, 'last_miss_cause')?.causes;
  const causes = Array.isArray(rawCauses)
    ? rawCauses
        .filter(
          (cause): cause is string => typeof cause === 'string' && cause !== '' && cause.length <= MAX_CAUSE_CHARS,
        )
        .slice(0, MAX_CAUSES)
    : [];
  const report: PromptCacheReport = {
    ...(ttl !== null && ttl.length <= 20 ? { ttl } : {}),
    ...(expiresAt === null ? {} : { expiresAt }),
    ...(hitRatio !== null && hitRatio >= 0 && hitRatio <= 1 ? { hitRatio } : {}),
    ...(typeof cache.warm === 'boolean' ? { warm: cache.warm } : {}),
    ...(misses === undefined ? {} : { misses }),
    ...(expectedRebuilds === undefined ? {} : { expectedRebuilds }),
    ...(lastMissAt === null ? {} : { lastMissAt }),
    ...(causes.length > 0 ? { lastMissCauses: causes } : {}),
  };
  return Object.keys(report).length > 0 ? report : undefined;
}

/** sessions.report takes effort levels up to this long; Claude Code's longest is `medium`. */
const MAX_EFFORT_CHARS = 20;

/**
 * The reasoning effort: 2.1.197 sends `effort: {level}` (only for models that take one); a bare
 * string is taken too, as newer transcripts write it on assistant entries. A level is a word.
 */
export function effortOf(input: Record<string, unknown> | null): EffortReport | undefined {
  const level = typeof input?.effort === 'string' ? input.effort : text(object(input, 'effort'), 'level');
  return level !== null && level.length <= MAX_EFFORT_CHARS && /^[a-z][a-z0-9_-]*$/i.test(level)
    ? { level }
    : undefined;
}

/** Both, each only when stdin held something of it. */
export function reportsOf(input: Record<string, unknown> | null): StdinReports {
  const rateLimits = rateLimitsOf(input);
  const promptCache = promptCacheOf(input);
  return {
    ...(rateLimits === undefined ? {} : { rateLimits }),
    ...(promptCache === undefined ? {} : { promptCache }),
  };
}
