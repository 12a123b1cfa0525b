/**
 * How long the event loop was held while the daemon was busy: every client waits behind the
 * longest stretch of main-thread work (issue 27 item 5), so daemon.status reports the worst
 * delay and the 99th percentile, for benches, tests and a user wondering why memctl was slow.
 * On a loaded machine the figures include the time the process waited for a core.
 *
 * A timer every RESOLUTION_MS records how late it ran. It runs only while there is work: a
 * request, or a domain event (ingest's commits among them), starts it before the work runs, and
 * it stops IDLE_AFTER_MS after the last of them. Always on (node's monitorEventLoopDelay), its 50
 * wake-ups a second were most of an idle daemon's CPU (0.10 s of the main thread per 20 s idle,
 * 0.04 s without it). Start-up, before the first request or event, is not counted.
 */
import { createHistogram } from 'node:perf_hooks';
import type { LoopStatus } from '../../shared/protocol/daemon.js';

/** The sampling timer's period: a delay is seen to within this. */
const RESOLUTION_MS = 20;
/** The timer stops this long after the last request or event. */
const IDLE_AFTER_MS = 10_000;
const NS_PER_MS = 1e6;

export interface LoopDelay {
  status(): LoopStatus;
  /** Work is about to run (a request, an event): sampled from now until IDLE_AFTER_MS after the last call. */
  busy(): void;
  stop(): void;
}

export function watchLoopDelay(idleAfterMs = IDLE_AFTER_MS): LoopDelay {
  const histogram = createHistogram();
  const ms = (ns: number) => Math.round((ns / NS_PER_MS) * 10) / 10;
  let lastBusy = 0;
  let timer: NodeJS.Timeout | null = null;
  /** When the pending tick should run. */
  let due = 0;
  let stopped = false;
  const arm = (now: number) => {
    due = now + RESOLUTION_MS;
    timer = setTimeout(tick, RESOLUTION_MS).unref();
  };
  const tick = () => {
    const now = performance.now();
    // How late the tick ran: how long the loop was held past its turn (at least 1 ns, as record() takes).
    histogram.record(Math.max(1, Math.round((now - due) * NS_PER_MS)));
    if (now - lastBusy >= idleAfterMs) timer = null;
    else arm(now);
  };
  return {
    status: () =>
      histogram.count === 0
        ? { maxDelayMs: 0, p99DelayMs: 0 }
        : { maxDelayMs: ms(histogram.max), p99DelayMs: ms(histogram.percentile(99)) },
    busy() {
      lastBusy = performance.now();
      if (timer === null && !stopped) arm(lastBusy);
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
