import { describe, expect, it } from 'vitest';
import { createLanes } from '../../../../daemon/ingest/lanes.js';
import { PassQueue } from '../../../../daemon/ingest/pass-queue.js';

/** A run the test ends when it likes. */
function held() {
  const ends = new Map<string, () => void>();
  const run = (path: string) => new Promise<void>((resolve) => ends.set(path, resolve));
  return { ends, run };
}

describe('the lanes', () => {
  it('run one file per lane at once, take the next as one ends, and wake idle waiters once all are done', async () => {
    const queue = new PassQueue();
    const running = new Set<string>();
    const { ends, run } = held();
    const lanes = createLanes({
      count: 2,
      queue,
      stopped: () => false,
      mayStart: () => true,
      async run(_lane, next) {
        running.add(next.path);
        await run(next.path);
        running.delete(next.path);
      },
      isIdle: () => running.size === 0 && queue.size === 0,
    });
    for (const path of ['a', 'b', 'c']) queue.addLive(path);
    lanes.kick();
    expect([...running].sort()).toEqual(['a', 'b']);
    let idle = false;
    const waited = lanes.idle().then(() => (idle = true));
    ends.get('a')?.();
    await expect.poll(() => running.has('c')).toBe(true);
    ends.get('b')?.();
    ends.get('c')?.();
    await waited;
    expect(idle).toBe(true);
    expect(queue.size).toBe(0);
  });

  it('start nothing in a lane that may not start, nor once stopped', () => {
    const queue = new PassQueue();
    const started: number[] = [];
    let stopped = false;
    const lanes = createLanes({
      count: 2,
      queue,
      stopped: () => stopped,
      mayStart: (lane) => lane === 0,
      run: async (lane) => {
        started.push(lane);
        await new Promise<void>(() => undefined);
      },
      isIdle: () => false,
    });
    queue.addLive('a');
    queue.addLive('b');
    lanes.kick();
    expect(started).toEqual([0]);
    stopped = true;
    lanes.kick();
    expect(started).toEqual([0]);
  });
});
