/**
 * The whole main conversation of a session, across its compactions: the active conversation
 * (transcript/conversation.ts) ends at the last compact boundary, and a boundary's
 * `logicalParentUuid` names the last message before it, from which the conversation before that
 * compaction is found the same way, and so on back to the start. Where that link is missing (a
 * boundary whose parent is not in the file, a resumed conversation whose first message names no
 * parent), the walk goes on from the entries before the segment it reached, so that every segment
 * of the session is shown, not only the chain back from the last message. Rewound branches stay
 * out, and are counted (`leftOutMessages`) so that the report can say so. Pure.
 */
import { type ActiveConversation, activeConversation } from '../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

/**
 * Segments with no link back that are still followed: each costs a walk over the entries before
 * it, and a file of thousands of unlinked messages must not cost thousands of walks. What lies
 * before the last one followed is counted in `leftOutMessages`, which the report says.
 */
const MAX_UNLINKED_SEGMENTS = 50;

/** Index in `entries` of the newest main-thread entry with this uuid before `end`, or -1. */
function indexOf(entries: readonly IndexedEntry[], uuid: string, end: number): number {
  for (let index = end - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry !== undefined && entry.uuid === uuid && !entry.isSidechain) return index;
  }
  return -1;
}

/**
 * The active conversation of the entries before `end`. A segment's path runs back to the boundary
 * before it, and the messages that boundary kept verbatim lie between it and the boundary before
 * that: so the entries from that second boundary on are enough, which keeps a session of a
 * hundred compactions from costing a hundred walks over all of its entries. When that is not
 * enough (a boundary on a rewound branch in between) the walk is made over everything before `end`.
 */
function segmentBefore(
  entries: readonly IndexedEntry[],
  boundaries: readonly number[],
  end: number,
): ActiveConversation {
  let before = 0;
  while (before < boundaries.length && (boundaries[before] as number) < end) before++;
  const from = before >= 2 ? (boundaries[before - 2] as number) : 0;
  if (from > 0) {
    const near = activeConversation(entries.slice(from, end));
    if (near.end === 'boundary') return near;
  }
  return activeConversation(end === entries.length ? entries : entries.slice(0, end));
}

/**
 * Every entry of the conversation's segments, boundaries included, in file order (the order they
 * were written: a preserved segment's messages come once, where they were first written).
 */
export function conversationChain(entries: readonly IndexedEntry[]): IndexedEntry[] {
  const position = new Map<IndexedEntry, number>();
  const boundaries: number[] = [];
  entries.forEach((entry, index) => {
    position.set(entry, index);
    if (entry.compact !== null && !entry.isSidechain) boundaries.push(index);
  });
  const members = new Set<IndexedEntry>();
  let end = entries.length;
  let unlinked = 0;
  for (;;) {
    const segment = segmentBefore(entries, boundaries, end);
    for (const entry of segment.entries) members.add(entry);
    const parent = segment.boundary?.logicalParentUuid ?? null;
    const boundaryIndex = segment.boundary === null ? -1 : (position.get(segment.boundary) ?? -1);
    const parentIndex = parent === null || boundaryIndex < 0 ? -1 : indexOf(entries, parent, boundaryIndex);
    // No link back: the segment before is whatever ends before the first entry this one reached.
    let next = parentIndex + 1;
    if (parentIndex < 0) {
      if (++unlinked > MAX_UNLINKED_SEGMENTS) break;
      next = end;
      for (const entry of segment.entries) next = Math.min(next, position.get(entry) ?? end);
    }
    // The walk only goes back in the file, so it ends even in a file whose links loop.
    if (next <= 0 || next >= end) break;
    end = next;
  }
  return entries.filter((entry) => members.has(entry));
}

/** Messages of the main thread (prompts, replies, tool results) the chain leaves out: rewound branches, and unlinked ones past MAX_UNLINKED_SEGMENTS. */
export function leftOutMessages(entries: readonly IndexedEntry[], chain: readonly IndexedEntry[]): number {
  const shown = new Set(chain);
  let count = 0;
  for (const entry of entries) {
    if (entry.isSidechain || entry.uuid === null || shown.has(entry) || entry.compact !== null) continue;
    if (entry.type === 'user' || entry.type === 'assistant') count++;
  }
  return count;
}
