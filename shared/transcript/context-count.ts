/**
 * The context of a session, as Claude Code's tokenCountWithEstimation counts it:
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
 * Also the context a compaction left. Pure; the session's accounting (accounting.ts) and its
 * persisted aggregate (aggregate-context.ts) count by it.
 */
import { activeConversation } from './conversation.js';
import { SYNTHETIC_MODEL } from './models.js';
import { isApiResponse, isFinalerThan } from './response-usage.js';
import { endOfCompactionOutput } from './since-extraction.js';
import type { IndexedEntry, Usage } from './types.js';

export interface ContextBreakdown {
  /** From the last response's usage; the manifests' `contextTokens`. */
  usageTokens: number;
  /** Rough estimate of the active entries after it (or of all of them without a response). */
  estimatedTokens: number;
  /** The first entry of the response the count starts from; null when there is none. */
  anchorUuid: string | null;
  anchorMessageId: string | null;
}

export function contextOfUsage(usage: Usage): number {
  return usage.input + usage.cacheCreation + usage.cacheRead + usage.output;
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

/**
 * The context right after a compaction, when the boundary does not record it (Claude Code
 * writes only preTokens): the prompt of the first response after the boundary (input + cache
 * reads and writes), taken from that response's final entry. Null until one was written.
 */
export function promptTokensAfter(mainThread: readonly IndexedEntry[], boundary: IndexedEntry): number | null {
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
