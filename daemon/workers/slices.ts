/**
 * Work done on the main thread in slices: a loop asks `tick()` between units of work, and once
 * the slice has run its time budget the loop waits one turn of the event loop (setImmediate: the
 * sockets' reads and timers run first), so that no request or event waits behind it for long
 * (issue 27 item 5: the first load of a 63 MB session held every client 0.8-1.2 s). The request's
 * AbortSignal is honoured between slices.
 */

/**
 * A slice's budget: well under the 100 ms a client may wait, and long enough that the turns
 * between slices (a few µs each, plus whatever else runs) cost a few percent of the work.
 */
export const SLICE_BUDGET_MS = 12;

export interface Slicer {
  /** Waits a turn when this slice has used its budget; throws the signal's reason once it is aborted. */
  tick(): Promise<void> | undefined;
  /** Slices so far (1 until the first wait). */
  readonly slices: number;
}

export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `tick()` returns undefined while the slice goes on, so a loop awaits only when it must (`await slicer.tick()` is fine either way). */
export function createSlicer(signal?: AbortSignal, budgetMs = SLICE_BUDGET_MS): Slicer {
  let sliceStart = performance.now();
  let slices = 1;
  const wait = async () => {
    await nextTurn();
    signal?.throwIfAborted();
    slices += 1;
    sliceStart = performance.now();
  };
  return {
    get slices() {
      return slices;
    },
    tick() {
      if (performance.now() - sliceStart >= budgetMs) return wait();
      if (signal?.aborted) return Promise.reject(signal.reason);
      return undefined;
    },
  };
}

/**
 * A generator that yields between units of work (a page of rows, a line read back) can run to
 * its end at once, where the caller holds a transaction and the work is known to be small, or in
 * slices (runSliced) where it may be large.
 */
export type Steps<T> = Generator<void, T, void>;

export function runNow<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Runs `steps` a slice at a time; an abort ends the generator (its `finally` blocks run) and throws the reason. */
export async function runSliced<T>(steps: Steps<T>, slicer: Slicer): Promise<T> {
  try {
    let step = steps.next();
    while (!step.done) {
      const wait = slicer.tick();
      if (wait !== undefined) await wait;
      step = steps.next();
    }
    return step.value;
  } catch (error) {
    steps.return(undefined as never);
    throw error;
  }
}
