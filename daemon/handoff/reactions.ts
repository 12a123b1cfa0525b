/** The hooks service's reaction to ingest: a SessionStart record learns from the next entries whether its context arrived. */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { HookService } from './hooks.js';

/**
 * Live commits are checked at once; the sessions a backfill changed once it is done, one after the
 * other: a recent one's check loads its whole transcript, which on a first start held the main
 * thread (and with it the parse pipeline) in the second the newest sessions were being listed.
 * Returns the function that stops it.
 */
export function checkHooksOnCommit(
  events: DomainBus,
  handoff: { hooks: Pick<HookService, 'onSessionChanged'> },
): () => void {
  const backfilled = new Set<string>();
  let stopped = false;
  const stops = [
    on(events, 'transcripts.committed', ({ sessionIds, live }) => {
      for (const sessionId of sessionIds)
        if (live) void handoff.hooks.onSessionChanged(sessionId);
        else backfilled.add(sessionId);
    }),
    on(events, 'transcripts.backfilled', () => {
      void (async () => {
        for (const sessionId of backfilled) {
          backfilled.delete(sessionId);
          if (stopped) return;
          await handoff.hooks.onSessionChanged(sessionId);
        }
      })();
    }),
  ];
  return () => {
    stopped = true;
    for (const stop of stops) stop();
  };
}
