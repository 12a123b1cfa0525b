/**
 * The daemon's internal events: what one part tells the others after the commit it describes.
 * A part publishes what happened to it; the parts built after it subscribe (each domain's
 * reactions.ts, which main.ts calls in the order they run), so no part calls into one that does
 * not exist yet.
 */
import type { ThresholdState } from '../../shared/protocol/sessions.js';
import { type Bus, createBus } from './bus.js';

export interface DomainEvents {
  /** Ingest committed entries of these sessions; `live` once the start-up backfill is done. */
  'transcripts.committed': { sessionIds: readonly string[]; live: boolean };
  /** Every transcript found at start has been read. */
  'transcripts.backfilled': Record<string, never>;
  /** A session-memory extraction wrote the session's summary.md. */
  'extraction.done': { sessionId: string };
  /** A session's memory lock was taken or let go: its summary changed, and no commit says so. */
  'extraction.memoryStateChanged': { sessionId: string };
  /** A changed session's threshold state, with the one before it (undefined the first time seen). */
  'session.state': { sessionId: string; state: ThresholdState; previous: ThresholdState | undefined };
  /** The database was rebuilt while memd ran: file ids now name other files. */
  'store.rebuilt': Record<string, never>;
}

export type DomainBus = Bus<DomainEvents>;

export function createDomainBus(onListenerError: (error: unknown, topic: keyof DomainEvents) => void): DomainBus {
  return createBus<DomainEvents>(onListenerError);
}

/** Subscribes to one topic; returns the function that unsubscribes. */
export function on<T extends keyof DomainEvents>(
  bus: DomainBus,
  topic: T,
  listener: (payload: DomainEvents[T]) => void,
): () => void {
  return bus.listen(
    (published, payload) => {
      if ((published as keyof DomainEvents) === topic) listener(payload as DomainEvents[T]);
    },
    (wanted) => wanted === topic,
  );
}
