/**
 * What the sessions service follows: ingest's commits (summaries computed again, updates
 * published), extraction's changes that no commit shows (a summary written, a lock taken or let
 * go), and a rebuilt database (every cached summary forgotten).
 */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { SessionService } from './service.js';

/** Returns the function that stops it. */
export function followSessionChanges(
  events: DomainBus,
  sessions: Pick<SessionService, 'onSessionsChanged' | 'onBackgroundChange' | 'forgetAll'>,
): () => void {
  const stops = [
    on(events, 'transcripts.committed', ({ sessionIds }) => sessions.onSessionsChanged(sessionIds)),
    on(events, 'extraction.done', ({ sessionId }) => sessions.onBackgroundChange(sessionId)),
    on(events, 'extraction.memoryStateChanged', ({ sessionId }) => sessions.onBackgroundChange(sessionId)),
    // File ids now name other files: nothing cached survives.
    on(events, 'store.rebuilt', () => sessions.forgetAll()),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
