/**
 * One load per session at a time, shared by every caller that wants the same version of it: ten
 * clients asking for the context of one big session cost one load, not ten in turn. A caller that
 * wants another version (the transcript grew since) waits for the running load to end and then
 * starts its own, which reads only what is new. Each caller may give up (its AbortSignal) without
 * ending the load for the others; the load is aborted when its last caller gave up.
 */

interface Running<T> {
  version: string;
  done: Promise<T>;
  waiters: number;
  abort: AbortController;
}

export type Share<T> = (
  key: string,
  version: string,
  start: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
) => Promise<T>;

/** `promise`, or the signal's reason once it aborts first. */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => void = () => undefined,
): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const aborted = () => {
      onAbort();
      reject(signal.reason);
    };
    if (signal.aborted) return aborted();
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(error);
      },
    );
  });
}

export function createSharedLoads<T>(): Share<T> {
  const running = new Map<string, Running<T>>();

  const start = (key: string, version: string, load: (signal: AbortSignal) => Promise<T>): Running<T> => {
    const abort = new AbortController();
    const entry: Running<T> = { version, done: Promise.resolve().then(() => load(abort.signal)), waiters: 0, abort };
    running.set(key, entry);
    const forget = () => {
      if (running.get(key) === entry) running.delete(key);
    };
    // Its callers see the failure; a load nobody waits for any more must not be an unhandled rejection.
    entry.done.then(forget, forget);
    return entry;
  };

  const join = (key: string, entry: Running<T>, signal: AbortSignal | undefined): Promise<T> => {
    entry.waiters += 1;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      entry.waiters -= 1;
      if (entry.waiters > 0) return;
      entry.abort.abort(signal?.reason);
      if (running.get(key) === entry) running.delete(key);
    };
    const done = untilAborted(entry.done, signal, leave);
    done.then(
      () => (left = true),
      () => undefined,
    );
    return done;
  };

  return async (key, version, load, signal) => {
    signal?.throwIfAborted();
    let current = running.get(key);
    while (current !== undefined && current.version !== version) {
      await untilAborted(
        current.done.then(
          () => undefined,
          () => undefined,
        ),
        signal,
      );
      current = running.get(key);
    }
    return join(key, current ?? start(key, version, load), signal);
  };
}
