// `npm run bench -- usage [--size 2.4G]`: `memctl usage` on the heavy-user corpus of the scale bench
// (issue 18), dated as a history of weeks with responses of their own. The backfill, the book's
// size, `usage.report` latency, `memctl usage --since 30d` against bare `node -e 0` (target 1.5×),
// and the background build of the book for a database from before it, with the worst
// `daemon.status` a parallel client sees meanwhile.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fmt, MEMCTL_MAIN, makeSandbox, median, percentile, ROOT } from './lib.js';
import { caughtUp, startDaemon, startProbe, until } from './scale.js';
import { parseSize, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
const REPORTS = 50;
const WALL_RUNS = 20;
const WARM_UP_RUNS = 3;
const TARGETS = { wallRatio: 1.5, reportP99Ms: 20, statusWorstMs: 100 };
/** ccusage's native binary (a devDependency at the version the figures are compared with). */
const CCUSAGE = join(ROOT, 'node_modules/ccusage/src/cli.js');
/** Costs agree to this relative difference: ccusage adds per-response costs, memd prices summed tokens. */
const COST_TOLERANCE = 1e-9;
const pass = (ok) => (ok ? 'PASS' : 'FAIL');
/** CPU seconds per second under which the daemon counts as idle: its background work (search index, archive) done. */
const IDLE_CPU_SHARE = 0.05;
const IDLE_WINDOW_MS = 1_000;
const IDLE_DEADLINE_MS = 30 * 60_000;

/** User + system CPU seconds of a process so far (Linux). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the daemon is idle: the target is for a daemon that is up, not for one still
 * building its search index or archive after a backfill (each answer would wait for their slices).
 */
async function idle(pid) {
  const deadline = Date.now() + IDLE_DEADLINE_MS;
  let before = cpuSeconds(pid);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const now = cpuSeconds(pid);
    if (now - before < (IDLE_CPU_SHARE * IDLE_WINDOW_MS) / 1000) return;
    before = now;
  }
  throw new Error('the daemon did not go idle after its backfill');
}
const USAGE_TABLES = ['usage_files', 'usage_candidates', 'usage_candidates_key', 'usage_slots'];

export async function benchUsage(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const { default: Database } = await import('better-sqlite3');
  const sandbox = makeSandbox();
  const env = { ...sandbox.env, MEMD_BACKFILL_EXTRACTIONS: '0' };
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  const dbPath = join(env.XDG_STATE_HOME, 'memd', 'memd.sqlite');
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
      { dated: true },
    );
    console.log(
      `usage: ${fmt(corpus.bytes / MB)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files, a history of ${fmt((corpus.sessions * 20) / 1440)} days`,
    );
    spawnSync('cat', corpus.files, { stdio: 'ignore', maxBuffer: 1 });

    running = await startDaemon(createClient, env);
    probe = startProbe(env);
    await caughtUp(running.client, corpus.bytes);
    const { ingest } = await running.client.daemonStatus();
    report(
      `backfill ${fmt(ingest.progress.backfillMs / 1000, 2)} s (the book is not in ingest's transactions: it follows them)`,
    );
    await probe.worst();
    const catchUpStarted = performance.now();
    await until(
      async () => (await running.client.usageReport({})).index.state === 'ready',
      'the usage book to catch up',
    );
    const catchUpMs = performance.now() - catchUpStarted;
    const worst = await probe.worst();
    await probe.stop();
    probe = undefined;
    report(
      `book caught up ${fmt(catchUpMs / 1000, 2)} s after the backfill, worst daemon.status meanwhile ${fmt(worst)} ms (target <= ${TARGETS.statusWorstMs})`,
      worst <= TARGETS.statusWorstMs,
    );
    const db = new Database(dbPath, { readonly: true });
    const bookBytes =
      db
        .prepare(`SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name IN (${USAGE_TABLES.map(() => '?').join(', ')})`)
        .get(...USAGE_TABLES).bytes ?? 0;
    const counts = db
      .prepare(
        'SELECT (SELECT count(*) FROM usage_candidates WHERE counted = 1) AS responses, (SELECT count(*) FROM usage_candidates) AS candidates, (SELECT count(*) FROM usage_slots) AS slots',
      )
      .get();
    db.close();
    report(
      `book: ${counts.responses} responses counted from ${counts.candidates} file entries, ${counts.slots} quarter-hour rows, ${fmt(bookBytes / MB)} MB`,
    );

    // The same files through ccusage: every day's figures must be its.
    const started = performance.now();
    const theirs = spawnSync(process.execPath, [CCUSAGE, 'daily', '--json', '--offline', '--timezone', 'UTC'], {
      env: { ...env, CLAUDE_CONFIG_DIR: dirname(env.MEMD_PROJECTS_DIR) },
      encoding: 'utf8',
      maxBuffer: 64 * MB,
    });
    const ccusageMs = performance.now() - started;
    const ours = await running.client.usageReport({ timezone: 'UTC' });
    const days = JSON.parse(theirs.stdout).daily;
    const differing = days.filter((day) => {
      const row = ours.rows.find((candidate) => candidate.key === day.period);
      const tokens =
        row &&
        row.input === day.inputTokens &&
        row.output === day.outputTokens &&
        row.cacheCreation === day.cacheCreationTokens &&
        row.cacheRead === day.cacheReadTokens;
      return !tokens || Math.abs(row.costUsd - day.totalCost) > COST_TOLERANCE * Math.max(1, day.totalCost);
    });
    report(
      `usage.report by day equals ccusage daily on ${days.length - differing.length} of ${days.length} days (${ours.rows.length} rows; ccusage took ${fmt(ccusageMs / 1000, 1)} s)`,
      differing.length === 0 && days.length === ours.rows.length,
    );

    const idleStarted = performance.now();
    await idle(running.daemon.child.pid);
    report(`the daemon idle (search index, archive) ${fmt((performance.now() - idleStarted) / 1000, 1)} s later`);

    const latencies = [];
    let last;
    for (let i = 0; i < REPORTS; i++) {
      const by = ['day', 'project', 'model'][i % 3];
      const begun = performance.now();
      last = await running.client.usageReport({ since: '30d', by });
      latencies.push(performance.now() - begun);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    report(
      `usage.report --since 30d over ${REPORTS} calls (by day, project, model): p50 ${fmt(percentile(sorted, 50), 2)} ms, p99 ${fmt(p99, 2)} ms (target <= ${TARGETS.reportP99Ms}); ${last.totals.responses} responses, $${fmt(last.totals.costUsd, 2)}`,
      p99 <= TARGETS.reportP99Ms,
    );

    const bare = [];
    const usage = [];
    for (let i = 0; i < WALL_RUNS + WARM_UP_RUNS; i++) {
      let begun = performance.now();
      spawnSync(process.execPath, ['-e', '0'], { env });
      const nodeMs = performance.now() - begun;
      begun = performance.now();
      const run = spawnSync(process.execPath, [MEMCTL_MAIN, 'usage', '--since', '30d'], { env, encoding: 'utf8' });
      const usageMs = performance.now() - begun;
      if (run.status !== 0 || !run.stdout.includes('cost per day'))
        throw new Error(`memctl usage failed (${run.status}): ${run.stderr}${run.stdout}`);
      if (i >= WARM_UP_RUNS) {
        bare.push(nodeMs);
        usage.push(usageMs);
      }
    }
    const wallRatio = median(usage) / median(bare);
    report(
      `memctl usage --since 30d ${fmt(median(usage))} ms, node -e 0 ${fmt(median(bare))} ms: ${fmt(wallRatio, 2)}x (target <= ${TARGETS.wallRatio})`,
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
