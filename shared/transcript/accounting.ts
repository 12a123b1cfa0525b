/**
 * Per-session accounting from indexed entries (DESIGN.md §5, issue 3 item 5). Pure: the daemon
 * passes the entries of one session's main transcript and of its sub-agent transcripts, each in
 * file order, plus the environment the thresholds are read against. This file puts the session's
 * figures together, and names it (title, place, activity span); the context is counted in
 * context-count.ts, the spend in response-usage.ts.
 */
import type { ThresholdResult } from '../protocol/sessions.js';
import { type ContextBreakdown, contextAfterCompaction, countContext, promptTokensAfter } from './context-count.js';
import { activeConversation } from './conversation.js';
import { DEFAULT_CONTEXT_WINDOW, hasOneMillionSuffix } from './models.js';
import { collectUsage, isApiResponse, type ModelUsage, priceUsage, type SessionUsage } from './response-usage.js';
import { type LastExtraction, type SinceExtraction, sinceExtraction } from './since-extraction.js';
import { computeThresholds, type ThresholdEnv } from './thresholds.js';
import type { IndexedEntry } from './types.js';

export type { LastExtraction } from './since-extraction.js';

export interface AccountingOptions {
  env: ThresholdEnv;
  lastExtraction?: LastExtraction | null;
  /** Passed to computeThresholds (0: no output reserve). */
  reserveOutputTokens?: number;
  /** The model as configured (for example with `[1m]`); wins over the transcript's for the window. */
  configuredModel?: string | null;
  /** Titles of `summary` entries by leafUuid, from any file of the project (see sessionTitle). */
  leafTitles?: ReadonlyMap<string, string>;
  /**
   * Entries of the session's compaction agents (`agent-acompact-*` files, 2.1.3x): the summary
   * requests of compaction, counted in their own bucket rather than as sub-agents.
   */
  compactionEntries?: readonly IndexedEntry[];
}

export interface SessionAccounting {
  contextTokens: number;
  context: ContextBreakdown;
  threshold: ThresholdResult;
  usage: SessionUsage;
  /** Total usage per model, in order of first use. */
  byModel: ModelUsage[];
  compactions: {
    count: number;
    lastTrigger: string | null;
    lastPreTokens: number | null;
    lastPostTokens: number | null;
  };
  /** Since the later of the last extraction and the last compaction (see since-extraction.ts). */
  sinceExtraction: SinceExtraction;
  /** The last response on the active conversation called tools (no natural break yet). */
  lastResponseHasToolCalls: boolean;
  /** Latest non-synthetic model of the main thread. */
  model: string | null;
  cwd: string | null;
  gitBranch: string | null;
  /** See sessionTitle. */
  title: string | null;
  firstActivity: string | null;
  lastActivity: string | null;
  entries: { main: number; sidechain: number; compaction: number; active: number };
}

function latest<T>(entries: readonly IndexedEntry[], pick: (entry: IndexedEntry) => T | null): T | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    const value = entry ? pick(entry) : null;
    if (value !== null) return value;
  }
  return null;
}

/**
 * What people know a session by, as Claude Code's own session list names it: the latest custom
 * title, else the latest AI title, else the summary whose leaf is the latest message of this
 * session that one names, else the first typed prompt, else the first slash command with its
 * arguments (what `/resume` shows for a session of commands only). Null when there is neither.
 */
export function sessionTitle(
  mainThread: readonly IndexedEntry[],
  leafTitles: ReadonlyMap<string, string> = new Map(),
): string | null {
  const titleOf = (kind: string) =>
    latest(mainThread, (entry) => (entry.title?.kind === kind ? entry.title.value : null));
  const summary =
    leafTitles.size === 0
      ? null
      : latest(mainThread, (entry) => (entry.uuid === null ? null : (leafTitles.get(entry.uuid) ?? null)));
  const first = (kind: string) => mainThread.find((entry) => entry.title?.kind === kind)?.title?.value ?? null;
  return titleOf('custom') ?? titleOf('ai') ?? summary ?? first('prompt') ?? first('command');
}

/** Claude Code's timestamps (`2026-01-05T10:28:29.607Z`): these compare as strings. */
const CANONICAL_TIMESTAMP_LENGTH = 24;

