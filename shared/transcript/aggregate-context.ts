/**
 * The context part of a session's persisted aggregate (aggregate.ts): what context-count.ts counts
 * from the active conversation, kept so that an append costs O(appended entries).
 *
 * An append extends the active conversation when each new main-thread entry hangs off the
 * current leaf, or off an entry of the last response (a parallel tool call's sibling, or a tool
 * result hanging off one) while nothing else was written after that response began. Then the new
 * active conversation is the old one plus the new entries (conversation.ts: the walk from the new
 * leaf passes through the old path, and the siblings it adds back are the same), so the count
 * grows by their estimates, or restarts at a new response. Anything else (a compact boundary, a
 * rewind onto an older entry, a new root) is not an extension: the context is computed again from
 * the main transcript (`contextFromScratch`), which the caller does once the file is read.
 */
import { contextAfterCompaction, contextOfUsage, countContext } from './context-count.js';
import { activeConversation } from './conversation.js';
import { SYNTHETIC_MODEL } from './models.js';
import { isApiResponse, isFinalerThan } from './response-usage.js';
import { endOfCompactionOutput, extractionMark, isCompactionOutput, type LastExtraction } from './since-extraction.js';
import type { IndexedEntry, Usage } from './types.js';

/** Entries of one response tracked as possible parents; a response with more is not followed. */
export const MAX_TAIL = 512;

export interface ContextState {
  /** The newest main-thread entry with a uuid: the leaf the active conversation is walked from. */
  leaf: string | null;
  /** The response the count starts from: its ids and final usage. */
  anchor: { messageId: string | null; requestId: string | null; usage: Usage } | null;
  /** Estimated tokens of the active entries after the anchor's first entry (of all without one). */
  estimated: number;
  /** Uuids of the anchor response's entries and of the tool results hanging off them. */
  tail: string[];
  /** Of `tail`, the anchor response's own (assistant) entries. */
  tailResponses: string[];
  /** Every active entry after the anchor's first is in `tail`: an entry may hang off any of them. */
  tailPure: boolean;
  /**
   * sinceExtraction counts from the later of two marks (since-extraction.ts): where the last
   * extraction left off (its offset, and the context then), and the active compact boundary
   * (its offset, and the context it left). Both are kept, so that a new root, a boundary or a
   * new extraction moves the mark without counting again.
   */
  extractionMark: number | null;
  extractionContext: number;
  boundaryOffset: number | null;
  boundaryContext: number;
  /** [offset, tool calls] of the active responses with tool calls after the mark. */
  calls: [number, number][];
  /**
   * The summary a preserved segment is spliced in after: an entry hanging off it is relinked to
   * the segment's tail (conversation.ts), which is not an extension; counted again then.
   */
  segmentAnchor: string | null;
  /**
   * Everything after the active boundary is still the compaction's own output, and the boundary
   * records no postTokens: the context it left follows the context until a real prompt or
   * response is written (contextAfterCompaction).
   */
  inCompactionOutput: boolean;
  /** The extraction this was counted against (extractionKey); another one means counting again. */
  extraction: string | null;
  /**
   * The last response on the active conversation (its message id) and whether any of its entries
   * called tools: the extraction triggers' natural break (accounting's lastResponseHasToolCalls).
   */
  lastResponse: { messageId: string | null; toolCalls: boolean } | null;
}

/** Identifies a LastExtraction, so a stored count knows whether it still applies. */
export function extractionKey(last: LastExtraction | null | undefined): string | null {
  return last ? JSON.stringify([last.uuid ?? null, last.atOffset ?? null, last.contextTokens]) : null;
}

function isBoundary(entry: IndexedEntry): boolean {
  return entry.type === 'system' && entry.subtype === 'compact_boundary';
}

/** Whether `entry` (assistant) belongs to the anchor response, as its first entry is found. */
function ofAnchor(context: ContextState, entry: IndexedEntry): boolean {
  return (
    context.anchor !== null &&
    context.anchor.messageId !== null &&
    entry.type === 'assistant' &&
    entry.messageId === context.anchor.messageId
  );
}

function addToTail(context: ContextState, uuid: string, response: boolean): void {
  if (context.tail.length >= MAX_TAIL) {
    context.tailPure = false;
    return;
  }
  context.tail.push(uuid);
  if (response) context.tailResponses.push(uuid);
}

/** Calls kept past the mark; a longer stretch without an extraction is counted again instead. */
export const MAX_CALLS = 4_096;

/** The mark sinceExtraction counts from, and the context there (extractionBaseline's rule). */
export function markOf(context: ContextState): { mark: number | null; baseline: number } {
  const { extractionMark, boundaryOffset } = context;
  if (boundaryOffset !== null && (extractionMark === null || boundaryOffset > extractionMark))
    return { mark: boundaryOffset, baseline: context.boundaryContext };
  return { mark: extractionMark, baseline: extractionMark === null ? 0 : context.extractionContext };
}

