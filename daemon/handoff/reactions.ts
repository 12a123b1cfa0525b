/** The hooks service's reaction to ingest: a SessionStart record learns from the next entries whether its context arrived. */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { HookService } from './hooks.js';

/** Returns the function that stops it. */
export function checkHooksOnCommit(
  events: DomainBus,
  handoff: { hooks: Pick<HookService, 'onSessionChanged'> },
): () => void {
  return on(events, 'transcripts.committed', ({ sessionIds }) => {
    for (const sessionId of sessionIds) void handoff.hooks.onSessionChanged(sessionId);
  });
}
