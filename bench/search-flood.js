// `npm run bench -- search-flood [--size 300M]`: one client floods search.query with hostile
// queries (several in flight at once, back to back) while another runs ordinary searches (issue
// 27). The hostile queries: the issue's NEAR of 320 prefixes (held the single search worker for a
// minute at 28 MB of index) and the heaviest query within the parse limits (8 prefixes in a NEAR
// and 64 words in all). Reports the other client's p50/p99 latency and memd's peak RSS (its own
// VmHWM, and memd with its search processes, sampled).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fmt, makeSandbox, percentile, ROOT } from './lib.js';
import { caughtUp, startDaemon, until } from './scale.js';
import { parseSize, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
const DEFAULT_BYTES = 300 * MB;
/** Hostile queries in flight at once on the hostile client's connection. */
const HOSTILE_IN_FLIGHT = 4;
/** The ordinary client searches this long under the flood (as many times as it gets answers)... */
const FLOOD_MS = 30_000;
/** ...after as many searches without it. */
const ORDINARY_QUERIES = 300;
/** A client call waits this long at most (the original code made ordinary searches wait minutes). */
const CALL_TIMEOUT_MS = 180_000;
const SAMPLE_EVERY_MS = 100;
const TARGETS = { p99Ms: 100, rssBytes: 400 * MB };
const pass = (ok) => (ok ? 'PASS' : 'FAIL');

const COMMON = 'the a to of in and is for it on that with this be'.split(' ');
const HOSTILE = [
  `NEAR(${Array(320).fill('a*').join(' ')}, 999)`.slice(0, 1_000),
  `NEAR(a* t* s* c* p* i* e* r*, 999) ${Array.from({ length: 56 }, (_, i) => COMMON[i % COMMON.length]).join(' ')}`,
];
const HOSTILE_NAMES = ['NEAR×320', 'heaviest allowed'];
const ORDINARY = [
  'invoice',
  'discount tax',
  '"computeTotal"',
  'test*',
  'README OR docs',
  'AssertionError',
  'npm',
  'price cents',
  'scraper',
  'regex',
];

/** KB of a /proc/<pid>/status field, or 0 when the process is gone. */
function statusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `pid` (memd's search processes). */
function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent is the second field after the command's closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Gone since the listing.
    }
  }
  return found;
}

function startRssSampler(pid) {
  let peak = 0;
  const sample = () => {
    const total = [pid, ...childrenOf(pid)].reduce((sum, each) => sum + statusKb(each, 'VmRSS'), 0);
    peak = Math.max(peak, total);
  };
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  sample();
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

export async function benchSearchFlood(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const sandbox = makeSandbox();
  const env = { ...sandbox.env, MEMD_BACKFILL_EXTRACTIONS: '0' };
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const results = [];
  const report = (line, ok) => {
    console.log(`  ${line}${ok === undefined ? '' : `: ${pass(ok)}`}`);
    if (ok !== undefined) results.push(ok);
  };
  let running;
  let hostile;
  const clients = [];
  try {
    const corpus = writeScaleCorpus(
      env.MEMD_PROJECTS_DIR,
      options.size === undefined ? DEFAULT_BYTES : parseSize(options.size),
    );
    console.log(
      `search-flood: ${fmt(corpus.bytes / MB)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files`,
    );
    running = await startDaemon(createClient, env);
    await caughtUp(running.client, corpus.bytes);
    await until(
      async () => (await running.client.searchQuery({ query: 'invoice' })).index.state === 'ready',
      'the search index to be built',
    );
    const { pid } = await running.client.daemonStatus();
    const stopSampling = startRssSampler(pid);

    const ordinary = createClient({ env, autostart: false, timeoutMs: CALL_TIMEOUT_MS });
    clients.push(ordinary);
    // The same searches without the flood first: on a shared machine, what the flood adds.
    const quiet = [];
    for (let i = 0; i < ORDINARY_QUERIES; i++) {
      const started = performance.now();
      await ordinary.searchQuery({ query: ORDINARY[i % ORDINARY.length], limit: 10 });
      quiet.push(performance.now() - started);
    }
    quiet.sort((a, b) => a - b);
    report(
      `without the flood, the same client's search.query over ${quiet.length} queries: p50 ${fmt(percentile(quiet, 50), 1)} ms, p99 ${fmt(percentile(quiet, 99), 1)} ms`,
    );
    hostile = spawn(
      process.execPath,
      [
        join(ROOT, 'bench/search-flood-hostile.js'),
        String(HOSTILE_IN_FLIGHT),
        JSON.stringify(HOSTILE),
        JSON.stringify(HOSTILE_NAMES),
      ],
      {
        env,
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: hostile.stdout })[Symbol.asyncIterator]();
    await lines.next();
    // The flood under way before the first ordinary search.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const latencies = [];
    const floodEnds = performance.now() + FLOOD_MS;
    for (let i = 0; performance.now() < floodEnds; i++) {
      const started = performance.now();
      await ordinary.searchQuery({ query: ORDINARY[i % ORDINARY.length], limit: 10 });
      latencies.push(performance.now() - started);
    }
    hostile.stdin.write('stop\n');
    const floodStopped = performance.now();
    const outcomes = JSON.parse((await lines.next()).value);
    const drainMs = performance.now() - floodStopped;
    const peakTotal = stopSampling();
    const hwm = statusKb(pid, 'VmHWM');
    const status = await running.client.daemonStatus();

    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    const hostileLine = Object.entries(outcomes).map(([key, n]) => `${n} ${key}`);
    report(
      `hostile client (${HOSTILE_IN_FLIGHT} in flight): ${hostileLine.join(', ')}; the last ones drained in ${fmt(drainMs / 1000, 1)} s`,
    );
    if (status.search !== undefined) report(`daemon.status search: ${JSON.stringify(status.search)}`);
    report(
      `the other client's search.query over ${latencies.length} queries: p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms (target <= ${TARGETS.p99Ms})`,
      p99 <= TARGETS.p99Ms,
    );
    report(
      `memd peak RSS ${fmt(hwm / MB)} MB (VmHWM); with its search processes ${fmt(peakTotal / MB)} MB (sampled; target <= ${TARGETS.rssBytes / MB})`,
      Math.max(hwm, peakTotal) <= TARGETS.rssBytes,
    );
    return results.every(Boolean);
  } finally {
    hostile?.kill();
    for (const client of clients) client.close();
    running?.client.close();
    await running?.daemon.stop();
    sandbox.cleanup();
  }
}
