/**
 * The forecasts of `usage.status` (issue 31) in a few words each, as the VS Code sessions view and
 * the Neovim session view show them, each with its provenance and the daemon's one-sentence basis:
 *
 *   auto-compact in 4 turns ~12m        estimated
 *   5h limit in 1h10m at this pace       estimated
 *   cache expires in 4m: rebuild $0.42 (131K)   estimated
 *
 * The Neovim plugin says the same in Lua (client/nvim/lua/memd/forecast.lua; a table test holds
 * the two equal). Pure.
 */
import type {
  AutoCompactForecast,
  CacheRebuildForecast,
  LimitForecast,
  UsageStatusResult,
} from '../protocol/forecast.js';
import type { Provenance } from '../protocol/reports.js';
import { compactDuration, compactTokens } from './format.js';

export type ForecastKind = 'autoCompact' | 'limit' | 'cacheRebuild';

export interface ForecastLine {
  kind: ForecastKind;
  /** The figure in a few words: `auto-compact in 4 turns ~12m`. */
  text: string;
  provenance: Provenance;
  /** How the daemon reached it, one sentence. */
  basis: string;
}

const MINUTE_MS = 60_000;

/** `auto-compact in 4 turns ~12m`; `blocking …` with auto-compaction off (the figures count to blocking then). */
export function autoCompactText(forecast: AutoCompactForecast): string {
  const word = forecast.autoCompactEnabled ? 'auto-compact' : 'blocking';
  const { turns, minutes } = forecast;
  if (turns === null) return `${word}: ${compactTokens(forecast.tokensLeft)} left, pace unknown`;
  if (turns <= 0) return `${word} at the next turn`;
  const count = `${turns} turn${turns === 1 ? '' : 's'}`;
  return minutes === null ? `${word} in ${count}` : `${word} in ${count} ~${compactDuration(minutes * MINUTE_MS)}`;
}

/** `5h limit in 1h10m at this pace`, `5h window resets first (↻1h52m)`, or why there is no figure. */
export function limitText(forecast: LimitForecast, now: number): string {
  const { usedPercent, resetsAt, reachedAt } = forecast;
  if (usedPercent === null) return '5h limit: not reported';
  if (resetsAt !== null && resetsAt <= now) return '5h limit: window reset, not reported since';
  if (reachedAt !== null)
    return reachedAt <= now ? '5h limit reached' : `5h limit in ${compactDuration(reachedAt - now)} at this pace`;
  if (forecast.resetFirst)
    return resetsAt === null
      ? '5h window resets first'
      : `5h window resets first (↻${compactDuration(resetsAt - now)})`;
  return `5h ${Math.round(Math.max(0, usedPercent))}% used, pace unknown`;
}

/** `cache expires in 4m: rebuild $0.42 (131K)`; past the expiry, `cache expired: …`. */
export function cacheRebuildText(forecast: CacheRebuildForecast, now: number): string {
  const cost = forecast.costUsd === null ? 'unpriced' : `$${forecast.costUsd.toFixed(2)}`;
  const rebuild = `rebuild ${cost} (${compactTokens(forecast.tokens)})`;
  const { expiresAt } = forecast;
  if (expiresAt === null) return `cache idle past ${forecast.ttl}: ${rebuild}`;
  if (expiresAt <= now) return `cache expired: ${rebuild}`;
  return `cache expires in ${compactDuration(expiresAt - now)}: ${rebuild}`;
}

/** The three forecasts, most pressing first (auto-compact, the plan window, the cache). */
export function forecastLines(result: UsageStatusResult, now: number): ForecastLine[] {
  const { autoCompact, limit, cacheRebuild } = result;
  return [
    {
      kind: 'autoCompact',
      text: autoCompactText(autoCompact),
      provenance: autoCompact.provenance,
      basis: autoCompact.basis,
    },
    { kind: 'limit', text: limitText(limit, now), provenance: limit.provenance, basis: limit.basis },
    {
      kind: 'cacheRebuild',
      text: cacheRebuildText(cacheRebuild, now),
      provenance: cacheRebuild.provenance,
      basis: cacheRebuild.basis,
    },
  ];
}
