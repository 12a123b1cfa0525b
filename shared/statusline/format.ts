/**
 * The one-line context string that every client shows (memctl statusline, the Neovim and VS Code
 * plugins): how much of the context is used, as a share of where Claude Code compacts (its
 * auto-compact threshold, or the window when it compacts only once the API refuses, reactive
 * mode). The bar and the number always say the same share, used (issue 29): every client reads it
 * so, and the room left is the tokens figure beside it.
 *
 *   ▕██░░░░░░▏ 24% used of auto-compact · 131K left · 2 compactions · mem 3m · $1.23
 *   ▕░░░░░░░░▏ 3% context used · 967K left · mem 3m · $0.42
 *   ▕██░░░░░░▏ 24% used of auto-compact · 5h 42% ↻1h52m · 131K left · cache 4m · $1.23
 *   ▕░░░░░░░░▏ 3% context used · 967K left · mem 3m · $0.42 · 2 deleted, not kept
 *   Opus 4.8 (high) · ▕░░░░░░░░▏ 3% context used · 967K left · mem 3m · $0.42
 *
 * Segments go, least useful first, until the line fits its width; the percentage always stays.
 * A line built without memd's figures ends in a note saying so (`no memd`). The Neovim plugin
 * renders the same string in Lua (client/nvim/lua/memd/format.lua). Pure.
 */
import type { PlanWindow, PromptCacheReport } from '../protocol/reports.js';
import type { ThresholdResult, ThresholdState } from '../protocol/sessions.js';

/** Cells between the bar's ends: 12.5 % steps, short enough for a status line. */
export const STATUS_BAR_CELLS = 8;
/** The width assumed when the terminal's is unknown (`COLUMNS` unset): Claude Code's own footer fits in it. */
export const DEFAULT_STATUS_COLUMNS = 120;

export interface StatusFacts {
  /** Null when the context is unknown (an older Claude Code without context_window, and no memd). */
  threshold: ThresholdResult | null;
  /** Compactions so far; null when unknown. */
  compactions: number | null;
  /** Epoch ms of the last session-memory extraction; null before the first; undefined when unknown. */
  memoryAt: number | null | undefined;
  /** The session's cost in USD; null when unknown. */
  costUsd: number | null;
  /** Where the figures fall short (`no memd`): shown dim at the end. */
  note: string | null;
  /** The last compaction's survival score (sessions.get's `lastCompaction`, issue 32); absent when none was scored. */
  lastKept?: { kept: number; total: number } | undefined;
  /** Sessions Claude Code deleted lately that memd did not hold (sessions.get's `deletedNotHeld`); absent when none. */
  deletedNotHeld?: number | undefined;
  /** Claude Code's 5-hour plan window (its `rate_limits.five_hour`); absent when it reported none. */
  fiveHour?: PlanWindow | undefined;
  /** Claude Code's prompt cache (its `prompt_cache`); absent when it reported none. */
  cache?: CacheFacts | undefined;
  /** The model and the reasoning effort it runs at; absent when the effort is unknown. */
  model?: ModelFacts | undefined;
}

export interface ModelFacts {
  /** The model id (`claude-opus-4-8[1m]`); null when unknown. */
  id: string | null;
  /** Claude Code's `effort.level`: `low` … `max`. */
  effort: string;
}

export interface CacheFacts {
  warm: boolean | null;
  /** Epoch ms the cache goes cold; null when unknown. */
  expiresAt: number | null;
  /** Claude Code's first cause of the last miss (`tools_changed`, …); null when none was given. */
  lastMissCause: string | null;
}

export interface StatusStyle {
  color: boolean;
  /** Visible characters the line may take. */
  columns: number;
  now: number;
}

