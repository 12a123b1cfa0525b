/**
 * The forecasts of `usage.status` (issue 31) in words: when auto-compact comes, when the 5-hour
 * window runs out at this session's pace, what idling past the cache's expiry costs. `memctl status
 * SESSION` shows them as lines and the MCP tool `usage_status` as sentences; both take the figures'
 * words from here, so the terminal and the agent read the same forecast.
 */
import type {
  AutoCompactForecast,
  CacheRebuildForecast,
  LimitForecast,
  UsageStatusResult,
} from '../../../shared/protocol/forecast.js';
import { compactDuration } from '../../../shared/statusline/format.js';
import type { Output } from '../output.js';
import { formatTokens } from './sessions.js';

/** `15:42Z`: the forecasts look hours ahead at most (a 5-hour window), so the time of day is enough. */
export function utcClock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)}Z`;
}

/** `15:42Z (in 1h12m)`, or `15:42Z (passed)`. */
function when(ms: number, now: number): string {
  return ms <= now ? `${utcClock(ms)} (passed)` : `${utcClock(ms)} (in ${compactDuration(ms - now)})`;
}

/** One decimal under ten, whole numbers above: `4.5 min`, `12 min`. */
function round(value: number): string {
  return Math.abs(value) < 10 ? String(Math.round(value * 10) / 10) : String(Math.round(value));
}

/** `14 min` under the hour, `2h3m` past it. */
function minutesText(minutes: number): string {
  return minutes < 60 ? `${round(minutes)} min` : compactDuration(minutes * 60_000);
}

function turns(n: number): string {
  return n === 1 ? '1 turn' : `${n} turns`;
}

/** What the context reaches: auto-compact, or with auto-compaction off the point where Claude Code blocks. */
function compactTarget(forecast: AutoCompactForecast): string {
  return forecast.autoCompactEnabled ? 'auto-compact' : 'the blocking limit (auto-compact is off)';
}

/** `auto-compact in 3 turns (~12 min)`, or why there is no figure. */
export function autoCompactText(forecast: AutoCompactForecast): string {
  const target = compactTarget(forecast);
  if (forecast.tokensLeft <= 0) return `${target}: reached (${formatTokens(forecast.contextTokens)} in context)`;
  if (forecast.turns === null) {
    const why =
      forecast.growthPerTurn !== null && forecast.growthPerTurn <= 0
        ? 'the context is not growing'
        : `pace unknown (${turns(forecast.sampleTurns)} sampled)`;
    return `${target}: no forecast, ${why}; ${formatTokens(forecast.tokensLeft)} tokens left`;
  }
  const minutes = forecast.minutes === null ? '' : ` (~${minutesText(forecast.minutes)})`;
  const count = forecast.turns === 0 ? 'at the next turn' : `in ${turns(forecast.turns)}`;
  return `${target} ${count}${minutes}`;
}

/** `+18K tokens and 4.5 min a turn over 6 turns, 22K left`: the pace the forecast assumed. */
export function paceText(forecast: AutoCompactForecast): string {
  const parts = [
    ...(forecast.growthPerTurn === null ? [] : [`+${formatTokens(Math.round(forecast.growthPerTurn))} tokens`]),
    ...(forecast.minutesPerTurn === null ? [] : [`${round(forecast.minutesPerTurn)} min`]),
  ];
  const left = `${formatTokens(forecast.tokensLeft)} left of ${formatTokens(forecast.autoCompactAt)}`;
  if (parts.length === 0) return left;
  return `${parts.join(' and ')} a turn over ${turns(forecast.sampleTurns)}, ${left}`;
}

/** `reached at 15:42Z (in 1h12m) at 12%/h`, `the reset at 16:00Z comes first`, or `not reported`. */
export function limitText(forecast: LimitForecast, now: number): string {
  if (forecast.usedPercent === null)
    return 'not reported (Claude Code sends rate_limits on Claude.ai plans, since 2.1.80)';
  const used = `${round(forecast.usedPercent)}% used`;
  const pace = forecast.percentPerHour === null ? null : `${round(forecast.percentPerHour)}%/h`;
  const reset = forecast.resetsAt === null ? '' : `, resets ${when(forecast.resetsAt, now)}`;
  if (forecast.reachedAt !== null && pace !== null)
    return `reached at ${when(forecast.reachedAt, now)} at this pace (${pace}); ${used}${reset}`;
  if (forecast.resetFirst)
    return `the reset${forecast.resetsAt === null ? '' : ` at ${when(forecast.resetsAt, now)}`} comes first at this pace${pace === null ? '' : ` (${pace})`}; ${used}`;
  return `no forecast, pace unknown; ${used}${reset}`;
}

/** `idling past 14:52Z (in 7m) costs $0.43 to rebuild (142K tokens, 5m TTL)`. */
export function cacheRebuildText(forecast: CacheRebuildForecast, now: number): string {
  const cost = forecast.costUsd === null ? 'an unknown cost (unpriced model)' : `$${forecast.costUsd.toFixed(2)}`;
  const what = `${formatTokens(forecast.tokens)} tokens, ${forecast.ttl} TTL`;
  if (forecast.tokens <= 0) return `cache rebuild: nothing to rebuild yet (${forecast.ttl} TTL)`;
  if (forecast.expiresAt === null) return `idling past the cache's expiry costs ${cost} to rebuild (${what})`;
  if (forecast.expiresAt <= now)
    return `cache expired at ${utcClock(forecast.expiresAt)}: the next turn rebuilds it for ${cost} (${what})`;
  return `idling past ${when(forecast.expiresAt, now)} costs ${cost} to rebuild (${what})`;
}

