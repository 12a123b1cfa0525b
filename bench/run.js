// `npm run bench [-- NAME...]`: runs the named benchmarks (all when none is named) and exits 1
// when a target is missed.
import { benchClient } from './client.js';
import { benchCompact } from './compact.js';
import { benchExtract } from './extract.js';
import { benchIngest } from './ingest.js';
import { benchRpc } from './rpc.js';

const BENCHES = { rpc: benchRpc, client: benchClient, ingest: benchIngest, compact: benchCompact, extract: benchExtract };

const names = process.argv.slice(2);
const unknown = names.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`bench: unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
let allOk = true;
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  allOk = (await BENCHES[name]()) && allOk;
}
process.exitCode = allOk ? 0 : 1;
