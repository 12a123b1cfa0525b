/**
 * `memctl status SESSION`'s plan and cache lines (issue 31): what Claude Code's status line last
 * reported, each line saying whose figure it is. `official`: Claude Code reported it, memd kept
 * it; `estimated`: memd's own reading of it (a cache reported warm whose expiry has passed).
 */
import type {
  PlanWindow,
  PromptCacheReport,
  RateLimitsReport,
  Reported,
  ReportedState,
} from '../../../shared/protocol/reports.js';
import { compactDuration } from '../../../shared/statusline/format.js';
import type { Output } from '../output.js';
import { formatAge } from './sessions.js';

/** `2026-12-05 15:00Z`: a moment in UTC, to the minute, the same on every machine. */
function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

function windowText(label: string, window: PlanWindow, now: number): string {
  const used = `${label} ${Math.round(window.usedPercent * 10) / 10}% used`;
  if (window.resetsAt === null) return used;
  if (window.resetsAt <= now)
    return `${used} (a window that reset at ${utcMinute(window.resetsAt)}: not reported since)`;
  return `${used}, resets in ${compactDuration(window.resetsAt - now)} (${utcMinute(window.resetsAt)})`;
}

function source(report: Reported<unknown>, sessionId: string, now: number): string {
  const who = report.sessionId === sessionId ? '' : ` by session ${report.sessionId.slice(0, 8)}`;
  return `${report.provenance}: Claude Code reported it ${formatAge(report.reportedAt, now)}${who}`;
}

function planLine(reported: ReportedState, sessionId: string, out: Output, now: number): string {
  const report: Reported<RateLimitsReport> | null = reported.rateLimits ?? reported.accountRateLimits;
  if (report === null)
    return `  plan      ${out.dim('not reported (Claude Code sends it to its status line on Claude.ai plans, since 2.1.80; none since memd started)')}`;
  const { fiveHour, sevenDay } = report.value;
  const windows = [
    ...(fiveHour === undefined ? [] : [windowText('5h', fiveHour, now)]),
    ...(sevenDay === undefined ? [] : [windowText('7d', sevenDay, now)]),
  ];
  return `  plan      ${windows.join(' · ')}  ${out.dim(`(${source(report, sessionId, now)})`)}`;
}

function cacheState(cache: PromptCacheReport, now: number): string {
  const causes = cache.lastMissCauses === undefined ? '' : `: ${cache.lastMissCauses.join(', ')}`;
  const lastMiss = cache.lastMissAt === undefined ? '' : `, last miss ${utcMinute(cache.lastMissAt)}${causes}`;
  const ttl = cache.ttl === undefined ? '' : ` (${cache.ttl} TTL)`;
  if (cache.warm === true && cache.expiresAt !== undefined && cache.expiresAt <= now)
    return `cold since ${utcMinute(cache.expiresAt)}${ttl} [estimated: reported warm, its expiry has passed]${lastMiss}`;
  if (cache.warm === true)
    return `warm${ttl}${cache.expiresAt === undefined ? '' : `, expires in ${compactDuration(cache.expiresAt - now)}`}`;
  if (cache.warm === false) return `cold${ttl}${lastMiss === '' ? '' : lastMiss}`;
  return `state not reported${ttl}${lastMiss}`;
}

function cacheLine(report: Reported<PromptCacheReport> | null, sessionId: string, out: Output, now: number): string {
  if (report === null)
    return `  cache     ${out.dim('not reported (Claude Code sends prompt_cache to its status line since 2.1.251; none since memd started)')}`;
  const cache = report.value;
  const figures = [
    cacheState(cache, now),
    ...(cache.hitRatio === undefined ? [] : [`hit ratio ${Math.round(cache.hitRatio * 100)}%`]),
    ...(cache.misses === undefined ? [] : [`${cache.misses} misses`]),
    ...(cache.expectedRebuilds === undefined ? [] : [`${cache.expectedRebuilds} expected rebuilds`]),
  ];
  return `  cache     ${figures.join(' · ')}  ${out.dim(`(${source(report, sessionId, now)})`)}`;
}

/**
 * What the model line adds: ` · effort high  (official: Claude Code reported it 2m ago)`; nothing
 * when no status line reported an effort (a model without one, Claude Code before it, an older memd).
 */
export function effortSuffix(reported: ReportedState | undefined, sessionId: string, out: Output, now: number): string {
  const report = reported?.effort ?? null;
  if (report === null) return '';
  return ` · effort ${report.value.level}  ${out.dim(`(${source(report, sessionId, now)})`)}`;
}

/** Both lines; none from a memd that predates the reports (no `reported` in its answer). */
export function reportedLines(
  reported: ReportedState | undefined,
  sessionId: string,
  out: Output,
  now: number,
): string[] {
  if (reported === undefined) return [];
  return [planLine(reported, sessionId, out, now), cacheLine(reported.promptCache, sessionId, out, now)];
}
