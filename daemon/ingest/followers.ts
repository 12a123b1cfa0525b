/**
 * The parts that follow the index from the end of the backfill on, each at its own pace: the
 * search index's build (lines ingested before the index existed), the archive, the usage book.
 * One shape, so that main.ts starts, feeds and stops them in one list.
 */
import { type DomainBus, on } from '../bus/domain-events.js';

export interface IndexFollower {
  /** Its shutdown step, as the log names it. */
  readonly stopStep: string;
  /** The backfill is done: what it read is followed first, then what ingest commits. */
  start(): void | Promise<void>;
  /** Ingest committed rows (live or not). Absent: it reads what it needs without being told. */
  committed?(): void;
  /** At shutdown, after ingest stopped. */
  stop(): void | Promise<void>;
}

/** Feeds the followers, in their order, what ingest tells. Returns the function that stops it. */
export function followIndex(events: DomainBus, followers: readonly IndexFollower[]): () => void {
  const stops = [
    on(events, 'transcripts.committed', ({ live }) => {
      // Not while a backfill reads (the first, or another machine's history): they would take the
      // main thread from it; the backfill's end tells them (`transcripts.backfilled`, or a live commit).
      if (!live) return;
      for (const follower of followers) follower.committed?.();
    }),
    on(events, 'transcripts.backfilled', () => {
      // Started once the backfill has the cores, in the list's order.
      for (const follower of followers) void follower.start();
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
