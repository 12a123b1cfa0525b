/**
 * How long the event loop was held since the daemon started serving: every client waits behind
 * the longest stretch of main-thread work (issue 27 item 5), so daemon.status reports the worst
 * delay and the 99th percentile, for benches, tests and a user wondering why memctl was slow.
 * On a loaded machine the figures include the time the process waited for a core.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoopStatus } from '../../shared/protocol/daemon.js';

/** The sampling timer's period: a delay is seen to within this; 50 wake-ups a second cost nothing measurable. */
const RESOLUTION_MS = 20;
const NS_PER_MS = 1e6;

export interface LoopDelay {
  status(): LoopStatus;
  stop(): void;
}

export function watchLoopDelay(): LoopDelay {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns: number) => Math.round((ns / NS_PER_MS) * 10) / 10;
  return {
    status: () => {
      // Before the first sample the histogram's max is 0 and its min is huge; delays are counted past the timer's period.
      if (histogram.count === 0) return { maxDelayMs: 0, p99DelayMs: 0 };
      return {
        maxDelayMs: Math.max(0, ms(histogram.max) - RESOLUTION_MS),
        p99DelayMs: Math.max(0, ms(histogram.percentile(99)) - RESOLUTION_MS),
      };
    },
    stop: () => histogram.disable(),
  };
}
