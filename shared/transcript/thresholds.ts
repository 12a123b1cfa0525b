/**
 * Where a context of `tokens` stands against Claude Code's compaction thresholds (DESIGN.md §5,
 * read off Claude Code 2.1.x services/compact/autoCompact.ts). The environment is passed in so
 * that the daemon can use a session's own settings and tests can use any; nothing here reads
 * process.env.
 *
 *   window          = CLAUDE_CODE_AUTO_COMPACT_WINDOW clamped to 100K..1M, else the window
 *                     Claude Code stated for the session (`window`), else the model's
 *                     (models.ts: 200K; 1M with `[1m]` or by Claude Code's default, Opus 4.8)
 *   effectiveWindow = window − reserve, reserve = min(model max output, 20,000) unless
 *                     reserveOutputTokens is given
 *   autoCompactAt   = effectiveWindow − 13,000, or with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE = p
 *                     (0 < p ≤ 100): min(floor(effectiveWindow × p / 100), effectiveWindow − 13,000)
 *   warningAt       = base − 20,000 and errorAt = base − 20,000, where base is autoCompactAt, or
 *                     effectiveWindow when auto-compaction is off. Claude Code's two buffers are
 *                     both 20,000, so the two thresholds coincide and the state goes from `ok`
 *                     straight to `error`; `warning` only shows if the buffers ever differ.
 *   blockingAt      = effectiveWindow − 3,000, or CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE (a
 *                     positive integer, taken as is)
 *
 * Auto-compaction is off with DISABLE_COMPACT or DISABLE_AUTO_COMPACT set truthy (1, true, yes,
 * on). A 200K window with reserveOutputTokens 0 compacts at 187,000, the seed document's figure;
 * with Claude Code's reserve (20,000 for every 4.x model) it compacts at 167,000.
 */
import type { ThresholdResult, ThresholdState } from '../protocol/results.js';
import { contextWindowFor, maxOutputTokensFor } from './models.js';

export type ThresholdEnv = Readonly<Record<string, string | undefined>>;

/** Output kept free for the compaction summary (p99.99 of summaries is about 17K tokens). */
export const MAX_OUTPUT_TOKENS_FOR_SUMMARY = 20_000;
/** Auto-compaction starts this far below the effective window, leaving room for the summary call. */
export const AUTOCOMPACT_BUFFER_TOKENS = 13_000;
/** The context meter turns to warning this far below the auto-compact threshold. */
export const WARNING_THRESHOLD_BUFFER_TOKENS = 20_000;
/** ...and to error this far below it (the same distance in Claude Code 2.1.x). */
export const ERROR_THRESHOLD_BUFFER_TOKENS = 20_000;
/** New prompts are refused this close to the effective window: only /compact still fits. */
export const MANUAL_COMPACT_BUFFER_TOKENS = 3_000;
/** CLAUDE_CODE_AUTO_COMPACT_WINDOW is clamped to this range (DESIGN.md §5). */
export const MIN_AUTO_COMPACT_WINDOW = 100_000;
export const MAX_AUTO_COMPACT_WINDOW = 1_000_000;

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** Claude Code's isEnvTruthy. */
export function isEnvTruthy(value: string | undefined): boolean {
  return value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}

/** A positive integer as parseInt reads it ("150000", "150000tokens"), else null. */
function positiveInt(value: string | undefined): number | null {
  if (value === undefined) return null;
  const parsed = Number.parseInt(value, 10);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : null;
}

/** A percentage in (0, 100] as parseFloat reads it, else null. */
function percentage(value: string | undefined): number | null {
  if (value === undefined) return null;
  const parsed = Number.parseFloat(value);
  return Number.isFinite(parsed) && parsed > 0 && parsed <= 100 ? parsed : null;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function isAutoCompactEnabled(env: ThresholdEnv): boolean {
  return !isEnvTruthy(env.DISABLE_COMPACT) && !isEnvTruthy(env.DISABLE_AUTO_COMPACT);
}

export interface ThresholdInput {
  /** The model as configured or as the transcript names it; '' when none is known (defaults). */
  model: string;
  /** Context tokens now (accounting.ts). */
  tokens: number;
  env: ThresholdEnv;
  /** Output reserve to use instead of min(model max output, 20,000); 0 for none. */
  reserveOutputTokens?: number;
  /** The window Claude Code stated for the session (status line, hooks): wins over the model table. */
  window?: number | null;
}

export function contextWindow(model: string, env: ThresholdEnv, stated?: number | null): number {
  const override = positiveInt(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW);
  if (override !== null) return clamp(override, MIN_AUTO_COMPACT_WINDOW, MAX_AUTO_COMPACT_WINDOW);
  if (stated != null && stated > 0) return stated;
  return contextWindowFor(model === '' ? null : model);
}

export function effectiveContextWindow(model: string, env: ThresholdEnv, reserveOutputTokens?: number, stated?: number | null): number {
  const reserve = reserveOutputTokens ?? Math.min(maxOutputTokensFor(model === '' ? null : model), MAX_OUTPUT_TOKENS_FOR_SUMMARY);
  return contextWindow(model, env, stated) - Math.max(0, reserve);
}

function autoCompactThreshold(effectiveWindow: number, env: ThresholdEnv): number {
  const threshold = effectiveWindow - AUTOCOMPACT_BUFFER_TOKENS;
  const pct = percentage(env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE);
  return pct === null ? threshold : Math.min(Math.floor(effectiveWindow * (pct / 100)), threshold);
}

function stateOf(tokens: number, t: Omit<ThresholdResult, 'state' | 'tokensLeft' | 'percentUsed'>): ThresholdState {
  if (tokens >= t.blockingAt) return 'blocking';
  if (t.autoCompactEnabled && tokens >= t.autoCompactAt) return 'autocompact';
  if (tokens >= t.errorAt) return 'error';
  if (tokens >= t.warningAt) return 'warning';
  return 'ok';
}

/**
 * The thresholds and the state for `tokens`. `autoCompactAt` is reported even when
 * auto-compaction is off (what it would be); `tokensLeft` then counts to `blockingAt`, the next
 * thing that will happen. `percentUsed` is of the auto-compact threshold (of the effective window
 * when auto-compaction is off), as Claude Code's "context left until auto-compact" is; it passes
 * 100 once the context is beyond it.
 */
export function computeThresholds(input: ThresholdInput): ThresholdResult {
  const { model, tokens, env } = input;
  const window = contextWindow(model, env, input.window);
  const effectiveWindow = effectiveContextWindow(model, env, input.reserveOutputTokens, input.window);
  const autoCompactEnabled = isAutoCompactEnabled(env);
  const autoCompactAt = autoCompactThreshold(effectiveWindow, env);
  const base = autoCompactEnabled ? autoCompactAt : effectiveWindow;
  const blockingAt = positiveInt(env.CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE) ?? effectiveWindow - MANUAL_COMPACT_BUFFER_TOKENS;
  const thresholds = {
    model,
    tokens,
    window,
    effectiveWindow,
    autoCompactAt,
    warningAt: base - WARNING_THRESHOLD_BUFFER_TOKENS,
    errorAt: base - ERROR_THRESHOLD_BUFFER_TOKENS,
    blockingAt,
    autoCompactEnabled,
  };
  const limit = autoCompactEnabled ? autoCompactAt : blockingAt;
  return {
    ...thresholds,
    state: stateOf(tokens, thresholds),
    tokensLeft: Math.max(0, limit - tokens),
    percentUsed: base > 0 ? Math.round((tokens / base) * 100) : 100,
  };
}
