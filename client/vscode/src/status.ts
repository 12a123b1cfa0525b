/**
 * The status bar item's text, tooltip and colour: the context string every memd client shows
 * (shared/statusline/format.ts) for the workspace folder's most recent session, or why there is
 * none. Pure: the adapter only copies these fields onto VS Code's item.
 */
import { basename } from 'node:path';
import type { PromptCacheReport, RateLimitsReport, Reported, ReportedState } from '../../../shared/protocol/reports.js';
import type { SessionSummary, ThresholdState } from '../../../shared/protocol/sessions.js';
import {
  compactDuration,
  compactsWhenRefused,
  formatStatusLine,
  planFacts,
  type StatusFacts,
} from '../../../shared/statusline/format.js';
import type { LinkState } from './link.js';

/** A codicon before the line, so that the item reads as memd's among the editor's own. */
export const STATUS_ICON = '$(pulse)';
const DISCONNECTED_ICON = '$(debug-disconnect)';
const CONNECTING_ICON = '$(sync~spin)';

/** The item's background: VS Code's warning or error colours, as the threshold state says. */
export type StatusSeverity = 'none' | 'warning' | 'error';

export interface StatusView {
  text: string;
  tooltip: string;
  severity: StatusSeverity;
  /** What a click runs: the session's details, or the sessions view when there is no session. */
  command: { id: string; args: unknown[] };
}

export interface StatusInput {
  link: LinkState;
  /** The workspace folders' paths; empty when no folder is open. */
  folders: readonly string[];
  /** The folders' most recent session, or null when memd knows none. */
  session: SessionSummary | null;
  columns: number;
  now: number;
}

const SEVERITY_BY_STATE: Record<ThresholdState, StatusSeverity> = {
  ok: 'none',
  warning: 'warning',
  error: 'warning',
  autocompact: 'error',
  blocking: 'error',
};

/** VS Code creates `<view id>.focus` for every contributed view. */
export const FOCUS_SESSIONS_COMMAND = 'memd.sessions.focus';
export const OPEN_SESSION_COMMAND = 'memd.openSession';

/** The plan window memd kept for the session: the session's own report, else the account's latest (any session's). */
function planReport(reported: ReportedState | undefined): Reported<RateLimitsReport> | null {
  return reported?.rateLimits ?? reported?.accountRateLimits ?? null;
}

/**
 * The 5-hour window and cache facts of `sessions.get`'s `reported` (issue 31), as memctl statusline
 * reads them (client/memctl/quick/statusline.ts): the session's window, else the account's; the
 * session's cache with the first cause of its last miss. A `sessions.list` row has none.
 */
export function reportedFacts(reported: ReportedState | undefined): Pick<StatusFacts, 'fiveHour' | 'cache'> {
  const fiveHour = planReport(reported)?.value.fiveHour;
  const cache = reported?.promptCache?.value;
  return planFacts(fiveHour, cache);
}

/** A survival score as the line counts it: kept of all the facts. */
function keptOf(score: { kept: number; lost: number }): { kept: number; total: number } {
  return { kept: score.kept, total: score.kept + score.lost };
}

/** The facts of the status line from a session, as `memctl statusline` takes them from memd. */
export function statusFacts(session: SessionSummary): StatusFacts {
  const extractedAt = session.sessionMemory.extractedAt;
  const memoryAt = extractedAt === null ? null : Date.parse(extractedAt);
  // The reasoning effort Claude Code's status line reported (issue 31), beside the session's model.
  const effort = session.reported?.effort?.value.level;
  return {
    threshold: session.threshold,
    compactions: session.compactions.count,
    memoryAt: memoryAt === null || Number.isFinite(memoryAt) ? memoryAt : null,
    costUsd: session.usage.total.costUsd,
    note: null,
    ...(session.deletedNotHeld === undefined ? {} : { deletedNotHeld: session.deletedNotHeld }),
    // Issue 32: what Claude Code's last compaction kept of the session's facts ("last compaction kept 41/43").
    ...(session.lastCompaction === undefined ? {} : { lastKept: keptOf(session.lastCompaction) }),
    ...reportedFacts(session.reported),
    ...(effort === undefined ? {} : { model: { id: session.model, effort } }),
  };
}

/** The context line without colour: what the status bar shows after its icon. */
export function contextLine(session: SessionSummary, columns: number, now: number): string {
  return formatStatusLine(statusFacts(session), { color: false, columns, now });
}

/** A title is often the whole first prompt: a tree label or a notice shows its start. */
export const TITLE_CHARS = 50;

/** `Fix the invoice rounding (4be41908)`, or the project's folder when the session has no title. */
export function sessionName(session: SessionSummary): string {
  const short = session.sessionId.slice(0, 8);
  const title = session.title?.replace(/\s+/g, ' ').trim() ?? '';
  if (title === '') return `${basename(session.cwd ?? session.project)} (${short})`;
  const shown =
    [...title].length > TITLE_CHARS
      ? `${[...title]
          .slice(0, TITLE_CHARS - 1)
          .join('')
          .trimEnd()}…`
      : title;
  return `${shown} (${short})`;
}