/** A string that orders as the time does: the timestamp itself when canonical, else its ISO form. */
export function timeKey(timestamp: string): string | null {
  if (timestamp.length === CANONICAL_TIMESTAMP_LENGTH && timestamp[10] === 'T' && timestamp[23] === 'Z')
    return timestamp;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return null;
  const iso = new Date(at).toISOString();
  return iso.length === CANONICAL_TIMESTAMP_LENGTH ? iso : null;
}

function activitySpan(groups: readonly (readonly IndexedEntry[])[]): { first: string | null; last: string | null } {
  let first: { key: string; text: string } | null = null;
  let last: { key: string; text: string } | null = null;
  for (const entries of groups) {
    for (const entry of entries) {
      if (entry.timestamp === null) continue;
      const key = timeKey(entry.timestamp);
      if (key === null) continue;
      if (first === null || key < first.key) first = { key, text: entry.timestamp };
      if (last === null || key > last.key) last = { key, text: entry.timestamp };
    }
  }
  return { first: first?.text ?? null, last: last?.text ?? null };
}

/**
 * A model for the thresholds: the configured one, else the transcript's. A response whose
 * prompt alone passed 200K proves the session runs with the 1M window, which the transcript's
 * bare model id cannot say, so `[1m]` is added then.
 */
export function thresholdModel(
  model: string | null,
  usageTokens: number,
  configured: string | null | undefined,
): string {
  const name = configured ?? model ?? '';
  if (usageTokens > DEFAULT_CONTEXT_WINDOW && !hasOneMillionSuffix(name)) return `${name}[1m]`;
  return name;
}

export function computeSessionAccounting(
  mainEntries: readonly IndexedEntry[],
  sidechainEntries: readonly IndexedEntry[],
  options: AccountingOptions,
): SessionAccounting {
  const conversation = activeConversation(mainEntries);
  const { breakdown, lastResponse } = countContext(conversation.entries, conversation.boundary);
  const contextTokens = breakdown.usageTokens + breakdown.estimatedTokens;
  const compactionEntries = options.compactionEntries ?? [];
  const priced = priceUsage(collectUsage(mainEntries, sidechainEntries, compactionEntries));
  const mainThread = mainEntries.filter((entry) => !entry.isSidechain);
  const model = latest(mainThread, (entry) => (isApiResponse(entry) ? entry.model : null));
  const boundaries = mainThread.filter((entry) => entry.compact !== null);
  const lastBoundaryEntry = boundaries[boundaries.length - 1];
  const lastBoundary = lastBoundaryEntry?.compact ?? null;
  const span = activitySpan([mainEntries, sidechainEntries, compactionEntries]);
  // Without a main transcript (only sub-agent files survive) the sub-agents still say where.
  const located = mainThread.length > 0 ? mainThread : sidechainEntries;
  const threshold = computeThresholds({
    model: thresholdModel(model, breakdown.usageTokens, options.configuredModel),
    tokens: contextTokens,
    env: options.env,
    reserveOutputTokens: options.reserveOutputTokens,
  });
  return {
    contextTokens,
    context: breakdown,
    threshold,
    usage: priced.usage,
    byModel: priced.byModel,
    compactions: {
      count: boundaries.length,
      lastTrigger: lastBoundary?.trigger ?? null,
      lastPreTokens: lastBoundary?.preTokens ?? null,
      lastPostTokens:
        lastBoundary?.postTokens ??
        (lastBoundaryEntry === undefined ? null : promptTokensAfter(mainThread, lastBoundaryEntry)),
    },
    sinceExtraction: sinceExtraction(
      conversation.entries,
      mainEntries,
      contextTokens,
      options.lastExtraction,
      conversation.boundary,
      (boundary) => contextAfterCompaction(mainEntries, boundary),
    ),
    lastResponseHasToolCalls: lastResponse.some((entry) => entry.toolUses.length > 0),
    model,
    cwd: latest(located, (entry) => entry.cwd),
    gitBranch: latest(located, (entry) => entry.gitBranch),
    title: sessionTitle(mainThread, options.leafTitles),
    firstActivity: span.first,
    lastActivity: span.last,
    entries: {
      main: mainEntries.length,
      sidechain: sidechainEntries.length,
      compaction: compactionEntries.length,
      active: conversation.entries.length,
    },
  };
}
