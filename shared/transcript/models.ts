/**
 * What memd knows about each Claude model: its context window, its default output limit and its
 * price. Model ids are matched by family and version (opus / sonnet / haiku, major.minor), so a
 * dated id (`claude-haiku-4-5-20251001`), a provider-prefixed id (`us.anthropic.claude-...`,
 * `claude-opus-4-1@20250805`) and a later minor version of a known major (`claude-opus-4-8`) all
 * resolve. Anything else is unknown: default window and output limit, and no price (null, not 0).
 */
import type { Usage } from './types.js';

/** The window Claude Code assumes for every model unless 1M context is asked for. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** The window of a model run with 1M context. */
export const EXTENDED_CONTEXT_WINDOW = 1_000_000;
/** message.model of entries Claude Code wrote itself (no API call, zero usage). */
export const SYNTHETIC_MODEL = '<synthetic>';
/** Claude Code's output limit for models it has no row for (its own fallback). */
const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;

export type ModelFamily = 'opus' | 'sonnet' | 'haiku';

export interface ModelVersion {
  family: ModelFamily;
  major: number;
  minor: number;
}

/**
 * Claude Code marks a model run with the 1M window by a `[1m]` suffix on the model name it is
 * configured with (`claude-sonnet-4-5[1m]`, `opus[1m]`), and sends the context-1m beta for it.
 * Without it the window is 200K, except for models Claude Code runs at 1M by default
 * (DEFAULT_WINDOWS). The API's response (and so message.model in transcripts) carries the bare id;
 * accounting.ts infers 1M from usage that does not fit 200K.
 */
const ONE_MILLION_SUFFIX = /\[1m\]\s*$/i;

export function hasOneMillionSuffix(model: string): boolean {
  return ONE_MILLION_SUFFIX.test(model);
}

/** Current ids: claude-<family>-<major>[-<minor>][-<date>]; a date is 8 digits, never a minor. */
const CURRENT_ID = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?!\d)/;
/** Claude 3.x ids: claude-<major>[-<minor>]-<family>[-<date>]. */
const LEGACY_ID = /^claude-(\d+)(?:-(\d))?-(opus|sonnet|haiku)(?![a-z])/;

/** Family and version of a model id, or null when it is not a Claude id memd recognises. */
export function parseModelVersion(model: string): ModelVersion | null {
  const lower = model.toLowerCase();
  const start = lower.indexOf('claude-');
  if (start < 0) return null;
  const id = lower.slice(start);
  const current = CURRENT_ID.exec(id);
  if (current) {
    return { family: current[1] as ModelFamily, major: Number(current[2]), minor: Number(current[3] ?? 0) };
  }
  const legacy = LEGACY_ID.exec(id);
  if (legacy) {
    return { family: legacy[3] as ModelFamily, major: Number(legacy[1]), minor: Number(legacy[2] ?? 0) };
  }
  return null;
}

interface WindowRow {
  family: ModelFamily;
  major: number;
  fromMinor: number;
  tokens: number;
}

/**
 * Models Claude Code runs at a window other than 200K by default, without `[1m]` (first matching
 * row wins). Claude Code 2.1.197 starts Opus 4.8 with the 1M window: it sends the context-1m beta,
 * its `/context` says `…/1m`, and the transcript records the bare `claude-opus-4-8` (DESIGN.md §5;
 * issue 28). What Claude Code states for a session (status line `context_window_size`, hooks'
 * model) wins over this table, so a user who picks the 200K variant is shown 200K. The rows are
 * 2.1.197's model table's `native_1m` models (`context: {window: 1e6, native_1m: true}`, run at 1M
 * on the first-party API without `[1m]`): claude-opus-4-7, claude-opus-4-8 and claude-sonnet-5;
 * claude-opus-4-6 and the Sonnet 4.x models are `window: 200000` there (1M only with `[1m]`), and
 * Haiku has no 1M at all. Its other native-1M ids (fable, mythos) are no family memd parses.
 */
