/**
 * The active conversation of a session: what Claude Code would hold in memory if it resumed the
 * session now. A transcript is append-only and forms a tree through `parentUuid`: a rewind leaves
 * the old branch in the file, and parallel tool calls fan out. The active conversation is the
 * path from the newest non-sidechain entry back to the last compact boundary on that path, with
 * two repairs Claude Code makes when it loads a transcript (utils/sessionStorage.ts):
 *
 * - Preserved segments. A compaction that keeps recent messages verbatim does not copy them: it
 *   records `compactMetadata.preservedSegment {headUuid, anchorUuid, tailUuid}` and the kept
 *   messages stay before the boundary in the file. On load the head is relinked to the anchor
 *   (the summary), and whatever else hangs off the anchor is relinked to the tail, so the path
 *   runs boundary → summary → head … tail → the rest.
 * - Parallel tool calls. One response with several tool_use blocks is written as one entry per
 *   block (same message.id), and each tool_result hangs off its own tool_use entry, so a single
 *   path misses all but one branch. The other entries of each response on the path, and the
 *   tool_result entries hanging off them, are added back.
 *
 * A third repair is memd's own, asked for by the compaction loaders (`bridgeBrokenChain`): a parent
 * that is not in the file (a trimmed file, a line lost in a partly written one) would leave a path
 * of a few entries, often none Claude Code could send (a tool result whose call is gone, a reply
 * without its prompt). The walk goes on from the nearest earlier entry in file order instead, so
 * the conversation is what the file holds, in the order it was written; `bridged` names each
 * entry whose parent was missing. Other readers (accounting, export's chain of segments) walk
 * slices of a file, where a missing parent is expected, and keep the plain walk.
 *
 * `last-prompt.leafUuid` is not used: it names the newest entry when the turn ended, which the
 * newest entry in file order already is, and it lags while a turn is being written.
 */
import type { IndexedEntry, PreservedSegment } from './types.js';

export type WalkEnd =
  /** No entry with a uuid outside sidechains. */
  | 'empty'
  /** Reached an entry without a parent: the start of the session. */
  | 'root'
  /** Reached a compact boundary (included). */
  | 'boundary'
  /** A parent is not in the file (or only in a sidechain): the walk stops there. */
  | 'missing-parent'
  /** A parent was already on the path: a corrupt file; the walk stops there. */
  | 'cycle';

export interface ActiveConversation {
  /**
   * In conversation order: the boundary, its summary, the preserved segment (earlier in the
   * file), then everything after, in file order. Without a boundary: file order.
   */
  entries: IndexedEntry[];
  leaf: IndexedEntry | null;
  /** The compact boundary the conversation starts at, or null. */
  boundary: IndexedEntry | null;
  end: WalkEnd;
  /** Entries whose parent was missing, bridged to the entry before them in file order (bridgeBrokenChain). */
  bridged: string[];
}

export interface ActiveConversationOptions {
  /** Walk on across a missing parent from the nearest earlier entry in file order (the compaction loaders). */
  bridgeBrokenChain?: boolean;
}

function isBoundary(entry: IndexedEntry): boolean {
  return entry.type === 'system' && entry.subtype === 'compact_boundary';
}

/** Parent overrides that splice every preserved segment back in after its anchor. */
function preservedSegmentRelinks(
  entries: readonly IndexedEntry[],
  byUuid: ReadonlyMap<string, IndexedEntry>,
): Map<string, string> {
  const relinks = new Map<string, string>();
  const segmentByAnchor = new Map<string, PreservedSegment>();
  for (const entry of entries) {
    const segment = entry.compact?.preservedSegment;
    if (!segment || !byUuid.has(segment.headUuid) || !byUuid.has(segment.tailUuid)) continue;
    segmentByAnchor.set(segment.anchorUuid, segment);
  }
  if (segmentByAnchor.size === 0) return relinks;
  for (const entry of entries) {
    if (entry.uuid === null || entry.parentUuid === null) continue;
    const segment = segmentByAnchor.get(entry.parentUuid);
    if (!segment || entry.uuid === segment.headUuid || entry.uuid === segment.tailUuid) continue;
    relinks.set(entry.uuid, segment.tailUuid);
  }
  for (const segment of segmentByAnchor.values()) relinks.set(segment.headUuid, segment.anchorUuid);
  return relinks;
}

function newestLeaf(entries: readonly IndexedEntry[]): IndexedEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry && entry.uuid !== null && !entry.isSidechain) return entry;
  }
  return null;
}

interface Walk {
  path: IndexedEntry[];
  end: WalkEnd;
  bridged: string[];
}

/**
 * The nearest main-thread entry with a uuid before `entry` in the file that the walk has not
 * visited, or null. Positions are computed on the first bridge only: a whole file is intact.
 */
function bridgeFrom(
  entry: IndexedEntry,
  entries: readonly IndexedEntry[],
  positions: { map: Map<IndexedEntry, number> | null },
  seen: ReadonlySet<string>,
): IndexedEntry | null {
  if (positions.map === null) positions.map = new Map(entries.map((candidate, index) => [candidate, index]));
  for (let index = (positions.map.get(entry) ?? 0) - 1; index >= 0; index--) {
    const candidate = entries[index];
    if (candidate && candidate.uuid !== null && !candidate.isSidechain && !seen.has(candidate.uuid)) return candidate;
  }
  return null;
}