/** `131K`, `1.2M`, `950`. */
export function compactTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}K`;
  return String(Math.max(0, Math.round(tokens)));
}

/** `45s`, `3m`, `2h`, `4d`: an age in the fewest characters. */
export function compactAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** `45s`, `52m`, `1h52m`, `3d2h`: a time to come, in two units from an hour on. */
export function compactDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
}

/**
 * The plan and cache facts of a report, Claude Code's stdin's or the `reported` memd kept: the
 * 5-hour window as reported, the cache with the first cause of its last miss.
 */
export function planFacts(
  fiveHour: PlanWindow | undefined,
  cache: PromptCacheReport | undefined,
): Pick<StatusFacts, 'fiveHour' | 'cache'> {
  return {
    ...(fiveHour === undefined ? {} : { fiveHour }),
    ...(cache === undefined
      ? {}
      : {
          cache: {
            warm: cache.warm ?? null,
            expiresAt: cache.expiresAt ?? null,
            lastMissCause: cache.lastMissCauses?.[0] ?? null,
          },
        }),
  };
}

/**
 * `5h 42% ↻1h52m`: the 5-hour window's use and the time to its reset; null once the reset has
 * passed (the share reported is of a window that is over, and the next report will say the new one).
 */
export function fiveHourText(window: PlanWindow, now: number): string | null {
  if (window.resetsAt !== null && window.resetsAt <= now) return null;
  const used = `5h ${Math.round(Math.max(0, window.usedPercent))}%`;
  return window.resetsAt === null ? used : `${used} ↻${compactDuration(window.resetsAt - now)}`;
}

/** Claude Code's miss causes (2.1.260) in a word; another cause is shown as it came. */
const MISS_CAUSE_WORDS: Record<string, string> = {
  system_prompt_changed: 'system prompt',
  tools_changed: 'tools',
  model_changed: 'model',
  messages_rewritten: 'history',
  ttl_expired_5m: 'ttl 5m',
  ttl_expired_1h: 'ttl 1h',
  likely_server_side: 'server',
  unknown: '?',
};

/**
 * `cache 4m` while warm (the time left), `cache cold` once it is not, with the cause of the last
 * miss when Claude Code named one, `cache cold: tools`; past `expiresAt` it is `cache cold: expired`
 * (memd's reading, estimated: Claude Code re-runs the status line then, but an old line may be on screen).
 */
export function cacheText(cache: CacheFacts, now: number): string | null {
  const expired = cache.expiresAt !== null && cache.expiresAt <= now;
  if (cache.warm === true && !expired)
    return cache.expiresAt === null ? 'cache warm' : `cache ${compactDuration(cache.expiresAt - now)}`;
  if (cache.warm === null && cache.expiresAt === null) return null;
  // Past its expiry the cache went cold by idling: the last miss's cause is an older event.
  if (expired) return 'cache cold: expired';
  const cause = cache.lastMissCause === null ? null : (MISS_CAUSE_WORDS[cache.lastMissCause] ?? cache.lastMissCause);
  return cause === null ? 'cache cold' : `cache cold: ${cause}`;
}

/** `claude-opus-4-8[1m]` → `Opus 4.8`, `claude-sonnet-4-5-20250929` → `Sonnet 4.5`; any other id as it is. */
export function modelName(id: string): string {
  const match = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?(?:\[1m\])?$/.exec(id);
  if (match === null) return id;
  const [, family = '', major = '', minor] = match;
  return `${family.charAt(0).toUpperCase()}${family.slice(1)} ${major}${minor === undefined ? '' : `.${minor}`}`;
}

/**
 * `Opus 4.8 (high)`: the model with the reasoning effort Claude Code runs it at (issue 31), or
 * `effort high` when the model is unknown. Only with an effort: the line showed no model before,
 * and the effort is what it adds.
 */
export function modelText(model: ModelFacts): string {
  return model.id === null ? `effort ${model.effort}` : `${modelName(model.id)} (${model.effort})`;
}

/** At or above these shares of the 5-hour window the segment turns yellow, then red. */
const LIMIT_WARNING_PERCENT = 70;
const LIMIT_ERROR_PERCENT = 90;

/**
 * Claude Code compacts the session only once the API refuses a request, at the window (reactive
 * mode, auto-compaction on): there is no threshold ahead of the window to count down to. A result
 * without `autoCompactMode` (an older memd) is threshold mode.
 */
export function compactsWhenRefused(threshold: ThresholdResult): boolean {
  return threshold.autoCompactEnabled && threshold.autoCompactMode === 'reactive';
}

/**
 * The percentage, always the share USED, as the bar draws it: "N% used of auto-compact" when
 * Claude Code compacts at a threshold, "N% context used" (Claude Code's own words) when it compacts
 * only once the API refuses (reactive mode; an answer without `autoCompactMode`, from an older
 * memd, is threshold mode), "N% of window used" with auto-compaction off. Claude Code's threshold
 * meter counts down ("N% until auto-compact"); memd says the same fact one way on every surface,
 * so that a bar never disagrees with its number (issue 29).
 */
export function percentText(threshold: ThresholdResult): string {
  const used = Math.max(0, threshold.percentUsed);
  if (!threshold.autoCompactEnabled) return `${used}% of window used`;
  if (compactsWhenRefused(threshold)) return `${used}% context used`;
  return `${used}% used of auto-compact`;
}

export function statusBar(threshold: ThresholdResult): string {
  const used = Math.min(100, Math.max(0, threshold.percentUsed));
  const filled = Math.round((used / 100) * STATUS_BAR_CELLS);
  return `▕${'█'.repeat(filled)}${'░'.repeat(STATUS_BAR_CELLS - filled)}▏`;
}

/** SGR colours by threshold state: green, yellow, red, red, bold red. */
const COLOR_BY_STATE: Record<ThresholdState, string> = {
  ok: '32',
  warning: '33',
  error: '31',
  autocompact: '31',
  blocking: '1;31',
};
const DIM = '2';

interface Segment {
  text: string;
  /** Higher goes last when the line is too wide. */
  keep: number;
  color?: string;
  /** Joined to the one before by a space, not a separator (the percentage after its bar). */
  tight?: boolean;
}

function segments(facts: StatusFacts, now: number): Segment[] {
  const list: Segment[] = [];
  const { threshold } = facts;
  // Where Claude Code's own lines put the model: first. It goes after the bar, before anything else.
  if (facts.model !== undefined) list.push({ text: modelText(facts.model), keep: 1.5 });
  if (threshold !== null) {
    const color = COLOR_BY_STATE[threshold.state];
    list.push({ text: statusBar(threshold), keep: 1, color });
    list.push({ text: percentText(threshold), keep: 9, color, tight: true });
  }
  const fiveHour = facts.fiveHour === undefined ? null : fiveHourText(facts.fiveHour, now);
  if (fiveHour !== null && facts.fiveHour !== undefined) {
    const used = facts.fiveHour.usedPercent;
    const color = used >= LIMIT_ERROR_PERCENT ? '31' : used >= LIMIT_WARNING_PERCENT ? '33' : undefined;
    list.push({ text: fiveHour, keep: 8, ...(color === undefined ? {} : { color }) });
  }
  if (threshold !== null) list.push({ text: `${compactTokens(threshold.tokensLeft)} left`, keep: 6 });
  const cache = facts.cache === undefined ? null : cacheText(facts.cache, now);
  if (cache !== null) list.push({ text: cache, keep: 5, ...(facts.cache?.warm === true ? {} : { color: '33' }) });
  if (facts.compactions !== null)
    list.push({ text: `${facts.compactions} compaction${facts.compactions === 1 ? '' : 's'}`, keep: 2 });
  // Issue 32: what the last compaction kept of the session's facts; yellow when it lost any.
  if (facts.lastKept !== undefined) {
    const { kept, total } = facts.lastKept;
    list.push({ text: `last compaction kept ${kept}/${total}`, keep: 1.8, ...(kept < total ? { color: '33' } : {}) });
  }
  if (facts.memoryAt !== undefined)
    list.push({
      text: facts.memoryAt === null ? 'mem -' : `mem ${compactAge(now - facts.memoryAt)}`,
      keep: 3,
      color: DIM,
    });
  if (facts.costUsd !== null) list.push({ text: `$${facts.costUsd.toFixed(2)}`, keep: 4 });
  // Issue 31: the least useful segment, the first to go; `memctl archive deleted` says the rest.
  if (facts.deletedNotHeld !== undefined && facts.deletedNotHeld > 0)
    list.push({ text: `${facts.deletedNotHeld} deleted, not kept`, keep: 0, color: '33' });
  if (facts.note !== null) list.push({ text: facts.note, keep: 7, color: DIM });
  return list;
}

const SEPARATOR = ' · ';

function joined(list: readonly Segment[], paint: (segment: Segment) => string): string {
  return list
    .map(
      (segment, i) =>
        (i === 0 ? '' : segment.tight === true && list[i - 1]?.keep === 1 ? ' ' : SEPARATOR) + paint(segment),
    )
    .join('');
}

/** The line, within `style.columns` visible characters as far as its most useful segment allows. */
export function formatStatusLine(facts: StatusFacts, style: StatusStyle): string {
  let list = segments(facts, style.now);
  const width = (candidate: readonly Segment[]) => [...joined(candidate, (segment) => segment.text)].length;
  while (list.length > 1 && width(list) > style.columns) {
    const lowest = list.reduce((low, segment) => (segment.keep < low.keep ? segment : low));
    list = list.filter((segment) => segment !== lowest);
  }
  return joined(list, (segment) =>
    style.color && segment.color !== undefined ? `\x1b[${segment.color}m${segment.text}\x1b[0m` : segment.text,
  );
}
