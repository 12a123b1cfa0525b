/** The sessions table of `memctl status`, `memctl sessions` and `memctl watch`. */
import type { SessionSummary, ThresholdResult } from '../../shared/protocol/results.js';
import type { Output } from './output.js';

/** Cells between the bar's ends: enough to see 12.5% steps, short enough for an 80-column row. */
const BAR_CELLS = 8;
const SESSION_ID_CHARS = 8;
const TITLE_CHARS = 28;
const PROJECT_CHARS = 20;

export function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}K`;
  return String(tokens);
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`;
}

/** `▕██████░░▏ 152K/167K 91% · compacts at 154K` */
export function contextBar(tokens: number, threshold: ThresholdResult, out?: Output): string {
  const fraction = threshold.effectiveWindow > 0 ? Math.min(1, tokens / threshold.effectiveWindow) : 0;
  const filled = Math.round(fraction * BAR_CELLS);
  const bar = `▕${'█'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}▏`;
  const percent = Math.round(fraction * 100);
  const tail = threshold.autoCompactEnabled ? `compacts at ${formatTokens(threshold.autoCompactAt)}` : 'auto-compact off';
  const text = `${bar} ${formatTokens(tokens)}/${formatTokens(threshold.effectiveWindow)} ${percent}% · ${tail}`;
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

/** Claude Code's folder name without the home prefix: `-home-user-src-shop` → `src-shop`. */
function shortProject(session: SessionSummary): string {
  if (session.cwd) return session.cwd.split('/').filter(Boolean).slice(-2).join('/');
  return session.project;
}

/** Rows, most recent first (the daemon sorts them so). */
export function renderSessionTable(sessions: readonly SessionSummary[], out: Output, now = Date.now()): string[] {
  if (sessions.length === 0) return [out.dim('no sessions yet')];
  const header = `${'SESSION'.padEnd(SESSION_ID_CHARS)}  ${'PROJECT'.padEnd(PROJECT_CHARS)}  ${'TITLE'.padEnd(TITLE_CHARS)}  ${'LAST'.padEnd(7)}  ${'COST'.padStart(7)}  CONTEXT`;
  const rows = sessions.map((session) => {
    const id = session.sessionId.slice(0, SESSION_ID_CHARS).padEnd(SESSION_ID_CHARS);
    const title = truncate(session.title ?? '', TITLE_CHARS);
    const project = truncate(shortProject(session), PROJECT_CHARS);
    const age = formatAge(session.lastActivity, now).padEnd(7);
    const cost = formatCost(session.usage.total.costUsd).padStart(7);
    const gone = session.gone ? out.dim(' (deleted)') : '';
    return `${id}  ${project}  ${title}  ${age}  ${cost}  ${contextBar(session.contextTokens, session.threshold, out)}${gone}`;
  });
  return [out.bold(header), ...rows];
}
