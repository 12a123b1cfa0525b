/** The sessions table of `memctl status`, `memctl sessions` and `memctl watch`. */

import { projectPathOf } from '../../../shared/paths.js';
import type { SessionRow, ThresholdResult } from '../../../shared/protocol/sessions.js';
import { percentText } from '../../../shared/statusline/format.js';
import type { Output } from '../output.js';

/** Cells between the bar's ends: enough to see 12.5% steps, short enough for an 80-column row. */
const BAR_CELLS = 8;
const SESSION_ID_CHARS = 8;
const TITLE_CHARS = 28;
const PROJECT_CHARS = 20;
/** A machine's name in the DEVICE column (shown once any listed session is on another machine: sync). */
const DEVICE_CHARS = 12;

export function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}K`;
  return String(tokens);
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`;
}

/**
 * `▕██████░░▏ 91% used of auto-compact · 140K/154K, 14K left`: the share of the auto-compact
 * threshold used (ThresholdResult.percentUsed), or of the effective window when auto-compaction is
 * off. In reactive mode, where Claude Code compacts only once the API refuses, the share of the
 * window, in its words: `▕░░░░░░░░▏ 3% context used · 33K/1M, 967K left`. The words are the status
 * line's (percentText), so that every client says the same share the same way.
 */
export function contextBar(tokens: number, threshold: ThresholdResult, out?: Output): string {
  const base = threshold.autoCompactEnabled ? threshold.autoCompactAt : threshold.effectiveWindow;
  const fraction = base > 0 ? Math.min(1, tokens / base) : 1;
  const filled = Math.round(fraction * BAR_CELLS);
  const bar = `▕${'█'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}▏`;
  const off = threshold.autoCompactEnabled ? '' : ' (auto-compact off)';
  const text = `${bar} ${percentText(threshold)}${off} · ${formatTokens(tokens)}/${formatTokens(base)}, ${formatTokens(threshold.tokensLeft)} left`;
  if (!out) return text;
  switch (threshold.state) {
    case 'ok':
      return out.green(text);
    case 'warning':
      return out.yellow(text);
    default:
      return out.red(text);
  }
}

export function formatAge(iso: string | null, now: number): string {
  if (iso === null) return '-';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '-';
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3_600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3_600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

function formatCost(cost: number | null): string {
  return cost === null ? '?' : `$${cost.toFixed(2)}`;
}

function pathParts(session: Pick<SessionRow, 'project' | 'cwd'>): string[] {
  // The project's path as the daemon names it (search, usage, archive, MCP); without a cwd (no
  // entry carried one), the folder name is all there is.
  const path = projectPathOf(session.project, session.cwd);
  return path === null ? [session.project] : path.split('/').filter(Boolean);
}

/**
 * The distinguishing end of each session's cwd: its last component, widened one component at a
 * time while two different cwds among the shown sessions would read the same
 * (`spotter-dov`, and `a/api` next to `b/api`). Keyed by session id.
 */
export function projectLabels(
  sessions: readonly Pick<SessionRow, 'sessionId' | 'project' | 'cwd'>[],
): Map<string, string> {
  const parts = new Map(sessions.map((session) => [session.sessionId, pathParts(session)]));
  const depth = new Map(sessions.map((session) => [session.sessionId, 1]));
  const label = (id: string) => (parts.get(id) ?? []).slice(-(depth.get(id) ?? 1)).join('/');
  const full = (id: string) => (parts.get(id) ?? []).join('/');
  // Each round widens every clashing label by one component; a path has few components.
  for (let round = 0; round < 64; round++) {
    const byLabel = new Map<string, Set<string>>();
    for (const { sessionId } of sessions) {
      const text = label(sessionId);
      let cwds = byLabel.get(text);
      if (cwds === undefined) byLabel.set(text, (cwds = new Set()));
      cwds.add(full(sessionId));
    }
    let widened = false;
    for (const { sessionId } of sessions) {
      const clashing = (byLabel.get(label(sessionId))?.size ?? 0) > 1;
      const current = depth.get(sessionId) ?? 1;
      if (clashing && current < (parts.get(sessionId)?.length ?? 0)) {
        depth.set(sessionId, current + 1);
        widened = true;
      }
    }
    if (!widened) break;
  }
  return new Map(sessions.map((session) => [session.sessionId, label(session.sessionId)]));
}

/** Cut from the left: the end of a path is what tells projects apart. */
function truncateLeft(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `…${text.slice(text.length - width + 1)}`;
}

/** What a session is called in a list: its title, else why it has none. */
export function titleOf(session: Pick<SessionRow, 'hasMainTranscript' | 'title'>): string {
  if (session.hasMainTranscript === false) return '(main transcript missing)';
  return session.title ?? '(untitled)';
}

/** Rows, most recent first (the daemon sorts them so). */
export function renderSessionTable(sessions: readonly SessionRow[], out: Output, now = Date.now()): string[] {
  if (sessions.length === 0) return [out.dim('no sessions yet')];
  const devices = sessions.some((session) => session.devices !== undefined);
  const deviceHeader = devices ? `${'DEVICE'.padEnd(DEVICE_CHARS)}  ` : '';
  const header = `${'SESSION'.padEnd(SESSION_ID_CHARS)}  ${deviceHeader}${'PROJECT'.padEnd(PROJECT_CHARS)}  ${'TITLE'.padEnd(TITLE_CHARS)}  ${'LAST'.padEnd(7)}  ${'COST'.padStart(7)}  CONTEXT`;
  const projects = projectLabels(sessions);
  const rows = sessions.map((session) => {
    const id = session.sessionId.slice(0, SESSION_ID_CHARS).padEnd(SESSION_ID_CHARS);
    const title = truncate(titleOf(session), TITLE_CHARS);
    const project = truncateLeft(projects.get(session.sessionId) ?? session.project, PROJECT_CHARS);
    const age = formatAge(session.lastActivity, now).padEnd(7);
    const cost = formatCost(session.usage.total.costUsd).padStart(7);
    // Deleted by Claude Code's cleanup (or by hand): memd's archive may still hold it.
    const gone = session.gone ? out.dim(session.archived ? ' (archived)' : ' (deleted)') : '';
    // This machine's sessions say "here"; another machine's, its name (more than one: the first, +N).
    const held = session.devices ?? [];
    const deviceText =
      held.length === 0 ? 'here' : held.length === 1 ? (held[0] as string) : `${held[0]} +${held.length - 1}`;
    const device = devices ? `${truncate(deviceText, DEVICE_CHARS)}  ` : '';
    return `${id}  ${device}${project}  ${title}  ${age}  ${cost}  ${contextBar(session.contextTokens, session.threshold, out)}${gone}`;
  });
  return [out.bold(header), ...rows];
}
