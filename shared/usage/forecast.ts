/**
 * `usage.status`'s forecasts (issue 31), each a figure with its basis, from plain inputs: the
 * daemon (daemon/usage/status.ts) gathers them from the index, the usage book and what Claude
 * Code's status line reported. Every forecast is memd's estimate; the figures it starts from say
 * whose they are (shared/protocol/forecast.ts). Pure.
 */
import type { AutoCompactForecast, CacheRebuildForecast, LimitForecast } from '../protocol/forecast.js';
import type { PlanWindow, PromptCacheReport } from '../protocol/reports.js';
import type { ThresholdResult } from '../protocol/sessions.js';
import type { ModelPrice } from '../transcript/models.js';
import type { LastResponse, TurnSample } from './turns.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Claude Code's plan window: the reset is 5 hours after the window opened. */
export const FIVE_HOUR_WINDOW_MS = 5 * HOUR_MS;
const TOKENS_PER_PRICE_UNIT = 1_000_000; // prices are per million tokens
/**
 * From this many growth samples on, the largest and the smallest are dropped before the mean: one
 * turn that read a large file (or one microcompact that cleared tool results) would otherwise set
 * the pace of the next ten; below it, every sample is needed.
 */
export const TRIM_FROM_SAMPLES = 5;

const round1 = (value: number) => Math.round(value * 10) / 10;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const tokens = (count: number) =>
  count >= 10_000 ? `${Math.round(count / 1000)}k` : count.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** The mean without its extremes from TRIM_FROM_SAMPLES samples on; null without samples. */
export function trimmedMean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const kept = sorted.length >= TRIM_FROM_SAMPLES ? sorted.slice(1, -1) : sorted;
  return kept.reduce((sum, value) => sum + value, 0) / kept.length;
}

/** The median; null without samples. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface AutoCompactInput {
  /** sessions.get's `contextTokens`. */
  contextTokens: number;
  threshold: Pick<
    ThresholdResult,
    'autoCompactAt' | 'blockingAt' | 'tokensLeft' | 'autoCompactEnabled' | 'autoCompactMode'
  >;
  /** The recent turns since the last compaction, oldest first (turns.ts). */
  turns: readonly TurnSample[];
}

/**
 * Growth per turn: the trimmed mean of the context's change from one complete turn to the next
 * (the mean, not the median, since the growth of the turns to come adds up: the median of a few
 * large reads among many small turns is the small turn, and the forecast would come late).
 * Minutes per turn: the median of prompt-to-prompt times, since one long pause (lunch) is not the
 * pace and a median ignores it.
 */
export function forecastAutoCompact(input: AutoCompactInput): AutoCompactForecast {
  const { contextTokens, threshold } = input;
  const complete = input.turns.filter((turn) => turn.complete);
  const growths: number[] = [];
  const gaps: number[] = [];
  for (let i = 1; i < complete.length; i++) {
    const before = complete[i - 1] as TurnSample;
    const after = complete[i] as TurnSample;
    growths.push(after.contextAfter - before.contextAfter);
  }
  for (let i = 1; i < input.turns.length; i++) {
    const before = (input.turns[i - 1] as TurnSample).promptAt;
    const after = (input.turns[i] as TurnSample).promptAt;
    if (before !== null && after !== null && after >= before) gaps.push((after - before) / MINUTE_MS);
  }
  const growthPerTurn = trimmedMean(growths);
  const minutesPerTurn = median(gaps);
  const tokensLeft = threshold.tokensLeft;
  const growing = growthPerTurn !== null && growthPerTurn > 0;
  const turnsToGo = growing ? Math.max(0, Math.ceil(tokensLeft / growthPerTurn) - 1) : null;
  const minutes = growing && minutesPerTurn !== null ? round1((tokensLeft / growthPerTurn) * minutesPerTurn) : null;
  const reactive = threshold.autoCompactEnabled && threshold.autoCompactMode === 'reactive';
  const target = !threshold.autoCompactEnabled
    ? `blocking at ${tokens(threshold.blockingAt)} tokens (auto-compact is off)`
    : reactive
      ? `the context window, ${tokens(threshold.autoCompactAt)} tokens, where Claude Code compacts when the API refuses (reactive mode)`
      : `auto-compact at ${tokens(threshold.autoCompactAt)} tokens`;
  const sample =
    growths.length === 0
      ? `fewer than two complete turns since the last compaction, so no pace yet`
      : `the trimmed mean growth of ${plural(growths.length, 'turn')} since the last compaction ` +
        `(${Math.round(growthPerTurn as number)} tokens a turn)` +
        (minutesPerTurn === null ? '' : ` and their median ${round1(minutesPerTurn)} minutes a turn`);
  const outcome =
    turnsToGo === null
      ? growthPerTurn === null
        ? ''
        : '; the context is not growing, so no forecast'
      : `; ${plural(turnsToGo, 'whole turn')} fit before it`;
  return {
    contextTokens,
    autoCompactAt: threshold.autoCompactAt,
    tokensLeft,
    turns: turnsToGo,
    minutes,
    growthPerTurn: growthPerTurn === null ? null : Math.round(growthPerTurn),
    minutesPerTurn: minutesPerTurn === null ? null : round1(minutesPerTurn),
    sampleTurns: input.turns.length,
    autoCompactEnabled: threshold.autoCompactEnabled,
    provenance: 'estimated',
    basis: `${tokens(tokensLeft)} tokens left until ${target}, at ${sample}${outcome}.`,
  };
}