/** The expiry's own provenance when it differs from the forecast's: Claude Code reported it, memd priced it. */
function expiryNote(forecast: CacheRebuildForecast): string {
  return forecast.expiresAtProvenance === forecast.provenance || forecast.expiresAt === null
    ? ''
    : `, expiry ${forecast.expiresAtProvenance}`;
}

/** The words of one forecast, its provenance and its basis: what the lines and the MCP tool are made of. */
export interface ForecastFigure {
  label: string;
  text: string;
  provenance: string;
  basis: string;
}

export function forecastFigures(status: UsageStatusResult, now: number): ForecastFigure[] {
  const { autoCompact, limit, cacheRebuild } = status;
  return [
    {
      label: 'compact',
      text: `${autoCompactText(autoCompact)}${autoCompact.turns === null ? '' : `: ${paceText(autoCompact)}`}`,
      provenance: autoCompact.provenance,
      basis: autoCompact.basis,
    },
    {
      label: '5h limit',
      text: limitText(limit, now),
      provenance: `${limit.provenance}${limit.usedPercent !== null && limit.provenance !== 'official' ? '; used and reset official' : ''}`,
      basis: limit.basis,
    },
    {
      label: 'rebuild',
      text: cacheRebuildText(cacheRebuild, now),
      provenance: `${cacheRebuild.provenance}${expiryNote(cacheRebuild)}`,
      basis: cacheRebuild.basis,
    },
  ];
}

/** Where a wrapped basis starts: under the figures, past the labels' column. */
const BASIS_INDENT = ' '.repeat(12);
/** The basis wraps to this width, so `-v` stays readable in an 80-column terminal. */
const BASIS_COLUMNS = 80;

function wrap(text: string, indent: string, columns: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > columns) {
      lines.push(`${indent}${line}`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, `${indent}${line}`];
}

/**
 * `memctl status SESSION`'s forecast lines, each with its provenance like the plan and cache lines;
 * `verbose` adds each figure's basis beneath it, dimmed and wrapped to 80 columns.
 */
export function forecastLines(status: UsageStatusResult, out: Output, now: number, verbose: boolean): string[] {
  const lines = forecastFigures(status, now).flatMap((figure) => [
    `  ${figure.label.padEnd(10)}${figure.text}  ${out.dim(`(${figure.provenance})`)}`,
    ...(verbose ? wrap(`basis: ${figure.basis}`, BASIS_INDENT, BASIS_COLUMNS).map(out.dim) : []),
  ]);
  const hint = verbose ? '' : '; -v: the basis of each';
  return [`  forecast  ${out.dim(`at ${utcClock(status.at)} (estimated: memd computed it${hint})`)}`, ...lines];
}
