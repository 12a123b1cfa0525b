import { afterEach, describe, expect, it } from 'vitest';
import { type LoopDelay, watchLoopDelay } from '../../../../daemon/lifecycle/loop-delay.js';
import { eventually } from '../../../helpers/poll.js';

/** Holds the event loop, as a long synchronous stretch of daemon work would. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

let loop: LoopDelay | undefined;
afterEach(() => loop?.stop());

describe('watchLoopDelay', () => {
  it('counts a stretch of work that follows busy()', async () => {
    loop = watchLoopDelay(10_000);
    const watched = loop;
    watched.busy();
    hold(120);
    await eventually(() => watched.status().maxDelayMs >= 60, 'the held loop to be counted');
  });

  it('counts nothing before the first busy() and once it has been idle for the idle time', async () => {
    loop = watchLoopDelay(50);
    const watched = loop;
    hold(120);
    expect(watched.status()).toEqual({ maxDelayMs: 0, p99DelayMs: 0 });

    watched.busy();
    // Sampled while busy (a few samples of an idle loop), then idle past 50 ms: the timer stops.
    const idleSince = performance.now();
    await eventually(() => performance.now() - idleSince > 200, '200 ms without work');
    const before = watched.status();
    hold(120);
    const idleAgain = performance.now();
    await eventually(() => performance.now() - idleAgain > 100, 'the timer to have had its chance');
    expect(watched.status().maxDelayMs).toBe(before.maxDelayMs);
    expect(before.maxDelayMs).toBeLessThan(60);
  });
});