export interface LimitInput {
  now: number;
  /** The latest `rate_limits.five_hour` reported (the session's own, else the account's); null without one. */
  window: PlanWindow | null;
  /** Whose report it is: this session's status line, or another session's (the window is the account's). */
  reportedBy: 'session' | 'account' | null;
  /** USD every session of the account spent since the window opened (resetsAt − 5 h); null when unknown. */
  accountSpendUsd: number | null;
  /** USD an hour this session spent over its recent activity; null when unknown. */
  sessionUsdPerHour: number | null;
  /** Minutes of this session's activity the rate was read over. */
  sessionSpanMinutes: number;
}

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * When the 5-hour window reaches 100% at this session's pace: Claude Code's used percentage and
 * reset (official), the percent one USD of the account's spend in the window bought (used % ÷ the
 * window's spend, from memd's usage book: estimated), times this session's recent USD an hour.
 */
export function forecastLimit(input: LimitInput): LimitForecast {
  const { now, window } = input;
  const none = { percentPerHour: null, reachedAt: null, resetFirst: false, provenance: 'estimated' as const };
  if (window === null)
    return {
      usedPercent: null,
      resetsAt: null,
      ...none,
      basis:
        'Claude Code reports the 5-hour window only on Claude.ai plans (the status line’s rate_limits, since 2.1.80), ' +
        'and no status line of this account reported it since memd started.',
    };
  const { usedPercent, resetsAt } = window;
  const whose = input.reportedBy === 'session' ? 'this session’s status line' : 'another session’s status line';
  const reported = `${round1(usedPercent)}% used (official, from ${whose})`;
  const known = { usedPercent, resetsAt };
  if (resetsAt === null)
    return {
      ...known,
      ...none,
      basis: `${reported}; Claude Code gave no reset time, so the window’s spend is unknown.`,
    };
  if (resetsAt <= now)
    return {
      ...known,
      ...none,
      basis: `${reported}, but that window reset at ${clockTime(resetsAt)} UTC; Claude Code reports the new one after its next response.`,
    };
  const resetText = `resets ${clockTime(resetsAt)} UTC`;
  if (usedPercent >= 100)
    return { ...known, ...none, reachedAt: now, basis: `${reported}: the limit is reached; the window ${resetText}.` };
  const spend = input.accountSpendUsd;
  const rate = input.sessionUsdPerHour;
  if (spend === null || spend <= 0 || rate === null)
    return {
      ...known,
      ...none,
      basis:
        `${reported}, ${resetText}; ` +
        (spend === null || spend <= 0
          ? 'memd’s index holds no priced spend in this window, so it cannot tell what a percent costs.'
          : 'this session has no recent priced responses, so it has no pace.'),
    };
  const percentPerUsd = usedPercent / spend;
  const percentPerHour = percentPerUsd * rate;
  const pace =
    `at this session’s ${formatUsd(rate)}/h over its last ${Math.round(input.sessionSpanMinutes)} minutes of activity ` +
    `and ${round1(percentPerUsd)}% per USD (${round1(usedPercent)}% for the account’s ${formatUsd(spend)} since the window opened: estimated)`;
  if (percentPerHour <= 0)
    return { ...known, ...none, percentPerHour: 0, resetFirst: true, basis: `${reported}, ${resetText}; ${pace}.` };
  const reachedAt = now + ((100 - usedPercent) / percentPerHour) * HOUR_MS;
  const resetFirst = reachedAt >= resetsAt;
  return {
    ...known,
    percentPerHour: round1(percentPerHour),
    reachedAt: resetFirst ? null : Math.round(reachedAt),
    resetFirst,
    provenance: 'estimated',
    basis:
      `${reported}, ${resetText}; ${pace}, ${round1(percentPerHour)}%/h ` +
      (resetFirst ? 'reaches 100% after the reset.' : `reaches 100% at ${clockTime(reachedAt)} UTC.`),
  };
}