/** `3m ago`: when memd received a report. */
function ago(iso: string, now: number): string {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? `${compactDuration(now - at)} ago` : 'at an unknown time';
}

/** Whose figure a report is: `official: Claude Code reported it 3m ago (session 1a2b3c4d)`. */
function reportSource(report: Reported<unknown>, sessionId: string, now: number): string {
  const who = report.sessionId === sessionId ? '' : ` (session ${report.sessionId.slice(0, 8)})`;
  return `${report.provenance}: Claude Code reported it ${ago(report.reportedAt, now)}${who}`;
}

function cacheState(cache: PromptCacheReport, now: number): string {
  const cause = cache.lastMissCauses === undefined ? '' : `, last miss: ${cache.lastMissCauses.join(', ')}`;
  if (cache.warm === true && cache.expiresAt !== undefined && cache.expiresAt <= now)
    return `cold, its expiry has passed (estimated: reported warm)${cause}`;
  if (cache.warm === true)
    return `warm${cache.expiresAt === undefined ? '' : `, expires in ${compactDuration(cache.expiresAt - now)}`}`;
  return `${cache.warm === false ? 'cold' : 'state not reported'}${cause}`;
}

/**
 * The tooltip's lines on the issue 31 segments: each figure and whose it is (official: Claude Code
 * reported it; estimated: memd's reading), and the deletions memd saw without holding a copy.
 */
export function reportedTooltip(session: SessionSummary, now: number): string[] {
  const lines: string[] = [];
  const plan = planReport(session.reported);
  const fiveHour = plan?.value.fiveHour;
  if (plan !== null && fiveHour !== undefined) {
    const reset =
      fiveHour.resetsAt === null
        ? ''
        : fiveHour.resetsAt <= now
          ? ', a window that has reset since'
          : `, resets in ${compactDuration(fiveHour.resetsAt - now)}`;
    lines.push(
      `5h window ${Math.round(fiveHour.usedPercent * 10) / 10}% used${reset} (${reportSource(plan, session.sessionId, now)})`,
    );
  }
  const cache = session.reported?.promptCache;
  if (cache !== null && cache !== undefined)
    lines.push(`prompt cache ${cacheState(cache.value, now)} (${reportSource(cache, session.sessionId, now)})`);
  const deleted = session.deletedNotHeld ?? 0;
  if (deleted > 0)
    lines.push(
      `Claude Code deleted ${deleted} session${deleted === 1 ? '' : 's'} in the last 7 days that memd did not hold (memd saw the files go; memctl archive deleted lists them)`,
    );
  return lines;
}

function sessionTooltip(session: SessionSummary, line: string, now: number): string {
  const { threshold } = session;
  const lines = [
    `memd: ${sessionName(session)}`,
    line,
    compactsWhenRefused(threshold)
      ? `context ${session.contextTokens.toLocaleString('en-US')} of ${threshold.window.toLocaleString('en-US')} tokens, compacts when the API refuses the request (${threshold.state})`
      : `context ${session.contextTokens.toLocaleString('en-US')} tokens, auto-compact at ${threshold.autoCompactAt.toLocaleString('en-US')} (${threshold.state})`,
  ];
  lines.push(...reportedTooltip(session, now));
  if (session.cwd !== null) lines.push(`cwd ${session.cwd}`);
  if (session.model !== null) lines.push(`model ${session.model}`);
  lines.push('Click for the session’s details.');
  return lines.join('\n');
}

export function statusView(input: StatusInput): StatusView {
  const focus = { id: FOCUS_SESSIONS_COMMAND, args: [] };
  const { link } = input;
  if (link.kind === 'connecting')
    return { text: `${CONNECTING_ICON} memd`, tooltip: 'memd: connecting…', severity: 'none', command: focus };
  if (link.kind === 'disconnected') {
    const retry =
      link.retryInMs === null
        ? ''
        : `\nRetrying in ${Math.ceil(link.retryInMs / 1000)} s; memd: Start the Daemon starts it.`;
    return {
      text: `${DISCONNECTED_ICON} memd`,
      tooltip: `memd is not answering: ${link.reason}${retry}`,
      severity: 'none',
      command: focus,
    };
  }
  if (input.folders.length === 0)
    return {
      text: `${STATUS_ICON} memd`,
      tooltip: 'memd: open a folder to see its Claude Code session.',
      severity: 'none',
      command: focus,
    };
  const { session } = input;
  if (session === null) {
    const where = input.folders.join(', ');
    return {
      text: `${STATUS_ICON} memd: no session`,
      tooltip: `memd knows no Claude Code session of ${where}.`,
      severity: 'none',
      command: focus,
    };
  }
  // The icon takes two columns (a glyph and a space) of the width the line may use.
  const line = contextLine(session, Math.max(1, input.columns - 2), input.now);
  return {
    text: `${STATUS_ICON} ${line}`,
    tooltip: sessionTooltip(session, line, input.now),
    severity: SEVERITY_BY_STATE[session.threshold.state],
    command: { id: OPEN_SESSION_COMMAND, args: [session.sessionId] },
  };
}

/** Trailing slashes aside, the same directory: a session's cwd against a workspace folder. */
export function samePath(a: string, b: string): boolean {
  const trim = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);
  return trim(a) === trim(b);
}