/**
 * From the leaf back to a boundary, the root, a missing parent or a repeat; at most one visit
 * each. With `bridge` (the file's entries), a missing parent is replaced by the entry before.
 */
function walkBack(
  leaf: IndexedEntry,
  byUuid: ReadonlyMap<string, IndexedEntry>,
  relinks: ReadonlyMap<string, string>,
  bridge: readonly IndexedEntry[] | null,
): Walk {
  const path: IndexedEntry[] = [];
  const bridged: string[] = [];
  const seen = new Set<string>();
  const positions: { map: Map<IndexedEntry, number> | null } = { map: null };
  let current: IndexedEntry = leaf;
  for (;;) {
    const uuid = current.uuid ?? '';
    if (seen.has(uuid)) return { path, end: 'cycle', bridged };
    seen.add(uuid);
    path.push(current);
    if (isBoundary(current)) return { path, end: 'boundary', bridged };
    const parentUuid = relinks.get(uuid) ?? current.parentUuid;
    if (parentUuid === null) return { path, end: 'root', bridged };
    const parent = byUuid.get(parentUuid);
    if (parent && !parent.isSidechain) {
      current = parent;
      continue;
    }
    const before = bridge === null ? null : bridgeFrom(current, bridge, positions, seen);
    if (before === null) return { path, end: 'missing-parent', bridged };
    bridged.push(uuid);
    current = before;
  }
}

/**
 * The preserved segment, tail back to head, when the path reached its boundary without passing
 * through it: the leaf is the summary itself (nothing written after the compaction yet).
 */
function unreachedSegment(walk: Walk, byUuid: ReadonlyMap<string, IndexedEntry>): IndexedEntry[] {
  const segment = walk.end === 'boundary' ? walk.path[walk.path.length - 1]?.compact?.preservedSegment : null;
  if (!segment || walk.path.some((entry) => entry.uuid === segment.tailUuid)) return [];
  const kept: IndexedEntry[] = [];
  const seen = new Set<string>();
  let current = byUuid.get(segment.tailUuid);
  while (current?.uuid && !seen.has(current.uuid)) {
    seen.add(current.uuid);
    kept.push(current);
    if (current.uuid === segment.headUuid || current.parentUuid === null) break;
    current = byUuid.get(current.parentUuid);
  }
  return kept;
}

/** Adds the other entries of each response on the path and the tool results hanging off them. */
function withParallelSiblings(path: readonly IndexedEntry[], entries: readonly IndexedEntry[]): Set<IndexedEntry> {
  const members = new Set(path);
  const responseIds = new Set<string>();
  for (const entry of path)
    if (entry.type === 'assistant' && entry.messageId !== null) responseIds.add(entry.messageId);
  if (responseIds.size === 0) return members;
  const assistantUuids = new Set<string>();
  for (const entry of entries) {
    if (entry.isSidechain || entry.type !== 'assistant' || entry.messageId === null) continue;
    if (!responseIds.has(entry.messageId)) continue;
    members.add(entry);
    if (entry.uuid !== null) assistantUuids.add(entry.uuid);
  }
  for (const entry of entries) {
    if (entry.isSidechain || entry.type !== 'user' || entry.toolResults.length === 0) continue;
    if (entry.parentUuid !== null && assistantUuids.has(entry.parentUuid)) members.add(entry);
  }
  return members;
}

/**
 * The active conversation of one session's main transcript. `entries` are in file order; entries
 * without a uuid (bookkeeping such as last-prompt, mode, file-history-snapshot) are never part of it.
 */
export function activeConversation(
  entries: readonly IndexedEntry[],
  options: ActiveConversationOptions = {},
): ActiveConversation {
  const leaf = newestLeaf(entries);
  if (leaf === null) return { entries: [], leaf: null, boundary: null, end: 'empty', bridged: [] };

  const byUuid = new Map<string, IndexedEntry>();
  for (const entry of entries) {
    if (entry.uuid !== null && !entry.isSidechain) byUuid.set(entry.uuid, entry); // a rewritten uuid: the newest wins
  }

  const walk = walkBack(
    leaf,
    byUuid,
    preservedSegmentRelinks(entries, byUuid),
    options.bridgeBrokenChain ? entries : null,
  );
  const { path, end, bridged } = walk;
  const boundary = end === 'boundary' ? (path[path.length - 1] ?? null) : null;
  const members = withParallelSiblings([...path, ...unreachedSegment(walk, byUuid)], entries);

  // Ranks: 0 boundary, 1 summary (anchor), 2 preserved segment (before the boundary in the file),
  // 3 the rest; file order within each. One pass in file order, as a sort of 10^5 entries costs
  // tens of milliseconds on every append.
  const anchorUuid = boundary?.compact?.preservedSegment?.anchorUuid ?? null;
  const ranks: IndexedEntry[][] = [[], [], [], []];
  let beforeBoundary = boundary !== null;
  for (const entry of entries) {
    if (entry === boundary) beforeBoundary = false;
    if (!members.has(entry)) continue;
    let rank = 0;
    if (boundary !== null && entry !== boundary) {
      if (entry.uuid !== null && entry.uuid === anchorUuid) rank = 1;
      else rank = beforeBoundary ? 2 : 3;
    }
    (ranks[rank] as IndexedEntry[]).push(entry);
  }
  const ordered = ranks.flat();
  return { entries: ordered, leaf, boundary, end, bridged };
}
