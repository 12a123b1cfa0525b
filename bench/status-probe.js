// A separate client for the scale bench: asks daemon.status every 20 ms (its own process, so the
// bench's blocking memctl runs do not stall it) and answers "worst\n" on stdin with its slowest
// answer since the last one, its 99th percentile and how many took longer than the bound given as
// its argument (issue 34's 50 ms, from scale.js), as a line of JSON:
// {"worstMs": …, "p99Ms": …, "slow": …, "calls": …}.

import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './lib.js';

const PROBE_EVERY_MS = 20;
const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
const client = createClient({ env: process.env, autostart: false, timeoutMs: 60_000 });
let worst = 0;
let calls = 0;
/** Every answer's time since the last report. */
let times = [];
/** The bound on a status answer that scale.js counts answers over. */
const SLOW_MS = Number(process.argv[2]);
/** When the call now waiting was sent: a daemon stalled right now counts as slow already. */
let inFlightSince = null;
let running = true;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'worst') {
    const waiting = inFlightSince === null ? 0 : performance.now() - inFlightSince;
    const sorted = times.sort((a, b) => a - b);
    const p99Ms = sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
    const slow = sorted.filter((ms) => ms > SLOW_MS).length;
    process.stdout.write(`${JSON.stringify({ worstMs: Math.max(worst, waiting), p99Ms, slow, calls })}\n`);
    worst = 0;
    calls = 0;
    times = [];
  }
  if (line === 'stop') running = false;
});
while (running) {
  const started = performance.now();
  inFlightSince = started;
  await client.daemonStatus().catch(() => undefined);
  inFlightSince = null;
  const ms = performance.now() - started;
  worst = Math.max(worst, ms);
  times.push(ms);
  calls += 1;
  await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
}
client.close();
process.exit(0);
