/** Bad lines as `ingest.failed` events, bounded per file: a file of garbage must not flood the clients. */
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import type { CommitEvent } from './types.js';

/** Bad lines reported as ingest.failed per file per run; the rest are only counted and kept in bad_lines. */
export const MAX_FAILED_EVENTS_PER_FILE = 100;

/** Reports a commit's bad lines; returns the function that does. */
export function createFailedEvents(bus: Bus, log: Logger): (event: CommitEvent) => void {
  /** Events sent per file in this run. */
  const sentFor = new Map<string, number>();
  return (event) => {
    const { path, sessionId } = event.file;
    for (const { offset, length, reason } of event.bad) {
      // A line kept without its bad timestamp is counted, not reported as failed.
      if (reason === 'bad-timestamp') continue;
      const sent = sentFor.get(path) ?? 0;
      sentFor.set(path, sent + 1);
      if (sent < MAX_FAILED_EVENTS_PER_FILE) bus.publish('ingest.failed', { path, sessionId, offset, length, reason });
      else if (sent === MAX_FAILED_EVENTS_PER_FILE)
        log.warn('more bad lines than are reported as events; status and bad_lines count them all', { path });
    }
  };
}
