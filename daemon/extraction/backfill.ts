/**
 * Session-memory extraction for sessions the backfill read (issue 12). Extraction is triggered by
 * live changes; the backfill reads history and triggers nothing, so a session that crossed the
 * extraction threshold while memd was down (or before memd ever ran) had no session memory until
 * it changed again, and `compact.auto` after a restart summarized it from scratch. Once the
 * backfill is done, each such session gets one look at its triggers, and one extraction when they
 * say so, at the lowest priority:
 *   - only while no other extraction is queued, deferred or running (live sessions go first);
 *   - one at a time, BACKFILL_INTERVAL_MS apart, the first one interval after the backfill;
 *   - sessions active within BACKFILL_MAX_AGE_MS of the newest activity in the index, newest
 *     first, at most `maxSessions` per daemon run (the `backfillExtractions` setting; an older
 *     session is extracted when it changes live). Measured from the index, not the clock: the same transcripts give the same choice
 *     whenever memd starts, and after a month away the last week's sessions still count.
 * The candidates are the sessions the backfill changed and the recent ones never extracted (an
 * earlier run may have stopped before it got to them). The lock check is the job's (service.ts).
 */

/** A session this much older than the newest is unlikely to be compacted soon; it is extracted when it changes. */
export const BACKFILL_MAX_AGE_MS = 7 * 24 * 60 * 60_000;
/** Between two backfill extractions: history never keeps the extractor (or the API) busy back to back. */
export const BACKFILL_INTERVAL_MS = 5_000;
/** Trigger checks per tick: each reads a session's aggregate (and counts its context when that was never counted). */
const CHECKS_PER_TICK = 20;

export interface BackfillSession {
  sessionId: string;
  /** ISO time of the session's newest entry, or null when none has one. */
  lastActivity: string | null;
}

export interface BackfillExtractionDeps {
  /**
   * Every indexed session, newest first (those without activity last), read lazily: the
   * aggregates' index, so start-up reads no files rows, and only as far as the choice goes.
   */
  sessions(): Iterable<BackfillSession>;
  hasExtraction(sessionId: string): boolean;
  /** No extraction job is queued, deferred or running. */
  idle(): boolean;
  /** Queues an extraction (reason `backfill`) if the session's triggers say one is due; true when queued. */
  enqueueIfDue(sessionId: string): boolean;
  /** Per daemon run: a first start over years of transcripts must not queue thousands of summaries. */
  maxSessions: number;
  intervalMs?: number;
}

export interface BackfillExtractions {
  /** The backfill changed this session. */
  noteChanged(sessionId: string): void;
  /** The backfill is done: choose the candidates and start on them. */
  start(): void;
  /** Candidates not looked at yet. */
  pending(): number;
  close(): void;
}

export function createBackfillExtractions(deps: BackfillExtractionDeps): BackfillExtractions {
  const interval = deps.intervalMs ?? BACKFILL_INTERVAL_MS;
  const changed = new Set<string>();
  let queue: string[] = [];
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  function later(): void {
    if (closed || queue.length === 0 || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      tick();
    }, interval);
    timer.unref();
  }

  function tick(): void {
    if (closed) return;
    if (!deps.idle()) return later();
    for (let checks = 0; checks < CHECKS_PER_TICK && queue.length > 0; checks++) {
      if (deps.enqueueIfDue(queue.shift() as string)) break;
    }
    later();
  }

  /**
   * Newest first and only until enough are found, or until they are older than a week before the
   * newest: at 50,000 sessions, parsing and sorting all their times held the loop 60 ms.
   */
  function candidates(): string[] {
    const chosen: string[] = [];
    let newest: number | null = null;
    for (const session of deps.sessions()) {
      if (chosen.length >= deps.maxSessions || session.lastActivity === null) break;
      const at = Date.parse(session.lastActivity);
      if (!Number.isFinite(at)) continue;
      newest ??= at;
      if (at < newest - BACKFILL_MAX_AGE_MS) break;
      if (changed.has(session.sessionId) || !deps.hasExtraction(session.sessionId)) chosen.push(session.sessionId);
    }
    return chosen;
  }

  return {
    noteChanged(sessionId) {
      if (!started) changed.add(sessionId);
    },
    start() {
      if (started || closed) return;
      started = true;
      if (deps.maxSessions === 0) return;
      queue = candidates();
      changed.clear();
      // The first an interval later too: not amid a start-up's watch and sweep, nor its first requests.
      later();
    },
    pending: () => queue.length,
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
