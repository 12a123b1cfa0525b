/**
 * Per-session accounting from indexed entries (DESIGN.md §5, issue 3 item 5). Pure: the daemon
 * passes the entries of one session's main transcript and of its sub-agent transcripts, each in
 * file order, plus the environment the thresholds are read against.
 *
 * Context tokens, as Claude Code's tokenCountWithEstimation counts them:
 *   usage of the last API response on the active conversation (input + cache_creation +
 *   cache_read + output, taken once however many entries the response was split into)
 *   + the rough estimate (tokens.ts) of every active entry after the first entry of that response.
 * "After the first entry" is Claude Code's choice: tool results interleaved between the split
 * entries of the last response were not in its prompt, so they must be counted; the later split
 * entries themselves are counted too (their text is also in output_tokens; Claude Code does the
 * same). Synthetic responses (`<synthetic>`) are skipped. So are responses written before the
 * last boundary (a preserved segment): their usage measured the context before compaction, which
 * is why Claude Code zeroes it on load. With no response after the boundary the whole active
 * conversation is estimated. The manifests' `contextTokens` is the usage part alone.
 */
import type { ThresholdResult, UsageTotals } from '../protocol/sessions.js';
import { activeConversation } from './conversation.js';
import { costOf, DEFAULT_CONTEXT_WINDOW, hasOneMillionSuffix, priceFor, SYNTHETIC_MODEL } from './models.js';
import {
  endOfCompactionOutput,
  type LastExtraction,
  type SinceExtraction,
  sinceExtraction,
} from './since-extraction.js';
import { computeThresholds, type ThresholdEnv } from './thresholds.js';
import type { IndexedEntry, Usage } from './types.js';

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

export interface ModelUsage {
  model: string;
  usage: UsageTotals;
}