const DEFAULT_WINDOWS: readonly WindowRow[] = [
  // 2.1.197's model catalog marks these `native_1m` (its /context shows Opus 4.8 at `…/1m`).
  { family: 'opus', major: 4, fromMinor: 7, tokens: EXTENDED_CONTEXT_WINDOW },
  { family: 'sonnet', major: 5, fromMinor: 0, tokens: EXTENDED_CONTEXT_WINDOW },
];

/**
 * The auto-compact windows Claude Code 2.1.197 configures per model ("model-default"), below the
 * context window: Sonnet 4.6 and Opus 4.6 compact at 200K when they run without 1M, Sonnet 5 at
 * 967K. A model with such a window compacts ahead of its limit; every other one (its window
 * source is "auto") does not (thresholds.ts).
 */
const AUTO_COMPACT_WINDOWS: readonly {
  family: ModelFamily;
  major: number;
  minor: number;
  tokens: number;
  onlyBelowOneMillion: boolean;
}[] = [
  { family: 'sonnet', major: 4, minor: 6, tokens: DEFAULT_CONTEXT_WINDOW, onlyBelowOneMillion: true },
  { family: 'opus', major: 4, minor: 6, tokens: DEFAULT_CONTEXT_WINDOW, onlyBelowOneMillion: true },
  { family: 'sonnet', major: 5, minor: 0, tokens: 967_000, onlyBelowOneMillion: false },
];

/** The auto-compact window Claude Code configures for `model` at `window`, or null when it configures none. */
export function modelAutoCompactWindow(model: string | null, window: number): number | null {
  const version = model === null ? null : parseModelVersion(model);
  if (version === null) return null;
  const row = AUTO_COMPACT_WINDOWS.find(
    (candidate) =>
      candidate.family === version.family && candidate.major === version.major && candidate.minor === version.minor,
  );
  if (row === undefined || (row.onlyBelowOneMillion && window >= EXTENDED_CONTEXT_WINDOW)) return null;
  return row.tokens;
}

/** A model's context window: 1M with the `[1m]` suffix, else Claude Code's default for it (DEFAULT_WINDOWS), else 200K. */
export function contextWindowFor(model: string | null): number {
  if (model === null) return DEFAULT_CONTEXT_WINDOW;
  if (hasOneMillionSuffix(model)) return EXTENDED_CONTEXT_WINDOW;
  return findRow(DEFAULT_WINDOWS, parseModelVersion(model))?.tokens ?? DEFAULT_CONTEXT_WINDOW;
}

interface OutputRow {
  family: ModelFamily;
  major: number;
  /** The row applies from this minor version up, within its major. */
  fromMinor: number;
  tokens: number;
}

/**
 * Claude Code's default max output tokens (utils/context.ts getModelMaxOutputTokens, 2.1.x),
 * first matching row wins. Only values under 20,000 move the effective window (Claude 3.0 / 3.5);
 * every 4.x model reserves the full 20,000.
 */
const MAX_OUTPUT: readonly OutputRow[] = [
  { family: 'opus', major: 4, fromMinor: 6, tokens: 64_000 },
  { family: 'opus', major: 4, fromMinor: 0, tokens: 32_000 },
  { family: 'sonnet', major: 4, fromMinor: 0, tokens: 32_000 },
  { family: 'haiku', major: 4, fromMinor: 0, tokens: 32_000 },
  { family: 'sonnet', major: 3, fromMinor: 7, tokens: 32_000 },
  { family: 'sonnet', major: 3, fromMinor: 5, tokens: 8_192 },
  { family: 'haiku', major: 3, fromMinor: 5, tokens: 8_192 },
  { family: 'opus', major: 3, fromMinor: 0, tokens: 4_096 },
  { family: 'sonnet', major: 3, fromMinor: 0, tokens: 4_096 },
  { family: 'haiku', major: 3, fromMinor: 0, tokens: 4_096 },
];

