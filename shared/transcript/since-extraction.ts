/**
 * What happened since the last session-memory extraction, the figure its triggers read
 * (DESIGN.md §5) and `sinceExtraction` reports. Everything is measured from the later of two
 * points: where the last extraction left off, and the last compact boundary. A compaction
 * stands in for an extraction: growth then counts from the context it left (its `postTokens`,
 * else the estimate of what it wrote), and only tool calls after it count. Measured from the
 * extraction alone, a compaction would undercut the extraction's context and hold the next
 * extraction back until the context grew past its pre-compaction size.
 */
import type { IndexedEntry } from './types.js';

/**
 * Where the last session-memory extraction left off. `uuid` names the last entry it covered;
 * `atOffset` is that entry's byte offset in the main transcript (used when the uuid is absent or
 * no longer in the file). When neither locates anything (a replaced file), it counts as no
 * extraction: everything is "since", so the next extraction is not held back.
 */
export interface LastExtraction {
  uuid?: string;
  atOffset?: number;
  /** Context tokens when it ran. */
  contextTokens: number;
}

export interface SinceExtraction {
  toolCalls: number;
  /** Context tokens gained since the baseline; never negative. */
  tokenGrowth: number;
}

/** The byte offset the last extraction covered up to, or null when none applies. */
export function extractionMark(main: readonly IndexedEntry[], last: LastExtraction | null | undefined): number | null {
  if (!last) return null;
  if (last.uuid !== undefined) {
    const entry = main.find((candidate) => candidate.uuid === last.uuid);
    if (entry) return entry.offset;
  }
  return last.atOffset ?? null;
}

/** What a compaction writes after its boundary: the summary, re-attached files and context, bookkeeping. */
export function isCompactionOutput(entry: IndexedEntry): boolean {
  return (
    entry.isCompactSummary ||
    entry.isMeta ||
    entry.type === 'attachment' ||
    entry.type === 'system' ||
    entry.uuid === null
  );
}

/** The index just past a boundary's own entries (summary, attachments, preserved segment) in file order. */
export function endOfCompactionOutput(main: readonly IndexedEntry[], boundary: IndexedEntry): number {
  let end = main.indexOf(boundary) + 1;
  while (end < main.length) {
    const entry = main[end];
    if (entry === undefined || (!entry.isSidechain && !isCompactionOutput(entry))) break;
    end++;
  }
  return end;
}

/**
 * `active` is the active conversation, `main` the main transcript in file order, `boundary` its
 * last compact boundary; `contextAfter` gives the context a boundary left.
 */
export function sinceExtraction(
  active: readonly IndexedEntry[],
  main: readonly IndexedEntry[],
  contextTokens: number,
  last: LastExtraction | null | undefined,
  boundary: IndexedEntry | null,
  contextAfter: (boundary: IndexedEntry) => number,
): SinceExtraction {
  const { mark, baseline } = extractionBaseline(main, last, boundary, contextAfter);
  return { toolCalls: toolCallsAfter(active, mark), tokenGrowth: Math.max(0, contextTokens - baseline) };
}

/** Where "since" starts (a byte offset, null for the whole session) and the context then. */
function extractionBaseline(
  main: readonly IndexedEntry[],
  last: LastExtraction | null | undefined,
  boundary: IndexedEntry | null,
  contextAfter: (boundary: IndexedEntry) => number,
): { mark: number | null; baseline: number } {
  let mark = extractionMark(main, last);
  let baseline = mark === null ? 0 : (last?.contextTokens ?? 0);
  if (boundary !== null && (mark === null || boundary.offset > mark)) {
    mark = boundary.offset;
    baseline = contextAfter(boundary);
  }
  return { mark, baseline };
}

/** Tool calls of the active conversation's responses after `mark`. */
function toolCallsAfter(active: readonly IndexedEntry[], mark: number | null): number {
  let toolCalls = 0;
  for (const entry of active) {
    if (entry.type !== 'assistant' || (mark !== null && entry.offset <= mark)) continue;
    toolCalls += entry.toolUses.length;
  }
  return toolCalls;
}
