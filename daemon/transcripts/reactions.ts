/** The read model's reaction to a rebuilt database: file ids now name other files, so no cached entry survives. */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { Transcripts } from './transcripts.js';

/** Returns the function that stops it. */
export function forgetEntriesOnRebuild(events: DomainBus, transcripts: Pick<Transcripts, 'clear'>): () => void {
  return on(events, 'store.rebuilt', () => transcripts.clear());
}
