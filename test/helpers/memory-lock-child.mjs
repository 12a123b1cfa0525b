/**
 * Another process taking a session-memory lock directly with proper-lockfile, as a main agent may
 * (test/unit/daemon/extraction/lock.test.ts). Plain JS, so it runs without a build.
 *
 *   node memory-lock-child.mjs rounds <dir> <writeLog> <rounds> <staleMs> <seed>
 *     Prints "ready", then makes <rounds> attempts to take the lock; each one that succeeds appends
 *     "child start" and "child end" to <writeLog> around a random hold of 0-3 ms. Prints its counts
 *     as JSON and exits.
 *   node memory-lock-child.mjs hold <dir> <staleMs>
 *     Takes the lock, prints "locked", and holds it (refreshing its mtime) until killed.
 */
import { appendFileSync, openSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { seededRandom } from './seeded-random.mjs';

const MAX_HOLD_MS = 3;
const MAX_BACKOFF_MS = 2;

const pause = (ms) => (ms > 0 ? delay(ms) : Promise.resolve());

function lockOptions(staleMs) {
  return {
    stale: staleMs,
    retries: 0,
    onCompromised: (error) => {
      process.stderr.write(`lock compromised: ${error.message}\n`);
      process.exit(3);
    },
  };
}

async function rounds(dir, writeLog, count, staleMs, seed) {
  const random = seededRandom(seed);
  const fd = openSync(writeLog, 'a');
  let taken = 0;
  let busy = 0;
  process.stdout.write('ready\n');
  for (let round = 0; round < count; round++) {
    let release;
    try {
      release = await lockfile.lock(dir, lockOptions(staleMs));
    } catch (error) {
      if (error.code !== 'ELOCKED') throw error;
      busy++;
      await pause(Math.floor(random() * (MAX_BACKOFF_MS + 1)));
      continue;
    }
    appendFileSync(fd, 'child start\n');
    await pause(Math.floor(random() * (MAX_HOLD_MS + 1)));
    appendFileSync(fd, 'child end\n');
    await release();
    taken++;
  }
  process.stdout.write(`${JSON.stringify({ taken, busy })}\n`);
}

async function hold(dir, staleMs) {
  await lockfile.lock(dir, lockOptions(staleMs));
  process.stdout.write('locked\n');
  setInterval(() => {}, 60_000);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'rounds') {
  const [dir, writeLog, count, staleMs, seed] = args;
  await rounds(dir, writeLog, Number(count), Number(staleMs), Number(seed));
} else if (mode === 'hold') {
  const [dir, staleMs] = args;
  await hold(dir, Number(staleMs));
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
