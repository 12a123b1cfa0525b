// `npm run bench [-- NAME...]`: runs the named benchmarks (all when none is named) and exits 1
// when a target is missed.
import { benchArchive } from './archive.js';
import { benchClient } from './client.js';
import { benchCompact } from './compact.js';
import { benchExtract } from './extract.js';
import { benchFidelity } from './fidelity.js';
import { benchFlood } from './flood.js';
import { benchHooks } from './hooks.js';
import { benchIngest } from './ingest.js';
import { benchLoop } from './loop.js';
import { benchRecall } from './recall.js';
import { benchRpc } from './rpc.js';
import { benchScale } from './scale.js';
import { benchSearch } from './search.js';
import { benchSearchFlood } from './search-flood.js';
import { benchSync } from './sync.js';
import { benchUsage } from './usage.js';

const BENCHES = {
  rpc: benchRpc,
  client: benchClient,
  hooks: benchHooks,
  ingest: benchIngest,
  compact: benchCompact,
  extract: benchExtract,
  scale: benchScale,
  search: benchSearch,
  'search-flood': benchSearchFlood,
  usage: benchUsage,
  archive: benchArchive,
  flood: benchFlood,
  loop: benchLoop,
  fidelity: benchFidelity,
  recall: benchRecall,
  sync: benchSync,
};
/**
 * Run by name only: they write gigabytes and take minutes; recall (issue 33) measures a ranking
 * against targets it is being built to meet, and its misses would fail every other run. The floods of issue 27 (flood,
 * search-flood: 300 MB) and loop (63 MB) take about a minute each and run with the rest.
 */
const ON_REQUEST = new Set(['scale', 'search', 'archive', 'usage', 'recall', 'sync']);

// `--size 2.4G` goes to the benchmarks that take it (scale, search, search-flood, archive, usage, loop, recall); the other arguments name benchmarks.
const argv = process.argv.slice(2);
const sizeAt = argv.indexOf('--size');
const options = sizeAt === -1 ? {} : { size: argv[sizeAt + 1] };
const names = sizeAt === -1 ? argv : argv.filter((_, index) => index !== sizeAt && index !== sizeAt + 1);
const unknown = names.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`bench: unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
let allOk = true;
for (const name of names.length > 0 ? names : Object.keys(BENCHES).filter((name) => !ON_REQUEST.has(name))) {
  allOk = (await BENCHES[name](options)) && allOk;
}
process.exitCode = allOk ? 0 : 1;
