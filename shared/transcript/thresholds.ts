/**
 * Where a context of `tokens` stands against Claude Code's compaction thresholds, as Claude Code
 * 2.1.197 computes them (read in its embedded JS: its context-window, auto-compact-window and
 * warning-level functions; checked against its /context with the scripted API, issue 28). The
 * environment is passed in so that the daemon can use a session's own settings and tests can use
 * any; nothing here reads process.env.
 *
 *   window          = the window Claude Code stated for the session (`window`), else the model's
 *                     (models.ts: 200K; 1M with `[1m]` or natively, Opus 4.7+ and Sonnet 5)
 *   compactWindow   = CLAUDE_CODE_AUTO_COMPACT_WINDOW clamped to 100K..1M, else the model's
 *                     configured auto-compact window (models.ts), each at most `window`; else none
 *                     (Claude Code's window source "auto")
 *   reserve         = min(model max output, 20,000) unless reserveOutputTokens is given
 *   effectiveWindow = (compactWindow ?? window) − reserve
 *
 * With an auto-compact window ("threshold" mode) Claude Code compacts ahead of the limit:
 *   autoCompactAt   = effectiveWindow − 13,000, or with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE = p
 *                     (0 < p ≤ 100): min(floor(effectiveWindow × p / 100), effectiveWindow − 13,000)
 *   blockingAt      = window − reserve − 3,000, or CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE
 *   tokensLeft      = autoCompactAt − tokens ("N% until auto-compact"; /context's free space
 *                     beside its "Autocompact buffer")
 * Without one ("reactive" mode, the default of most models) 2.1.197 does not compact ahead: the
 * request goes out until the API refuses it, and Claude Code compacts then (reactive compaction);
 * it blocks nothing, and its meter reads "N% context used". So
 *   autoCompactAt   = blockingAt = window,  tokensLeft = window − tokens (/context's free space),
 *   percentUsed     = tokens / window (/context's and the status line's used_percentage)
 * In both modes warningAt = errorAt = (effectiveWindow − 13,000 with the override) − 20,000, where
 * Claude Code's meter appears: its two buffers are both 20,000, so the state goes from `ok`
 * straight to `error`. With auto-compaction off (DISABLE_COMPACT, DISABLE_AUTO_COMPACT truthy)
 * tokensLeft counts to blockingAt and the warnings to effectiveWindow − 20,000.
 *
 * A 200K window with reserveOutputTokens 0 and an auto-compact window compacts at 187,000, the seed
 * document's figure; with Claude Code's reserve (20,000 for every 4.x model) at 167,000.
 */
import type { ThresholdResult, ThresholdState } from '../protocol/sessions.js';
import { contextWindowFor, maxOutputTokensFor, modelAutoCompactWindow } from './models.js';

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

/** How Claude Code compacts the session: ahead of its limit, or when the API refuses (ThresholdResult.autoCompactMode). */
export type AutoCompactMode = 'threshold' | 'reactive';

export interface ThresholdInput {
  /** The model as configured or as the transcript names it; '' when none is known (defaults). */
  model: string;
  /** Context tokens now (accounting.ts). */
  tokens: number;
  env: ThresholdEnv;
  /** Output reserve to use instead of min(model max output, 20,000); 0 for none. */
  reserveOutputTokens?: number | undefined;
  /** The window Claude Code stated for the session (status line, hooks): wins over the model table. */
  window?: number | null | undefined;
}

export function contextWindow(model: string, stated?: number | null): number {
  if (stated != null && stated > 0) return stated;
  return contextWindowFor(model === '' ? null : model);
}

/** The auto-compact window Claude Code compacts against, at most `window`; null when it configures none (source "auto"). */
export function autoCompactWindow(model: string, env: ThresholdEnv, window: number): number | null {
  const override = positiveInt(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW);
  const configured =
    override !== null
      ? clamp(override, MIN_AUTO_COMPACT_WINDOW, MAX_AUTO_COMPACT_WINDOW)
      : modelAutoCompactWindow(model === '' ? null : model, window);
  return configured === null ? null : Math.min(window, configured);
}

function reserveOf(model: string, reserveOutputTokens: number | undefined): number {
  return Math.max(
    0,
    reserveOutputTokens ?? Math.min(maxOutputTokensFor(model === '' ? null : model), MAX_OUTPUT_TOKENS_FOR_SUMMARY),
  );
}

function autoCompactThreshold(effectiveWindow: number, env: ThresholdEnv): number {
  const threshold = effectiveWindow - AUTOCOMPACT_BUFFER_TOKENS;
  const pct = percentage(env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE);
  return pct === null ? threshold : Math.min(Math.floor(effectiveWindow * (pct / 100)), threshold);
}

function stateOf(tokens: number, t: Omit<ThresholdResult, 'state' | 'tokensLeft' | 'percentUsed'>): ThresholdState {
  if (t.autoCompactMode === 'reactive' && t.autoCompactEnabled) {
    // Nothing blocks: the request that no longer fits is refused, and compacted then.
    if (tokens >= t.window) return 'autocompact';
  } else {
    if (tokens >= t.blockingAt) return 'blocking';
    if (t.autoCompactEnabled && tokens >= t.autoCompactAt) return 'autocompact';
  }
  if (tokens >= t.errorAt) return 'error';
  if (tokens >= t.warningAt) return 'warning';
  return 'ok';
}

/**
 * The thresholds and the state for `tokens` (see the top of this file). `autoCompactAt` is
 * reported even when auto-compaction is off (what it would be); `tokensLeft` then counts to
 * `blockingAt`, the next thing that will happen. `percentUsed` is of the auto-compact threshold
 * in threshold mode (of the effective window when auto-compaction is off), as Claude Code's
 * "context left until auto-compact" is, and of the window in reactive mode; it passes 100 once
 * the context is beyond it.
 */
export function computeThresholds(input: ThresholdInput): ThresholdResult {
  const { model, tokens, env } = input;
  const window = contextWindow(model, input.window);
  const compactWindow = autoCompactWindow(model, env, window);
  const reserve = reserveOf(model, input.reserveOutputTokens);
  const effectiveWindow = (compactWindow ?? window) - reserve;
  const autoCompactEnabled = isAutoCompactEnabled(env);
  const autoCompactMode: AutoCompactMode = compactWindow === null ? 'reactive' : 'threshold';
  const reactive = autoCompactEnabled && autoCompactMode === 'reactive';
  const threshold = autoCompactThreshold(effectiveWindow, env);
  const autoCompactAt = reactive ? window : threshold;
  const warningBase = autoCompactEnabled ? threshold : effectiveWindow;
  const blockingAt = reactive
    ? window
    : (positiveInt(env.CLAUDE_CODE_BLOCKING_LIMIT_OVERRIDE) ?? window - reserve - MANUAL_COMPACT_BUFFER_TOKENS);
  const thresholds = {
    model,
    tokens,
    window,
    effectiveWindow,
    autoCompactAt,
    warningAt: warningBase - WARNING_THRESHOLD_BUFFER_TOKENS,
    errorAt: warningBase - ERROR_THRESHOLD_BUFFER_TOKENS,
    blockingAt,
    autoCompactEnabled,
    autoCompactMode,
  };
  const limit = autoCompactEnabled ? autoCompactAt : blockingAt;
  const base = reactive ? window : warningBase;
  return {
    ...thresholds,
    state: stateOf(tokens, thresholds),
    tokensLeft: Math.max(0, limit - tokens),
    percentUsed: base > 0 ? Math.round((tokens / base) * 100) : 100,
  };
}
