// `npm run bench -- search [--size 2.4G]`: the search index on the heavy-user corpus of the scale
// bench (issue 17). The backfill with and without the index (MEMD_SEARCH_INDEX=off), the index's
// size against the text it indexes, 100 varied queries' latency, `memctl search` against bare
// `node -e 0`, and the worst `daemon.status` a parallel client sees while the queries run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, MEMCTL_MAIN, makeSandbox, median, percentile, ROOT } from './lib.js';
import { caughtUp, dbBytes, startDaemon, startProbe } from './scale.js';
import { parseSize, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
const QUERIES = 100;
const WALL_RUNS = 20;
const TARGETS = { overhead: 0.25, sizeRatio: 0.35, p50Ms: 10, p99Ms: 50, wallRatio: 1.5, statusWorstMs: 100 };
const pass = (ok) => (ok ? 'PASS' : 'FAIL');

/** The characters the index holds: every searchable text of every line, as ingest extracts them. */
async function indexedChars(files) {
  const { searchTexts } = await import(join(ROOT, 'dist/shared/search/text.js'));
  let chars = 0;
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      for (const { text } of searchTexts(JSON.parse(line))) chars += Buffer.byteLength(text);
    }
  }
  return chars;
}

/** 100 queries of the shapes people type: words, two words, phrases, prefixes, OR, filters. */
function queries(sessionIds) {
  const words = [
    'invoice',
    'discount',
    'tax',
    'test',
    'node',
    'computeTotal',
    'AssertionError',
    'README',
    'scraper',
    'price',
    'regex',
    'commit',
    'docs',
    'Grep',
    'failed',
    'round',
    'cents',
    'parser',
    'html',
    'npm',
  ];
  const list = [];
  for (let i = 0; list.length < QUERIES; i++) {
    const a = words[i % words.length];
    const b = words[(i * 7 + 3) % words.length];
    const shape = i % 6;
    if (shape === 0) list.push({ query: a });
    else if (shape === 1) list.push({ query: `${a} ${b}` });
    else if (shape === 2) list.push({ query: `"${a} ${b}"` });
    else if (shape === 3) list.push({ query: `${a.slice(0, 4)}*` });
    else if (shape === 4) list.push({ query: `${a} OR ${b}`, kinds: ['prompt', 'error'] });
    else list.push({ query: a, sessionId: sessionIds[i % sessionIds.length] });
  }
  return list;
}

async function backfill(createClient, env, bytes) {
  const running = await startDaemon(createClient, env);
  await caughtUp(running.client, bytes);
  const status = await running.client.daemonStatus();
  return { running, backfillMs: status.ingest.progress.backfillMs };
}

export async function benchSearch(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const sandbox = makeSandbox();
  const env = sandbox.env;
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const results = [];
  const report = (line, ok) => {
    console.log(`  ${line}${ok === undefined ? '' : `: ${pass(ok)}`}`);
    if (ok !== undefined) results.push(ok);
  };
  let running;
  let probe;
  try {
    const corpus = writeScaleCorpus(
      env.MEMD_PROJECTS_DIR,
      options.size === undefined ? undefined : parseSize(options.size),
    );
    console.log(`search: ${fmt(corpus.bytes / MB)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files`);
    // The page cache warmed for both backfills alike.
    spawnSync('cat', corpus.files, { stdio: 'ignore', maxBuffer: 1 });

    const off = await backfill(
      createClient,
      { ...env, MEMD_SEARCH_INDEX: 'off', MEMD_BACKFILL_EXTRACTIONS: '0' },
      corpus.bytes,
    );
    off.running.client.close();
    await off.running.daemon.stop();
    const withoutBytes = dbBytes(env.XDG_STATE_HOME);
    rmSync(env.XDG_STATE_HOME, { recursive: true, force: true });

    const on = await backfill(createClient, { ...env, MEMD_BACKFILL_EXTRACTIONS: '0' }, corpus.bytes);
    running = on.running;
    const overhead = on.backfillMs / off.backfillMs - 1;
    report(
      `backfill without the index ${fmt(off.backfillMs / 1000, 2)} s, with it ${fmt(on.backfillMs / 1000, 2)} s: +${fmt(overhead * 100)} % (target <= ${TARGETS.overhead * 100} %)`,
      overhead <= TARGETS.overhead,
    );
    // The index's own pages (FTS5 shadow tables), read from a second connection.
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(env.XDG_STATE_HOME, 'memd', 'memd.sqlite'), { readonly: true });
    const indexBytes =
      db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_fts%'").get().bytes ?? 0;
    db.close();
    report(
      `database without the index ${fmt(withoutBytes / MB)} MB, with it ${fmt(dbBytes(env.XDG_STATE_HOME) / MB)} MB (with the WAL)`,
    );
    const chars = await indexedChars(corpus.files);
    const sizeRatio = indexBytes / chars;
    report(
      `index ${fmt(indexBytes / MB)} MB for ${fmt(chars / MB)} MB of indexed text: ${fmt(sizeRatio * 100)} % (target <= ${TARGETS.sizeRatio * 100} %)`,
      sizeRatio <= TARGETS.sizeRatio,
    );

    const sessions = (await running.client.sessionsList({ limit: 50 })).sessions.map((session) => session.sessionId);
    probe = startProbe(env);
    await probe.worst();
    const latencies = [];
    let hits = 0;
    for (const params of queries(sessions)) {
      const started = performance.now();
      const result = await running.client.searchQuery(params);
      latencies.push(performance.now() - started);
      hits += result.hits.length;
    }
    const worst = await probe.worst();
    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    report(
      `search.query over ${QUERIES} queries: p50 ${fmt(p50, 2)} ms (target <= ${TARGETS.p50Ms}), p99 ${fmt(p99, 2)} ms (target <= ${TARGETS.p99Ms}), ${hits} hits`,
      p50 <= TARGETS.p50Ms && p99 <= TARGETS.p99Ms,
    );
    report(
      `worst daemon.status while they ran ${fmt(worst)} ms (target <= ${TARGETS.statusWorstMs})`,
      worst <= TARGETS.statusWorstMs,
    );
    await probe.stop();
    probe = undefined;

    const bare = [];
    const search = [];
    for (let i = 0; i < WALL_RUNS + 3; i++) {
      let started = performance.now();
      spawnSync(process.execPath, ['-e', '0'], { env });
      const nodeMs = performance.now() - started;
      started = performance.now();
      const run = spawnSync(process.execPath, [MEMCTL_MAIN, 'search', 'invoice discount', '--limit', '10'], {
        env,
        encoding: 'utf8',
      });
      const searchMs = performance.now() - started;
      if (run.status !== 0) throw new Error(`memctl search failed: ${run.stderr}`);
      if (i >= 3) {
        bare.push(nodeMs);
        search.push(searchMs);
      }
    }
    const wallRatio = median(search) / median(bare);
    report(
      `memctl search ${fmt(median(search))} ms, node -e 0 ${fmt(median(bare))} ms: ${fmt(wallRatio, 2)}x (target <= ${TARGETS.wallRatio})`,
      wallRatio <= TARGETS.wallRatio,
    );
    return results.every(Boolean);
  } finally {
    await probe?.stop();
    running?.client.close();
    await running?.daemon.stop();
    sandbox.cleanup();
  }
}
