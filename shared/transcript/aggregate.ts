/**
 * A session's accounting as a persisted aggregate, folded entry by entry (issue 15): the daemon
 * keeps it beside the index, updated in the transaction that writes the entries, so that reading
 * a session costs one row and an append costs O(appended entries). `accountingOf` turns it into
 * the figures `computeSessionAccounting` gives from all entries; the property test holds the two
 * equal after any sequence of appends, truncations, replacements and restarts.
 *
 * What cannot be folded is recomputed by the caller from the index: the context after a compact
 * boundary or a rewind (aggregate-context.ts), and everything after a file was truncated or
 * replaced (its old entries' share cannot be taken back). Usage is deduplicated by response
 * across the session's files through a ResponseBook the caller persists.
 */
import type { UsageTotals } from '../protocol/sessions.js';
import { type SessionAccounting, thresholdModel, timeKey } from './accounting.js';
import {
  type ContextState,
  contextFromScratch,
  contextTokensOf,
  extendContext,
  followCompactionOutput,
  markOf,
  toolCallsOf,
} from './aggregate-context.js';
import { contextOfUsage } from './context-count.js';
import {
  BUCKETS,
  type Bucket,
  emptyTotals,
  isApiResponse,
  isFinalerThan,
  isNestedResponse,
  priceUsage,
  responseBucket,
  responseKey,
  type UsageByModel,
} from './response-usage.js';
import type { LastExtraction } from './since-extraction.js';
import { computeThresholds, type ThresholdEnv } from './thresholds.js';
import type { IndexedEntry, Usage } from './types.js';

export type { ContextState } from './aggregate-context.js';
export type { Bucket } from './response-usage.js';

/** The bump invalidates stored aggregates of another shape: they are computed again. */
export const AGGREGATE_VERSION = 2;

/** One response as counted: where it was first seen, and the usage of its finalest entry. */
export interface CountedResponse {
  bucket: Bucket;
  model: string;
  usage: Usage;
}

/** The responses counted so far, by responseKey: persisted by the caller beside the aggregate. */
export interface ResponseBook {
  get(key: string): CountedResponse | undefined;
  set(key: string, response: CountedResponse): void;
}

type Counts = Omit<UsageTotals, 'costUsd'>;

interface Stamp {
  key: string;
  text: string;
}

export interface AggregateState {
  version: number;
  /** Model → bucket → totals, unpriced (prices are applied when read). */
  usage: Record<string, Record<Bucket, Counts>>;
  entries: Record<Bucket, number>;
  first: Stamp | null;
  last: Stamp | null;
  /** Entries of the main transcript outside inline sidechains. */
  mainThread: number;
  model: string | null;
  cwd: string | null;
  gitBranch: string | null;
  /** The latest cwd and branch of each sub-agent file by path: where a session without a main thread is. */
  agents: Record<string, { cwd: string | null; gitBranch: string | null }>;
  titles: { custom: string | null; ai: string | null; prompt: string | null; command?: string | null };
  compactions: {
    count: number;
    lastTrigger: string | null;
    lastPreTokens: number | null;
    /** As the last boundary records it. */
    lastPostTokens: number | null;
    /** Offset of the last boundary, and the first response after it (its prompt is the context after). */
    lastOffset: number | null;
    after: { messageId: string | null; requestId: string | null; usage: Usage } | null;
  };
  /** Null until counted from scratch (see aggregate-context.ts). */
  context: ContextState | null;
}

export function emptyAggregate(): AggregateState {
  return {
    version: AGGREGATE_VERSION,
    usage: {},
    entries: { main: 0, sidechain: 0, compaction: 0 },
    first: null,
    last: null,
    mainThread: 0,
    model: null,
    cwd: null,
    gitBranch: null,
    agents: {},
    titles: { custom: null, ai: null, prompt: null, command: null },
    compactions: {
      count: 0,
      lastTrigger: null,
      lastPreTokens: null,
      lastPostTokens: null,
      lastOffset: null,
      after: null,
    },
    context: {
      leaf: null,
      anchor: null,
      estimated: 0,
      tail: [],
      tailResponses: [],
      tailPure: false,
      extractionMark: null,
      extractionContext: 0,
      boundaryOffset: null,
      boundaryContext: 0,
      calls: [],
      segmentAnchor: null,
      inCompactionOutput: false,
      extraction: null,
      lastResponse: null,
    },
  };
}

function emptyCounts(): Counts {
  const { costUsd: _cost, ...counts } = emptyTotals();
  return counts;
}

