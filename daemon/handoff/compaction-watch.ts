/**
 * Compactions seen in the transcript (issue 31). Interactive `/compact` fires PreCompact but not
 * PostCompact (print mode fires both), so the compaction record PostCompact made (its summary and
 * what it lost, `handoff.status`) is made here too, from the `compact_boundary` entry and the
 * summary message after it, as ingest commits them. Whichever comes first records it (hooks.ts).
 * Compactions older than that (the session compacted before memd ran, a backfill) are scored when
 * someone asks about the session (`history`, issue 32): every boundary gets its survival score.
 */
import { RpcError } from '../../shared/protocol/errors.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { IngestedFile } from '../store/rows.js';
import type { Transcripts } from '../transcripts/transcripts.js';

/**
 * Only a compaction this recent is recorded: an older one (a backfill, a daemon started after it)
 * is history, and reading what it lost costs a transcript read per session.
 */
const RECENT_COMPACTION_MS = 60 * 60_000;
/** The summary message follows its boundary within a few entries. */
const SUMMARY_SEARCH_ENTRIES = 4;
/**
 * Past compactions scored per session, the newest: each costs a read of the conversation it
 * compacted, and the status line and the report show the last ones.
 */
export const HISTORY_BOUNDARIES = 10;

/** A compaction at `boundary` (its index in `entries`) with Claude Code's summary, recorded at `at`. */
export interface BoundaryRecord {
  sessionId: string;
  trigger: string;
  summary: string;
  at: number;
  path: string;
  entries: readonly IndexedEntry[];
  boundary: number;
}

export interface CompactionWatchDeps {
  transcripts: Pick<Transcripts, 'mainEntries' | 'read' | 'files'>;
  clock: () => number;
  /** `past`: a compaction from before memd watched, scored on demand (no live report to merge with). */
  record: (compaction: BoundaryRecord, past: boolean, signal?: AbortSignal) => Promise<unknown>;
}

const isBoundary = (entry: IndexedEntry | undefined) =>
  entry?.type === 'system' && entry.subtype === 'compact_boundary';

export function lastBoundary(entries: readonly IndexedEntry[]): number {
  for (let index = entries.length - 1; index >= 0; index--) if (isBoundary(entries[index])) return index;
  return -1;
}

/** A message's text: a string, or its text blocks joined. */
function contentText(message: unknown): string | null {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .map((block: unknown) => (block as { type?: unknown; text?: unknown }).text)
    .filter((text): text is string => typeof text === 'string');
  return texts.length === 0 ? null : texts.join('\n\n');
}

/** The summary after the boundary at `at` and its trigger; 'unindexed' while the summary is not indexed yet. */
async function summaryAt(
  deps: CompactionWatchDeps,
  path: string,
  entries: readonly IndexedEntry[],
  at: number,
  signal?: AbortSignal,
): Promise<{ trigger: string; summary: string } | null | 'unindexed'> {
  const boundary = entries[at] as IndexedEntry;
  const after = entries.slice(at + 1, at + 1 + SUMMARY_SEARCH_ENTRIES).filter((entry) => entry.type === 'user');
  if (after.length === 0) return 'unindexed';
  const loaded = await deps.transcripts.read(path, [boundary, ...after], signal);
  const summary = loaded.find(({ raw }) => raw.isCompactSummary === true);
  const text = summary === undefined ? null : contentText(summary.raw.message);
  if (text === null) return null;
  const metadata = loaded[0]?.raw.compactMetadata as { trigger?: unknown } | undefined;
  return { trigger: typeof metadata?.trigger === 'string' ? metadata.trigger : 'unknown', summary: text };
}

const timeOf = (entry: IndexedEntry | undefined) =>
  entry?.timestamp === null || entry?.timestamp === undefined ? Number.NaN : Date.parse(entry.timestamp);
/** When the file's newest entry was written (-Infinity before any). */
const newestOf = (file: IngestedFile) =>
  file.lastActivity === null ? Number.NEGATIVE_INFINITY : Date.parse(file.lastActivity);

export function createCompactionWatch(deps: CompactionWatchDeps) {
  /** The boundary last handled per session, so that each commit after it costs no read. */
  const handled = new Map<string, string>();

  return {
    async check(sessionId: string): Promise<void> {
      // A boundary is no newer than the session's newest entry: a session quiet for the last hour
      // (every session of a backfill but the few being written) has no compaction to record, and
      // costs no load of its entries (a backfill loaded every session once for nothing).
      const newest = deps.transcripts
        .files(sessionId)
        .reduce((max, file) => Math.max(max, newestOf(file)), Number.NEGATIVE_INFINITY);
      if (!(deps.clock() - newest <= RECENT_COMPACTION_MS)) return;
      const main = await deps.transcripts.mainEntries(sessionId).catch((error: unknown) => {
        // Sub-agent transcripts only (Claude Code's cleanup took the main one), or a 2.0.x
        // `agent-*` file's own name (filed under its parent session): no conversation compacted.
        if (error instanceof RpcError && (error.kind === 'MainTranscriptMissing' || error.kind === 'NotFound'))
          return null;
        throw error;
      });
      if (main === null) return;
      const { file, entries } = main;
      const at = lastBoundary(entries);
      const boundary = entries[at];
      if (boundary === undefined) return;
      const key = boundary.uuid ?? String(boundary.offset);
      if (handled.get(sessionId) === key) return;
      const when = timeOf(boundary);
      if (!(deps.clock() - when <= RECENT_COMPACTION_MS)) {
        handled.set(sessionId, key);
        return;
      }
      const found = await summaryAt(deps, file.path, entries, at);
      // The summary is not indexed yet: the next commit looks again.
      if (found === 'unindexed') return;
      handled.set(sessionId, key);
      if (found === null) return;
      await deps.record({ sessionId, ...found, at: when, path: file.path, entries, boundary: at }, false);
    },

    /**
     * Records the session's past compactions (the newest HISTORY_BOUNDARIES) that no record
     * matches (`isRecorded` of the boundary's time), each with its survival score. Returns how many.
     */
    async history(sessionId: string, isRecorded: (at: number) => boolean, signal?: AbortSignal): Promise<number> {
      const { file, entries } = await deps.transcripts.mainEntries(sessionId, signal);
      const boundaries = entries.flatMap((entry, at) => (isBoundary(entry) ? [at] : [])).slice(-HISTORY_BOUNDARIES);
      let recorded = 0;
      for (const at of boundaries) {
        const when = timeOf(entries[at]);
        if (!Number.isFinite(when) || isRecorded(when)) continue;
        const found = await summaryAt(deps, file.path, entries, at, signal);
        if (found === 'unindexed' || found === null) continue;
        await deps.record({ sessionId, ...found, at: when, path: file.path, entries, boundary: at }, true, signal);
        recorded++;
      }
      return recorded;
    },
  };
}