export function toolCallsOf(context: ContextState): number {
  const { mark } = markOf(context);
  let calls = 0;
  for (const [offset, count] of context.calls) if (mark === null || offset > mark) calls += count;
  return calls;
}

export function contextTokensOf(context: ContextState): number {
  return (context.anchor === null ? 0 : contextOfUsage(context.anchor.usage)) + context.estimated;
}

/** Drops the calls at or before the mark; false when too many are left to keep. */
function trimCalls(context: ContextState): boolean {
  const { mark } = markOf(context);
  if (mark !== null) context.calls = context.calls.filter(([offset]) => offset > mark);
  return context.calls.length <= MAX_CALLS;
}

/** After each main-thread entry: the context a boundary left follows the context while the compaction is still writing. */
export function followCompactionOutput(context: ContextState, entry: IndexedEntry): void {
  if (!context.inCompactionOutput) return;
  if (!isCompactionOutput(entry)) {
    context.inCompactionOutput = false;
    return;
  }
  context.boundaryContext = contextTokensOf(context);
}

/**
 * The active conversation starts again at `entry`: a new root (no parent), or a compact boundary
 * that keeps nothing verbatim. Either is the whole of the new conversation so far.
 */
function restartAt(context: ContextState, entry: IndexedEntry & { uuid: string }): void {
  context.leaf = entry.uuid;
  context.anchor = null;
  context.estimated = 0;
  context.tail = [];
  context.tailResponses = [];
  context.tailPure = false;
  context.segmentAnchor = null;
  context.calls = [];
  context.lastResponse = null;
  if (isBoundary(entry)) {
    context.boundaryOffset = entry.offset;
    const post = entry.compact?.postTokens ?? null;
    context.inCompactionOutput = post === null;
    context.boundaryContext = post ?? entry.estTokens;
  } else {
    context.boundaryOffset = null;
    context.boundaryContext = 0;
    context.inCompactionOutput = false;
  }
}

/**
 * Folds one main-thread entry (not a sidechain, with a uuid) appended to the main transcript.
 * Returns false when it does not extend the active conversation: the state is then unusable.
 */
export function extendContext(context: ContextState, entry: IndexedEntry & { uuid: string }): boolean {
  const parent = entry.parentUuid;
  if (isBoundary(entry)) {
    // A boundary that keeps a preserved segment brings older entries back: counted again.
    if (parent !== null || entry.compact?.preservedSegment != null) return false;
    restartAt(context, entry);
    context.estimated = entry.estTokens;
    return true;
  }
  if (parent === null) {
    restartAt(context, entry);
  } else {
    if (parent === context.segmentAnchor) return false;
    const attaches = parent === context.leaf || (context.tailPure && context.tail.includes(parent));
    if (!attaches) return false;
    context.leaf = entry.uuid;
  }
  const anchor = context.anchor;
  if (isApiResponse(entry) && (anchor === null || entry.messageId === null || entry.messageId !== anchor.messageId)) {
    context.anchor = { messageId: entry.messageId, requestId: entry.requestId, usage: entry.usage };
    context.estimated = 0;
    context.tail = [entry.uuid];
    context.tailResponses = [entry.uuid];
    context.tailPure = true;
  } else {
    context.estimated += entry.estTokens;
    if (anchor !== null && ofAnchor(context, entry)) {
      if (isApiResponse(entry)) {
        if (entry.requestId !== anchor.requestId)
          context.anchor = { messageId: anchor.messageId, requestId: entry.requestId, usage: entry.usage };
        else if (isFinalerThan(entry.usage, anchor.usage)) anchor.usage = entry.usage;
      }
      addToTail(context, entry.uuid, true);
    } else if (
      entry.type === 'user' &&
      entry.toolResults.length > 0 &&
      context.tailResponses.includes(parent as string)
    ) {
      addToTail(context, entry.uuid, false);
    } else {
      context.tailPure = false;
    }
  }
  if (entry.type === 'assistant' && entry.model !== SYNTHETIC_MODEL) {
    const last = context.lastResponse;
    const calls = entry.toolUses.length > 0;
    // A message id seen again after another response is taken as a new response (accounting joins them).
    if (last !== null && entry.messageId !== null && entry.messageId === last.messageId) last.toolCalls ||= calls;
    else context.lastResponse = { messageId: entry.messageId, toolCalls: calls };
  }
  if (entry.type === 'assistant' && entry.toolUses.length > 0) {
    const { mark } = markOf(context);
    if (mark === null || entry.offset > mark) context.calls.push([entry.offset, entry.toolUses.length]);
    if (context.calls.length > MAX_CALLS) return false;
  }
  return true;
}

/**
 * A new last extraction, which `offset` locates in the main transcript (null when it does not).
 * False when the counts cannot follow (the mark moved back, or too many calls): counted again.
 */
