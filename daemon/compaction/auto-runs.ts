/**
 * Auto-compaction's runs and the circuit breaker they feed. One run at a time per session, shared
 * by everyone who asks meanwhile: it stops (the model call with it) once every caller that can
 * cancel has and none that cannot (the threshold trigger) waits; a run that is stopping is not
 * joined, the next starts once it has. A failure counts toward the breaker and a success resets
 * it; a stopped run is neither, and neither is the caller's or the session's case (NotFound,
 * NothingToCompact). Apart from service.ts because it is a state machine of its own, over runs
 * and waiters, that knows nothing of what a run compacts.
 */
import type { CompactionResult, CompactionStatus } from '../../shared/protocol/compaction.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { Logger } from '../log/logger.js';

/** DESIGN.md §5: three failed compactions in a row stop auto-compaction for the session. */
export const CIRCUIT_BREAKER_FAILURES = 3;

/** The abort reason of a run whose callers all cancelled: no failed compaction, so not one for the breaker. */
const CANCELLED_BY_CALLERS = new Error('the compaction was cancelled by its callers');

/** One auto-compaction of a session and who waits for it. */
interface AutoRun {
  done: Promise<CompactionResult>;
  abort: AbortController;
  /** Callers that wait with a signal and have not cancelled. */
  cancellable: number;
  /** A caller without a signal (the threshold trigger) waits: the run goes on whatever the others do. */
  held: boolean;
}

/** The compaction, and why the configured summarizer's summary was not used (null when it was). */
export type RunCompaction = (
  sessionId: string,
  instructions: string | undefined,
  signal: AbortSignal,
) => Promise<{ done: CompactionResult; failure: string | null }>;

export interface AutoRuns {
  /** The session's run, joined or started; without a signal the caller holds it until it ends. */
  join(sessionId: string, instructions: string | undefined, signal?: AbortSignal): Promise<CompactionResult>;
  /** Failed runs of the session in a row. */
  failures(sessionId: string): number;
  /** Whether the breaker has stopped auto-compaction of the session. */
  stopped(sessionId: string): boolean;
  failing(): CompactionStatus['failing'];
  /** Stops every run (shutdown). */
  abortAll(): void;
}

/** Not a failed compaction: the caller's or the session's state, so the breaker does not count it. */
function isCallersCase(error: unknown): boolean {
  return error instanceof RpcError && (error.code === ErrorCode.NotFound || error.kind === 'NothingToCompact');
}

export function createAutoRuns(compact: RunCompaction, log: Logger): AutoRuns {
  const failures = new Map<string, { count: number; lastError: string }>();
  const running = new Map<string, AutoRun>();
  const aborts = new Set<AbortController>();

  function countFailure(sessionId: string, lastError: string): void {
    failures.set(sessionId, { count: (failures.get(sessionId)?.count ?? 0) + 1, lastError });
  }

  /**
   * One auto-compaction at a time per session; failures feed the breaker, a success resets it. A
   * run its callers all cancelled is neither: it stopped, and the log says so.
   */
  function startAuto(sessionId: string, instructions: string | undefined): AutoRun {
    const abort = new AbortController();
    aborts.add(abort);
    const done = compact(sessionId, instructions, abort.signal)
      .then(({ done, failure }) => {
        // A fragment replaced by the fallback still counts: the summarizer failed.
        if (failure === null) failures.delete(sessionId);
        else countFailure(sessionId, failure);
        return done;
      })
      .catch((error: unknown) => {
        if (abort.signal.reason === CANCELLED_BY_CALLERS)
          log.info('auto-compaction cancelled by its callers', { sessionId, error });
        // A session that is not there, or too small to compact, is no failed compaction.
        else if (!isCallersCase(error)) countFailure(sessionId, (error as Error).message);
        throw error;
      })
      .finally(() => {
        aborts.delete(abort);
        running.delete(sessionId);
      });
    return { done, abort, cancellable: 0, held: false };
  }

  function auto(sessionId: string, instructions: string | undefined, signal?: AbortSignal): Promise<CompactionResult> {
    const pending = running.get(sessionId);
    // A run that is stopping cannot be joined: the next one starts once it has.
    if (pending?.abort.signal.aborted) {
      const again = () => auto(sessionId, instructions, signal);
      return pending.done.then(again, again);
    }
    const run = pending ?? startAuto(sessionId, instructions);
    running.set(sessionId, run);
    if (signal === undefined) {
      run.held = true;
      return run.done;
    }
    return followUntilCancelled(run, signal);
  }

  /** The run's outcome for one caller, who stops waiting when its signal aborts; the last to leave stops the run. */
  function followUntilCancelled(run: AutoRun, signal: AbortSignal): Promise<CompactionResult> {
    return new Promise<CompactionResult>((resolve, reject) => {
      const leave = () => {
        run.cancellable -= 1;
        if (run.cancellable === 0 && !run.held) run.abort.abort(CANCELLED_BY_CALLERS);
        reject(new Error('the compaction was cancelled by its caller'));
      };
      run.cancellable += 1;
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      run.done.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
    });
  }

  return {
    join: auto,
    failures: (sessionId) => failures.get(sessionId)?.count ?? 0,
    stopped: (sessionId) => (failures.get(sessionId)?.count ?? 0) >= CIRCUIT_BREAKER_FAILURES,
    failing: () =>
      [...failures].map(([sessionId, failure]) => ({
        sessionId,
        failures: failure.count,
        stopped: failure.count >= CIRCUIT_BREAKER_FAILURES,
        lastError: failure.lastError,
      })),
    abortAll() {
      for (const abort of aborts) abort.abort();
    },
  };
}
