/**
 * The whole main conversation of a session, across its compactions: the active conversation
 * (transcript/conversation.ts) ends at the last compact boundary, and a boundary's
 * `logicalParentUuid` names the last message before it, from which the conversation before that
 * compaction is found the same way, and so on back to the start. Rewound branches stay out.
 * Pure.
 */
import { activeConversation } from '../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

/** Index in `entries` of the newest main-thread entry with this uuid before `end`, or -1. */
function indexOf(entries: readonly IndexedEntry[], uuid: string, end: number): number {
  for (let index = end - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry !== undefined && entry.uuid === uuid && !entry.isSidechain) return index;
  }
  return -1;
}

/**
 * Every entry of the conversation's segments, boundaries included, in file order (the order they
 * were written: a preserved segment's messages come once, where they were first written).
 */
export function conversationChain(entries: readonly IndexedEntry[]): IndexedEntry[] {
  const members = new Set<IndexedEntry>();
  let end = entries.length;
  for (;;) {
    const segment = activeConversation(end === entries.length ? entries : entries.slice(0, end));
    for (const entry of segment.entries) members.add(entry);
    const parent = segment.boundary?.logicalParentUuid ?? null;
    const boundaryIndex = segment.boundary === null ? -1 : entries.indexOf(segment.boundary);
    if (parent === null || boundaryIndex < 0) break;
    const parentIndex = indexOf(entries, parent, boundaryIndex);
    // The walk only goes back in the file, so it ends even in a file whose links loop.
    if (parentIndex < 0 || parentIndex + 1 >= end) break;
    end = parentIndex + 1;
  }
  return entries.filter((entry) => members.has(entry));
}
