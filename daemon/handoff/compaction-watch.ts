/**
 * Compactions seen in the transcript (issue 31). Interactive `/compact` fires PreCompact but not
 * PostCompact (print mode fires both), so the compaction record PostCompact made (its summary and
 * what it lost, `handoff.status`) is made here too, from the `compact_boundary` entry and the
 * summary message after it, as ingest commits them. Whichever comes first records it (hooks.ts).
 */
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { Transcripts } from '../transcripts/transcripts.js';

/**
 * Only a compaction this recent is recorded: an older one (a backfill, a daemon started after it)
 * is history, and reading what it lost costs a transcript read per session.
 */
const RECENT_COMPACTION_MS = 60 * 60_000;
/** The summary message follows its boundary within a few entries. */
const SUMMARY_SEARCH_ENTRIES = 4;

export interface CompactionWatchDeps {
  transcripts: Pick<Transcripts, 'mainEntries' | 'read'>;
  clock: () => number;
  record: (sessionId: string, trigger: string, summary: string) => Promise<unknown>;
}

function lastBoundary(entries: readonly IndexedEntry[]): number {
  for (let index = entries.length - 1; index >= 0; index--)
    if (entries[index]?.type === 'system' && entries[index]?.subtype === 'compact_boundary') return index;
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

export function createCompactionWatch(deps: CompactionWatchDeps) {
  /** The boundary last handled per session, so that each commit after it costs no read. */
  const handled = new Map<string, string>();

  return {
    async check(sessionId: string): Promise<void> {
      const { file, entries } = await deps.transcripts.mainEntries(sessionId);
      const at = lastBoundary(entries);
      const boundary = entries[at];
      if (boundary === undefined) return;
      const key = boundary.uuid ?? String(boundary.offset);
      if (handled.get(sessionId) === key) return;
      const when = boundary.timestamp === null ? Number.NaN : Date.parse(boundary.timestamp);
      if (!(deps.clock() - when <= RECENT_COMPACTION_MS)) {
        handled.set(sessionId, key);
        return;
      }
      const after = entries.slice(at + 1, at + 1 + SUMMARY_SEARCH_ENTRIES).filter((entry) => entry.type === 'user');
      // The summary is not indexed yet: the next commit looks again.
      if (after.length === 0) return;
      const loaded = await deps.transcripts.read(file.path, [boundary, ...after]);
      handled.set(sessionId, key);
      const summary = loaded.find(({ raw }) => raw.isCompactSummary === true);
      const text = summary === undefined ? null : contentText(summary.raw.message);
      if (text === null) return;
      const metadata = loaded[0]?.raw.compactMetadata as { trigger?: unknown } | undefined;
      await deps.record(sessionId, typeof metadata?.trigger === 'string' ? metadata.trigger : 'unknown', text);
    },
  };
}
