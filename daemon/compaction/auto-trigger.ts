/**
 * Auto-compaction's own trigger: a session whose threshold state changed (the sessions service
 * publishes it once ingest is live, clients or not) is offered to the compaction service, which
 * compacts it when it entered the auto-compact zone (DESIGN.md §5).
 */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { CompactionService } from './service.js';

/** Returns the function that stops it. */
export function startAutoCompaction(
  events: DomainBus,
  compaction: Pick<CompactionService, 'onThresholdCrossed'>,
): () => void {
  return on(events, 'session.state', ({ sessionId, state, previous }) => {
    if (state !== previous) compaction.onThresholdCrossed(sessionId, state);
  });
}