export interface ContextBreakdown {
  /** From the last response's usage; the manifests' `contextTokens`. */
  usageTokens: number;
  /** Rough estimate of the active entries after it (or of all of them without a response). */
  estimatedTokens: number;
  /** The first entry of the response the count starts from; null when there is none. */
  anchorUuid: string | null;
  anchorMessageId: string | null;
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

export function emptyTotals(): UsageTotals {
  return {
    input: 0,
    output: 0,
    cacheCreation: 0,
    cacheRead: 0,
    cache5m: 0,
    cache1h: 0,
    assistantMessages: 0,
    costUsd: 0,
  };
}

function addUsage(totals: UsageTotals, usage: Usage): void {
  totals.input += usage.input;
  totals.output += usage.output;
  totals.cacheCreation += usage.cacheCreation;
  totals.cacheRead += usage.cacheRead;
  totals.cache5m += usage.cache5m;
  totals.cache1h += usage.cache1h;
  totals.assistantMessages += 1;
}

export function isApiResponse(entry: IndexedEntry): entry is IndexedEntry & { usage: Usage } {
  return entry.type === 'assistant' && entry.usage !== null && entry.model !== SYNTHETIC_MODEL;
}

/**
 * A sub-agent's response carried by an `agent_progress` entry of the main transcript (parse.ts):
 * spend to count (as a sidechain's, once with the sub-agent file's copy of it), never a turn of
 * the main thread's conversation or context.
 */
export function isNestedResponse(entry: IndexedEntry): entry is IndexedEntry & { usage: Usage } {
  return entry.type === 'progress' && entry.usage !== null && entry.model !== SYNTHETIC_MODEL;
}

/** The bucket a counted response of a file of `kind` goes to: 1.0.x's inline sidechains and nested responses are a sub-agent's. */
export function responseBucket(entry: IndexedEntry, kind: Bucket): Bucket {
  return kind === 'main' && (entry.isSidechain || entry.type === 'progress') ? 'sidechain' : kind;
}

export function contextOfUsage(usage: Usage): number {
  return usage.input + usage.cacheCreation + usage.cacheRead + usage.output;
}

export type Bucket = 'main' | 'sidechain' | 'compaction';
export const BUCKETS: readonly Bucket[] = ['main', 'sidechain', 'compaction'];

/** Usage by where the requests came from; `total` is their sum. */
export type SessionUsage = Record<Bucket | 'total', UsageTotals>;

/** Model → bucket → totals; cost filled in afterwards. */
export type UsageByModel = Map<string, Record<Bucket, UsageTotals>>;

/**
 * One response's final usage: the entry with the largest output_tokens among the entries that
 * share its message.id + requestId, the last one written on a tie. Claude Code writes one entry
 * per content block; until 2.1.x the early ones carry message_start's placeholder output_tokens
 * (1-10) and only the last, written after message_delta, the final figure (DESIGN.md §5).
 * Input and cache fields are the same on every entry. A response whose last entry was never
 * written counts the largest figure seen.
 */
export function isFinalerThan(candidate: Usage, current: Usage): boolean {
  return candidate.output >= current.output;
}

interface Response {
  entry: IndexedEntry & { usage: Usage };
  bucket: Bucket;
}

/** How a response is known across entries and files: message.id + requestId. */
export function responseKey(messageId: string, requestId: string | null): string {
  return `${messageId}:${requestId ?? ''}`;
}

/**
 * Every API response once, keyed by message.id + requestId across the main transcript and the
 * sub-agent files (as ccusage 20 does), with its final usage. Responses without an id count per entry.
 */
function collectUsage(
  main: readonly IndexedEntry[],
  sidechains: readonly IndexedEntry[],
  compaction: readonly IndexedEntry[],
): UsageByModel {
  const responses = new Map<string | number, Response>();
  let unkeyed = 0;
  const add = (entries: readonly IndexedEntry[], file: Bucket): void => {
    for (const entry of entries) {
      if (!isApiResponse(entry) && !isNestedResponse(entry)) continue;
      // Without an id each entry is its own response (a number never equals a string key).
      const key = entry.messageId === null ? unkeyed++ : responseKey(entry.messageId, entry.requestId);
      const seen = responses.get(key);
      const bucket = responseBucket(entry, file);
      if (seen === undefined) responses.set(key, { entry, bucket });
      else if (isFinalerThan(entry.usage, seen.entry.usage)) seen.entry = entry;
    }
  };
  add(main, 'main');
  add(sidechains, 'sidechain');
  add(compaction, 'compaction');
  const byModel: UsageByModel = new Map();
  for (const { entry, bucket } of responses.values()) {
    const model = entry.model ?? '';
    let row = byModel.get(model);
    if (!row) byModel.set(model, (row = { main: emptyTotals(), sidechain: emptyTotals(), compaction: emptyTotals() }));
    addUsage(row[bucket], entry.usage);
  }
  return byModel;
}

function sumTotals(parts: readonly UsageTotals[]): UsageTotals {
  const sum = emptyTotals();
  for (const part of parts) {
    sum.input += part.input;
    sum.output += part.output;
    sum.cacheCreation += part.cacheCreation;
    sum.cacheRead += part.cacheRead;
    sum.cache5m += part.cache5m;
    sum.cache1h += part.cache1h;
    sum.assistantMessages += part.assistantMessages;
    sum.costUsd = sum.costUsd === null || part.costUsd === null ? null : sum.costUsd + part.costUsd;
  }
  return sum;
}

/** Prices each model's totals; a model without a price makes every sum that includes it null. */
export function priceUsage(byModel: UsageByModel): { usage: SessionUsage; byModel: ModelUsage[] } {
  const parts: Record<Bucket, UsageTotals[]> = { main: [], sidechain: [], compaction: [] };
  const models: ModelUsage[] = [];
  for (const [model, row] of byModel) {
    const price = priceFor(model === '' ? null : model);
    for (const bucket of BUCKETS) {
      const totals = row[bucket];
      totals.costUsd = totals.assistantMessages === 0 ? 0 : price === null ? null : costOf(totals, price);
    }
    models.push({ model, usage: sumTotals(BUCKETS.map((bucket) => row[bucket])) });
  }
  // Summed in model-name order, so that the costs add up the same however the totals were built
  // (the persisted aggregates meet the models in another order than a computation from scratch).
  for (const [, row] of [...byModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const bucket of BUCKETS) parts[bucket].push(row[bucket]);
  }
  const main = sumTotals(parts.main);
  const sidechain = sumTotals(parts.sidechain);
  const compaction = sumTotals(parts.compaction);
  return { usage: { main, sidechain, compaction, total: sumTotals([main, sidechain, compaction]) }, byModel: models };
}

export interface ContextCount {
  breakdown: ContextBreakdown;
  /** The final usage of the response the count starts from, null without one. */
  anchorUsage: Usage | null;
  /** Index in the active conversation of that response's first entry, -1 without one. */
  first: number;
  /** Entries of the last response on the active conversation (any side of the boundary). */
  lastResponse: IndexedEntry[];
}

export function countContext(active: readonly IndexedEntry[], boundary: IndexedEntry | null): ContextCount {
  let anchorIndex = -1;
  for (let i = active.length - 1; i >= 0; i--) {
    const entry = active[i];
    // Entries before the boundary in the file form the preserved segment (see the file comment).
    if (entry && isApiResponse(entry) && (boundary === null || entry.offset > boundary.offset)) {
      anchorIndex = i;
      break;
    }
  }
  const anchor = active[anchorIndex];
  let first = anchorIndex;
  if (anchor?.messageId) {
    first = active.findIndex((entry) => entry.type === 'assistant' && entry.messageId === anchor.messageId);
  }
  let estimatedTokens = 0;
  for (let i = first + 1; i < active.length; i++) estimatedTokens += active[i]?.estTokens ?? 0;
  const firstEntry = active[first];
  const usage = anchor === undefined ? null : finalUsageOf(active, first, anchorIndex);
  return {
    breakdown: {
      usageTokens: usage === null ? 0 : contextOfUsage(usage),
      estimatedTokens,
      anchorUuid: firstEntry?.uuid ?? null,
      anchorMessageId: anchor?.messageId ?? null,
    },
    anchorUsage: usage,
    first,
    lastResponse: lastResponseEntries(active),
  };
}

/** The final usage of the response whose entries lie between `first` and `last` (see isFinalerThan). */
function finalUsageOf(active: readonly IndexedEntry[], first: number, last: number): Usage | null {
  const anchor = active[last];
  let best: Usage | null = null;
  for (let i = first; i <= last; i++) {
    const entry = active[i];
    if (!entry || !isApiResponse(entry)) continue;
    if (anchor?.messageId !== null && (entry.messageId !== anchor?.messageId || entry.requestId !== anchor.requestId))
      continue;
    if (best === null || isFinalerThan(entry.usage, best)) best = entry.usage;
  }
  return best;
}

function lastResponseEntries(active: readonly IndexedEntry[]): IndexedEntry[] {
  const last = active.findLast((entry) => entry.type === 'assistant' && entry.model !== SYNTHETIC_MODEL);
  if (!last) return [];
  if (last.messageId === null) return [last];
  return active.filter((entry) => entry.type === 'assistant' && entry.messageId === last.messageId);
}

/**
 * The context a compaction left: Claude Code's own count when the boundary records it, else the
 * count of the active conversation right after the compaction's own entries, before the next
 * prompt or response.
 */
export function contextAfterCompaction(main: readonly IndexedEntry[], boundary: IndexedEntry): number {
  const postTokens = boundary.compact?.postTokens ?? null;
  if (postTokens !== null) return postTokens;
  const after = activeConversation(main.slice(0, endOfCompactionOutput(main, boundary)));
  const { breakdown } = countContext(after.entries, after.boundary);
  return breakdown.usageTokens + breakdown.estimatedTokens;
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

/**
 * The context right after a compaction, when the boundary does not record it (Claude Code
 * writes only preTokens): the prompt of the first response after the boundary (input + cache
 * reads and writes), taken from that response's final entry. Null until one was written.
 */
function promptTokensAfter(mainThread: readonly IndexedEntry[], boundary: IndexedEntry): number | null {
  const first = mainThread.find((entry) => entry.offset > boundary.offset && isApiResponse(entry));
  if (first === undefined || first.usage === null) return null;
  let usage = first.usage;
  if (first.messageId !== null) {
    // Its other entries may be interleaved with tool results (parallel tool calls).
    for (const entry of mainThread) {
      if (entry.offset <= first.offset || entry.messageId !== first.messageId || entry.requestId !== first.requestId)
        continue;
      if (entry.usage !== null && isFinalerThan(entry.usage, usage)) usage = entry.usage;
    }
  }
  return usage.input + usage.cacheCreation + usage.cacheRead;
}
