// A separate client for the scale bench: asks daemon.status every 20 ms (its own process, so the
// bench's blocking memctl runs do not stall it) and answers "worst\n" on stdin with its slowest
// answer since the last one, as a line of JSON: {"worstMs": …, "calls": …}.

import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './lib.js';

const PROBE_EVERY_MS = 20;
const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
const client = createClient({ env: process.env, autostart: false, timeoutMs: 60_000 });
let worst = 0;
let calls = 0;
/** When the call now waiting was sent: a daemon stalled right now counts as slow already. */
let inFlightSince = null;
let running = true;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'worst') {
    const waiting = inFlightSince === null ? 0 : performance.now() - inFlightSince;
    process.stdout.write(`${JSON.stringify({ worstMs: Math.max(worst, waiting), calls })}\n`);
    worst = 0;
    calls = 0;
  }
  if (line === 'stop') running = false;
});
while (running) {
  const started = performance.now();
  inFlightSince = started;
  await client.daemonStatus().catch(() => undefined);
  inFlightSince = null;
  worst = Math.max(worst, performance.now() - started);
  calls += 1;
  await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
}
client.close();
process.exit(0);
