/**
 * The ingestor's lanes: up to `count` drains at once, each taking the queue's next file (or group
 * of files) while there is one and its lane may start. `kick` starts a drain in every free lane
 * that has work; `idle` waiters are woken once every lane is done and nothing is running.
 */
import type { PassQueue } from './pass-queue.js';

export interface LanesDeps {
  count: number;
  queue: PassQueue;
  stopped(): boolean;
  /** Whether a pass may start in this lane now (the store's backoff holds all but one back). */
  mayStart(lane: number): boolean;
  /** Reads the queue's next file in `lane` (a pass of its own, or a group with other small files). */
  run(lane: number, next: { path: string; fromBacklog: boolean }): Promise<void>;
  /** Nothing queued or being read. */
  isIdle(): boolean;
}

export interface Lanes {
  kick(): void;
  /** Resolves once nothing is queued or being read (or the lanes are woken on stop). */
  idle(): Promise<void>;
  /** Resolves once every running drain has ended. */
  settled(): Promise<void>;
  /** Resolves every idle() waiter (ingest stopped). */
  wake(): void;
}

export function createLanes(deps: LanesDeps): Lanes {
  const { queue, stopped, mayStart } = deps;
  const lanes: (Promise<void> | null)[] = Array.from({ length: deps.count }, () => null);
  let idleWaiters: (() => void)[] = [];

  async function drain(lane: number): Promise<void> {
    while (!stopped() && mayStart(lane)) {
      const next = queue.next();
      if (next === null) return;
      await deps.run(lane, next);
    }
  }

  function kick(): void {
    if (stopped()) return;
    lanes.forEach((busy, lane) => {
      if (busy !== null || queue.size === 0 || !mayStart(lane)) return;
      lanes[lane] = drain(lane).finally(() => {
        lanes[lane] = null;
        if (!stopped() && queue.size > 0) kick();
        if (!deps.isIdle() && !stopped()) return;
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      });
    });
  }

  return {
    kick,
    idle() {
      if (deps.isIdle()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    settled: async () => {
      await Promise.all(lanes);
    },
    wake() {
      for (const resolve of idleWaiters.splice(0)) resolve();
    },
  };
}
