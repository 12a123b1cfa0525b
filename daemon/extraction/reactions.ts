/**
 * Extraction's reactions to ingest, in two parts because they run on either side of the sessions'
 * own (main.ts subscribes them in that order): a turn's hold is renewed before the session's
 * summary is computed again, so that the summary shows the renewal; the triggers are checked after.
 */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { ExtractionService } from './service.js';

/** Ingest committed new lines of live sessions: their `whileActive` holds are renewed. Returns the function that stops it. */
export function renewHoldsOnCommit(
  events: DomainBus,
  extraction: Pick<ExtractionService, 'onSessionActive'>,
): () => void {
  return on(events, 'transcripts.committed', ({ sessionIds, live }) => {
    if (live) for (const sessionId of sessionIds) extraction.onSessionActive(sessionId);
  });
}

/** A changed live session is extracted when its triggers say so; the sessions the backfill changed once it is done. */
export function extractOnCommit(
  events: DomainBus,
  extraction: Pick<ExtractionService, 'onSessionChanged' | 'onSessionBackfilled' | 'onBackfillDone'>,
): () => void {
  const stops = [
    on(events, 'transcripts.committed', ({ sessionIds, live }) => {
      // The backfill reads history, which is not summarized on the way: the sessions it changed
      // are extracted once it is done, at the lowest priority.
      for (const sessionId of sessionIds) {
        if (live) extraction.onSessionChanged(sessionId);
        else extraction.onSessionBackfilled(sessionId);
      }
    }),
    on(events, 'transcripts.backfilled', () => extraction.onBackfillDone()),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