function addCounts(state: AggregateState, model: string, bucket: Bucket, usage: Usage, sign: 1 | -1): void {
  let row = state.usage[model];
  if (row === undefined)
    state.usage[model] = row = { main: emptyCounts(), sidechain: emptyCounts(), compaction: emptyCounts() };
  const counts = row[bucket];
  counts.input += sign * usage.input;
  counts.output += sign * usage.output;
  counts.cacheCreation += sign * usage.cacheCreation;
  counts.cacheRead += sign * usage.cacheRead;
  counts.cache5m += sign * usage.cache5m;
  counts.cache1h += sign * usage.cache1h;
  counts.assistantMessages += sign;
}

function countResponse(
  state: AggregateState,
  entry: IndexedEntry & { usage: Usage },
  bucket: Bucket,
  book: ResponseBook,
): void {
  const model = entry.model ?? '';
  if (entry.messageId === null) {
    addCounts(state, model, bucket, entry.usage, 1);
    return;
  }
  const key = responseKey(entry.messageId, entry.requestId);
  const seen = book.get(key);
  if (seen === undefined) {
    addCounts(state, model, bucket, entry.usage, 1);
    book.set(key, { bucket, model, usage: entry.usage });
  } else if (isFinalerThan(entry.usage, seen.usage)) {
    // The bucket stays the one it was first seen in; model and usage are the finalest entry's.
    addCounts(state, seen.model, seen.bucket, seen.usage, -1);
    addCounts(state, model, seen.bucket, entry.usage, 1);
    book.set(key, { bucket: seen.bucket, model, usage: entry.usage });
  }
}

function stampActivity(state: AggregateState, timestamp: string | null): void {
  if (timestamp === null) return;
  const key = timeKey(timestamp);
  if (key === null) return;
  if (state.first === null || key < state.first.key) state.first = { key, text: timestamp };
  if (state.last === null || key > state.last.key) state.last = { key, text: timestamp };
}

/** The main thread's facts: model, place, titles, compactions and the context. */
function foldMainThread(state: AggregateState, entry: IndexedEntry): void {
  state.mainThread += 1;
  if (isApiResponse(entry) && entry.model !== null) state.model = entry.model;
  if (entry.cwd !== null) state.cwd = entry.cwd;
  if (entry.gitBranch !== null) state.gitBranch = entry.gitBranch;
  const title = entry.title;
  if (title?.kind === 'custom') state.titles.custom = title.value;
  else if (title?.kind === 'ai') state.titles.ai = title.value;
  else if (title?.kind === 'prompt' && state.titles.prompt === null) state.titles.prompt = title.value;
  // Optional: states saved before issue 28 lack it; their files are read again (migration 19).
  else if (title?.kind === 'command' && (state.titles.command ?? null) === null) state.titles.command = title.value;
  const compactions = state.compactions;
  if (entry.compact !== null) {
    compactions.count += 1;
    compactions.lastTrigger = entry.compact.trigger;
    compactions.lastPreTokens = entry.compact.preTokens;
    compactions.lastPostTokens = entry.compact.postTokens;
    compactions.lastOffset = entry.offset;
    compactions.after = null;
  } else if (compactions.lastOffset !== null && entry.offset > compactions.lastOffset && entry.usage !== null) {
    const after = compactions.after;
    if (after === null) {
      if (isApiResponse(entry))
        compactions.after = { messageId: entry.messageId, requestId: entry.requestId, usage: entry.usage };
    } else if (
      after.messageId !== null &&
      entry.messageId === after.messageId &&
      entry.requestId === after.requestId &&
      isFinalerThan(entry.usage, after.usage)
    ) {
      after.usage = entry.usage;
    }
  }
  if (
    state.context !== null &&
    entry.uuid !== null &&
    !extendContext(state.context, entry as IndexedEntry & { uuid: string })
  )
    state.context = null;
  if (state.context !== null) followCompactionOutput(state.context, entry);
}

/**
 * Folds entries appended to one of the session's files, in file order. `kind` is the file's
 * bucket; `path` names a sub-agent file. The context becomes null when it needs counting again.
 */
export function foldEntries(
  state: AggregateState,
  entries: readonly IndexedEntry[],
  kind: Bucket,
  path: string,
  book: ResponseBook,
): void {
  for (const entry of entries) {
    state.entries[kind] += 1;
    stampActivity(state, entry.timestamp);
    if (isApiResponse(entry) || isNestedResponse(entry)) countResponse(state, entry, responseBucket(entry, kind), book);
    if (kind === 'main') {
      if (!entry.isSidechain) foldMainThread(state, entry);
    } else if (kind === 'sidechain' && (entry.cwd !== null || entry.gitBranch !== null)) {
      const agent = (state.agents[path] ??= { cwd: null, gitBranch: null });
      if (entry.cwd !== null) agent.cwd = entry.cwd;
      if (entry.gitBranch !== null) agent.gitBranch = entry.gitBranch;
    }
  }
}