function formatUsd(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

export interface CacheInput {
  now: number;
  model: string | null;
  price: ModelPrice | null;
  /** The context a rebuild writes: sessions.get's `contextTokens`. */
  contextTokens: number;
  /** This session's latest `prompt_cache` report; null without one. */
  reported: PromptCacheReport | null;
  lastResponse: LastResponse | null;
}

const TTL = /^(\d{1,4})([mh])$/;

/** A TTL as Claude Code writes it (`5m`, `1h`) in ms; null for any other text. */
export function ttlMs(ttl: string): number | null {
  const match = TTL.exec(ttl);
  if (match === null) return null;
  return Number(match[1]) * (match[2] === 'h' ? HOUR_MS : MINUTE_MS);
}

/**
 * What idling past the cache's expiry costs: the next request writes the whole context to the
 * cache again instead of reading it, so the rebuild costs the context's tokens at the cache-write
 * price of the TTL minus the cache-read price.
 */
export function forecastCacheRebuild(input: CacheInput): CacheRebuildForecast {
  const { reported, lastResponse, price, contextTokens } = input;
  const reportedTtl = reported?.ttl;
  const ttl = reportedTtl ?? (lastResponse !== null && lastResponse.usage.cache1h > 0 ? '1h' : '5m');
  const ttlSource =
    reportedTtl !== undefined
      ? 'the TTL Claude Code reported'
      : lastResponse === null
        ? 'the API’s default TTL (no response read)'
        : `the TTL of the last response’s cache writes (estimated)`;
  const span = ttlMs(ttl);
  const lastAt = lastResponse?.at ?? null;
  const expiresAt = reported?.expiresAt ?? (lastAt !== null && span !== null ? lastAt + span : null);
  const expiresAtProvenance = reported?.expiresAt !== undefined ? 'official' : 'estimated';
  const writePrice = price === null ? null : ttl === '1h' ? price.cacheWrite1h : price.cacheWrite5m;
  const costUsd =
    price === null || writePrice === null
      ? null
      : Math.round(((contextTokens * (writePrice - price.cacheRead)) / TOKENS_PER_PRICE_UNIT) * 10_000) / 10_000;
  const expiry =
    expiresAt === null
      ? 'its expiry is unknown'
      : `it expires at ${clockTime(expiresAt)} UTC (${expiresAtProvenance === 'official' ? 'official' : 'the last response + the TTL: estimated'})`;
  const cost =
    costUsd === null
      ? `${input.model ?? 'the session’s model'} has no price, so the rebuild's cost is unknown`
      : `idling past it rewrites ${tokens(contextTokens)} tokens at the ${ttl === '1h' ? '1-hour' : '5-minute'} cache-write price ` +
        `minus the read price: ${formatUsd(costUsd)} (estimated)`;
  return {
    ttl,
    expiresAt,
    expiresAtProvenance,
    tokens: contextTokens,
    costUsd,
    provenance: 'estimated',
    basis: `TTL ${ttl} from ${ttlSource}; ${expiry}; ${cost}.`,
  };
}
