/**
 * What the ingestor decides for each pass besides its file (types.ts PassChoices): whether a file
 * read from its start leaves its search texts to the search index builder, and where its commits
 * go among those waiting for a turn of the event loop (commit-turn.ts).
 */
import { SEARCH_INDEX_ON } from './chunk-parser.js';
import type { PassChoices } from './types.js';

/**
 * A backfill with this many bytes of files never read leaves their search texts to the search index
 * builder (daemon/search/builder.ts), which reads them once the backfill is done, newest first:
 * extracting and indexing them was ~20 % of a first start's CPU (942 MB: backfill 6.5-8.2 s with
 * them, 5.1-5.8 s without; the newest 50 sessions exact at ~970 ms, ~800 ms without). Below it the
 * whole backfill takes a second or two and search is complete when the listing is.
 */
export const DEFAULT_DEFER_SEARCH_BYTES = 256 * 1024 * 1024;

export function createPassChoices(deferSearchBytes = DEFAULT_DEFER_SEARCH_BYTES) {
  /** This backfill's new files leave their search texts to the builder. */
  let searchDeferred = false;
  /** Backfill passes begun, for their commits' rank: the earlier one began, the newer its file. */
  let backfillPasses = 0;
  return {
    /** A backfill was queued with this many bytes of files that have no row yet. */
    backfillFound(neverReadBytes: number): void {
      searchDeferred ||= SEARCH_INDEX_ON && neverReadBytes >= deferSearchBytes;
    },
    backfillDone(): void {
      searchDeferred = false;
    },
    /** A changed file's commits go before any backfill pass's; backfill passes' in the order they began. */
    forPass(fromBacklog: boolean): PassChoices {
      return fromBacklog
        ? { deferSearch: searchDeferred, commitRank: backfillPasses++ }
        : { deferSearch: false, commitRank: Number.NEGATIVE_INFINITY };
    },
  };
}
