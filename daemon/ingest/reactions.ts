/** Ingest's reaction to a rebuilt database: file ids now name other files, so every transcript is read again. */
import { type DomainBus, on } from '../bus/domain-events.js';
import type { Ingestor } from './ingestor.js';
import { scanTranscripts } from './scan.js';

/** Returns the function that stops it. */
export function rereadOnRebuild(
  events: DomainBus,
  ingest: { ingestor: Pick<Ingestor, 'touch'> },
  projectsDir: string,
): () => void {
  return on(events, 'store.rebuilt', () => {
    void scanTranscripts(projectsDir).then((files) => files.forEach((file) => ingest.ingestor.touch(file.path)));
  });
}
