// The hostile client of the search-flood bench, in its own process (as a real one would be, and so
// that its answers do not delay the measured client's): keeps IN_FLIGHT hostile searches going on
// one connection until "stop\n" on stdin, then prints what they were answered as a line of JSON.

import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './lib.js';

const inFlight = Number(process.argv[2] ?? '4');
const queries = JSON.parse(process.argv[3] ?? '[]');
const names = JSON.parse(process.argv[4] ?? '[]');
const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
const client = createClient({ env: process.env, autostart: false, timeoutMs: 600_000 });
let flooding = true;
const outcomes = {};
const count = (key) => {
  outcomes[key] = (outcomes[key] ?? 0) + 1;
};
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'stop') flooding = false;
});
const lane = async (first) => {
  for (let n = first; flooding; n += inFlight) {
    const name = names[n % queries.length];
    await client.searchQuery({ query: queries[n % queries.length] }).then(
      () => count(`answered (${name})`),
      (error) => count(`${error.kind ?? error.message} (${name})`),
    );
  }
};
process.stdout.write('started\n');
await Promise.all(Array.from({ length: inFlight }, (_, first) => lane(first)));
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
client.close();
process.exit(0);