export interface SessionFileEntries {
  kind: Bucket;
  path: string;
  entries: readonly IndexedEntry[];
}

/**
 * The aggregate of a session counted from all of its files: the main transcript first, then the
 * sub-agent files by path, then the compaction agents' (the order accounting.ts reads them in).
 */
export function aggregateFromScratch(
  files: readonly SessionFileEntries[],
  last: LastExtraction | null | undefined,
  book: ResponseBook,
): AggregateState {
  const state = emptyAggregate();
  state.context = null;
  for (const kind of BUCKETS) {
    for (const file of files) if (file.kind === kind) foldEntries(state, file.entries, kind, file.path, book);
  }
  state.context = contextFromScratch(files.find((file) => file.kind === 'main')?.entries ?? [], last);
  return state;
}

/** The figures of SessionAccounting a summary reports. */
export type AggregateAccounting = Pick<
  SessionAccounting,
  | 'contextTokens'
  | 'threshold'
  | 'usage'
  | 'compactions'
  | 'sinceExtraction'
  | 'lastResponseHasToolCalls'
  | 'model'
  | 'cwd'
  | 'gitBranch'
  | 'title'
  | 'firstActivity'
  | 'lastActivity'
> & { entries: Record<Bucket, number> };

/**
 * The figures of computeSessionAccounting, from an aggregate whose context is counted.
 * `summaryTitle`: the title a 1.0.x `summary` entry gives the session (found by the caller,
 * since it may sit in another session's file), used after custom and AI titles. `statedWindow`:
 * the window Claude Code stated for the session, which wins over the model table.
 */
export function accountingOf(
  state: AggregateState & { context: ContextState },
  env: ThresholdEnv,
  summaryTitle: string | null = null,
  statedWindow: number | null = null,
): AggregateAccounting {
  const { context, compactions } = state;
  const usageTokens = context.anchor === null ? 0 : contextOfUsage(context.anchor.usage);
  const contextTokens = contextTokensOf(context);
  const byModel: UsageByModel = new Map();
  for (const [model, row] of Object.entries(state.usage)) {
    byModel.set(model, {
      main: { ...row.main, costUsd: 0 },
      sidechain: { ...row.sidechain, costUsd: 0 },
      compaction: { ...row.compaction, costUsd: 0 },
    });
  }
  const after = compactions.after?.usage;
  let { cwd, gitBranch } = state;
  if (state.mainThread === 0) {
    // Without a main thread the sub-agents say where: the last file by path that says.
    cwd = null;
    gitBranch = null;
    for (const path of Object.keys(state.agents).sort()) {
      const agent = state.agents[path];
      if (agent?.cwd != null) cwd = agent.cwd;
      if (agent?.gitBranch != null) gitBranch = agent.gitBranch;
    }
  }
  return {
    contextTokens,
    threshold: computeThresholds({
      model: thresholdModel(state.model, usageTokens, undefined),
      tokens: contextTokens,
      env,
      window: statedWindow,
    }),
    usage: priceUsage(byModel).usage,
    compactions: {
      count: compactions.count,
      lastTrigger: compactions.lastTrigger,
      lastPreTokens: compactions.lastPreTokens,
      lastPostTokens:
        compactions.lastPostTokens ??
        (after === undefined ? null : after.input + after.cacheCreation + after.cacheRead),
    },
    sinceExtraction: {
      toolCalls: toolCallsOf(context),
      tokenGrowth: Math.max(0, contextTokens - markOf(context).baseline),
    },
    lastResponseHasToolCalls: context.lastResponse?.toolCalls ?? false,
    model: state.model,
    cwd,
    gitBranch,
    title:
      state.titles.custom ?? state.titles.ai ?? summaryTitle ?? state.titles.prompt ?? state.titles.command ?? null,
    firstActivity: state.first?.text ?? null,
    lastActivity: state.last?.text ?? null,
    entries: { ...state.entries },
  };
}

/** A stored aggregate, or null when it is not one this version writes. */
export function parseAggregate(json: string): AggregateState | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== AGGREGATE_VERSION)
    return null;
  const state = value as AggregateState;
  // Written before the context kept its last response: counted again (the rest of the state holds).
  if (state.context !== null && state.context.lastResponse === undefined) state.context = null;
  return state;
}
