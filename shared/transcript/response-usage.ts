/**
 * A session's spend: every API response counted once across the main transcript, the sub-agent
 * files and the compaction agents (message.id + requestId), with its final usage, in the bucket of
 * where it came from, totalled by model and priced. Pure; the session's accounting (accounting.ts),
 * its persisted aggregate (aggregate.ts) and the report's figures count responses by these rules.
 */
import type { UsageTotals } from '../protocol/sessions.js';
import { costOf, priceFor, SYNTHETIC_MODEL } from './models.js';
import type { IndexedEntry, Usage } from './types.js';

export interface ModelUsage {
  model: string;
  usage: UsageTotals;
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
export function collectUsage(
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
