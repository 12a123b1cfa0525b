/**
 * The conversation a hit is in, wherever it is in its session (issue 28, item 6): a message
 * before a compaction, or on a branch the user rewound away from, is not in the active
 * conversation, yet search finds it, and its `--context` reference must open. The hit's chain is
 * the walk back from the newest entry that descends from it (in its own segment: the next compact
 * boundary starts another), which reaches the hit and goes on to its segment's start. Pure.
 */
import { type ActiveConversation, activeConversation } from '../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

/** Where a hit is: its compaction segment (0 the first) of the session's, and whether it is the active conversation. */
export interface HitSegment {
  index: number;
  of: number;
  active: boolean;
}

const isBoundary = (entry: IndexedEntry): boolean => entry.compact !== null && !entry.isSidechain;

/** The segment a chain is in: the boundaries up to the one it starts at, in file order. */
export function segmentOf(entries: readonly IndexedEntry[], chain: ActiveConversation, active: boolean): HitSegment {
  let index = 0;
  let of = 1;
  for (const entry of entries) {
    if (!isBoundary(entry)) continue;
    of++;
    if (chain.boundary !== null && entry === chain.boundary) index = of - 1;
  }
  return { index, of, active };
}

/** The chain of the newest main-thread entry with this uuid: null when the file has none. */
export function chainOfHit(entries: readonly IndexedEntry[], uuid: string): ActiveConversation | null {
  let at = -1;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as IndexedEntry;
    if (entry.uuid === uuid && !entry.isSidechain) {
      at = index;
      break;
    }
  }
  if (at === -1) return null;
  // The newest descendant before the next boundary: its walk back passes through the hit.
  const descendants = new Set([uuid]);
  let leaf = at;
  for (let index = at + 1; index < entries.length; index++) {
    const entry = entries[index] as IndexedEntry;
    if (isBoundary(entry)) break;
    if (entry.isSidechain || entry.uuid === null || entry.parentUuid === null || !descendants.has(entry.parentUuid))
      continue;
    descendants.add(entry.uuid);
    leaf = index;
  }
  const chain = activeConversation(entries.slice(0, leaf + 1), { bridgeBrokenChain: true });
  return chain.entries.some((entry) => entry.uuid === uuid) ? chain : null;
}