export function moveExtraction(context: ContextState, last: LastExtraction | null, offset: number | null): boolean {
  const before = markOf(context).mark;
  context.extractionMark = last === null ? null : offset;
  context.extractionContext = last?.contextTokens ?? 0;
  context.extraction = extractionKey(last);
  const after = markOf(context).mark;
  if (before !== null && (after === null || after < before)) return false;
  return trimCalls(context);
}

/** The context state of a main transcript, counted from all of it (its entries in file order). */
export function contextFromScratch(
  main: readonly IndexedEntry[],
  last: LastExtraction | null | undefined,
): ContextState {
  return countConversation(main, activeConversation(main), last, extractionMark(main, last));
}

/**
 * Entries of the window before the active conversation's start: a response's other entries sit
 * next to it, so a conversation that starts this far into the window has none outside it.
 */
export const WINDOW_MARGIN = 64;

/**
 * The context state from the main transcript's last entries (`tail`, in file order), when the
 * active conversation lies wholly inside them: its walk ends at a compact boundary or a root in
 * the window (not at an entry outside it), well inside, with any preserved segment inside too.
 * Then it is the count from scratch at the cost of the window. Null otherwise.
 * `extractionMark` is where the last extraction left off, located in the whole file.
 */
export function contextFromTail(
  tail: readonly IndexedEntry[],
  last: LastExtraction | null,
  extractionMark: number | null,
): ContextState | null {
  const conversation = activeConversation(tail);
  if (conversation.end !== 'boundary' && conversation.end !== 'root') return null;
  const first = conversation.entries.reduce((min, entry) => Math.min(min, entry.offset), Number.POSITIVE_INFINITY);
  const margin = tail[Math.min(WINDOW_MARGIN, tail.length - 1)]?.offset ?? 0;
  if (first < margin) return null;
  const segment = conversation.boundary?.compact?.preservedSegment;
  if (segment != null) {
    const inside = new Set(tail.map((entry) => entry.uuid));
    if (!inside.has(segment.headUuid) || !inside.has(segment.tailUuid)) return null;
  }
  return countConversation(tail, conversation, last, extractionMark);
}

function countConversation(
  main: readonly IndexedEntry[],
  conversation: ReturnType<typeof activeConversation>,
  last: LastExtraction | null | undefined,
  extractionMark: number | null,
): ContextState {
  const active = conversation.entries;
  const { boundary } = conversation;
  const count = countContext(active, boundary);
  const firstEntry = active[count.first];
  const context: ContextState = {
    leaf: conversation.leaf?.uuid ?? null,
    anchor:
      count.anchorUsage === null || firstEntry === undefined
        ? null
        : { messageId: count.breakdown.anchorMessageId, requestId: null, usage: count.anchorUsage },
    estimated: count.breakdown.estimatedTokens,
    tail: [],
    tailResponses: [],
    tailPure: false,
    extractionMark,
    extractionContext: extractionMark === null ? 0 : (last?.contextTokens ?? 0),
    boundaryOffset: boundary?.offset ?? null,
    boundaryContext: boundary === null ? 0 : contextAfterCompaction(main, boundary),
    calls: [],
    segmentAnchor: boundary?.compact?.preservedSegment?.anchorUuid ?? null,
    inCompactionOutput:
      boundary !== null &&
      boundary.compact?.postTokens == null &&
      endOfCompactionOutput(main, boundary) === main.length,
    extraction: extractionKey(last),
    lastResponse:
      count.lastResponse[0] === undefined
        ? null
        : {
            messageId: count.lastResponse[0].messageId,
            toolCalls: count.lastResponse.some((entry) => entry.toolUses.length > 0),
          },
  };
  const { mark } = markOf(context);
  for (const entry of active) {
    if (entry.type === 'assistant' && entry.toolUses.length > 0 && (mark === null || entry.offset > mark))
      context.calls.push([entry.offset, entry.toolUses.length]);
  }
  if (context.anchor !== null) {
    // The request id the final usage was taken from: the last API entry of the response.
    const lastApi = active.findLast(
      (entry) =>
        isApiResponse(entry) &&
        entry.messageId === count.breakdown.anchorMessageId &&
        (boundary === null || entry.offset > boundary.offset),
    );
    context.anchor.requestId = lastApi?.requestId ?? null;
    context.tailPure = true;
    for (let i = count.first; i < active.length; i++) {
      const entry = active[i] as IndexedEntry;
      if (entry.uuid === null) continue;
      if (i === count.first || ofAnchor(context, entry)) addToTail(context, entry.uuid, true);
      else if (
        entry.type === 'user' &&
        entry.toolResults.length > 0 &&
        entry.parentUuid !== null &&
        context.tailResponses.includes(entry.parentUuid)
      )
        addToTail(context, entry.uuid, false);
      else context.tailPure = false;
    }
  }
  return context;
}