function findRow<T extends { family: ModelFamily; major: number; fromMinor: number }>(
  rows: readonly T[],
  version: ModelVersion | null,
): T | null {
  if (version === null) return null;
  return (
    rows.find(
      (row) => row.family === version.family && row.major === version.major && version.minor >= row.fromMinor,
    ) ?? null
  );
}

export function maxOutputTokensFor(model: string | null): number {
  return findRow(MAX_OUTPUT, model === null ? null : parseModelVersion(model))?.tokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

/** Anthropic's standard cache multipliers of the input price. */
const CACHE_WRITE_5M_FACTOR = 1.25;
const CACHE_WRITE_1H_FACTOR = 2;
/** Reads cost a tenth of input; dividing keeps prices like 0.3 exact in floating point. */
const CACHE_READ_DIVISOR = 10;

function standard(input: number, output: number): ModelPrice {
  return {
    input,
    output,
    cacheWrite5m: input * CACHE_WRITE_5M_FACTOR,
    cacheWrite1h: input * CACHE_WRITE_1H_FACTOR,
    cacheRead: input / CACHE_READ_DIVISOR,
  };
}

interface PriceRow {
  family: ModelFamily;
  major: number;
  fromMinor: number;
  price: ModelPrice;
}

/**
 * Standard (non-batch) API prices, USD per million tokens, from Anthropic's pricing page
 * (platform.claude.com/docs/en/about-claude/pricing) as of early 2026. First matching row wins;
 * a later minor of a priced major takes its major's newest row (Opus 4.8 → the Opus 4.5 price).
 * A new major version has no row until someone adds it: unknown, so its cost is null. Not
 * modelled: the long-context premium for prompts over 200K tokens on 1M windows, batch and
 * priority tiers, fast mode, and server tools (web search).
 */
const PRICES: readonly PriceRow[] = [
  { family: 'opus', major: 4, fromMinor: 5, price: standard(5, 25) },
  { family: 'opus', major: 4, fromMinor: 0, price: standard(15, 75) },
  { family: 'opus', major: 3, fromMinor: 0, price: standard(15, 75) },
  { family: 'sonnet', major: 4, fromMinor: 0, price: standard(3, 15) },
  { family: 'sonnet', major: 3, fromMinor: 0, price: standard(3, 15) },
  { family: 'haiku', major: 4, fromMinor: 0, price: standard(1, 5) },
  { family: 'haiku', major: 3, fromMinor: 5, price: standard(0.8, 4) },
  // Haiku 3's published cache prices are not the standard multiples of its input price.
  {
    family: 'haiku',
    major: 3,
    fromMinor: 0,
    price: { input: 0.25, output: 1.25, cacheWrite5m: 0.3, cacheWrite1h: 0.5, cacheRead: 0.03 },
  },
];

/** The price of a model, or null when it is unknown (its cost is then unknown too, not 0). */
export function priceFor(model: string | null): ModelPrice | null {
  return findRow(PRICES, model === null ? null : parseModelVersion(model))?.price ?? null;
}

const TOKENS_PER_PRICE_UNIT = 1_000_000; // prices are per million tokens

/**
 * USD for some usage at a price. Cache writes without a TTL split (older transcripts) are
 * charged at the 5-minute rate, the API's default TTL.
 */
export function costOf(usage: Usage, price: ModelPrice): number {
  const unsplitWrites = Math.max(0, usage.cacheCreation - usage.cache5m - usage.cache1h);
  const dollarsTimesMillion =
    usage.input * price.input +
    usage.output * price.output +
    (usage.cache5m + unsplitWrites) * price.cacheWrite5m +
    usage.cache1h * price.cacheWrite1h +
    usage.cacheRead * price.cacheRead;
  return dollarsTimesMillion / TOKENS_PER_PRICE_UNIT;
}
