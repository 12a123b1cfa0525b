// `npm run bench -- scale [--size 2.4G]`: a heavy user's whole history (issues 15 and 34). Generates
// the skewed corpus (scale-corpus.js), then measures, beside a plain chunked read + JSON.parse of the
// same files in a fresh process and one ccusage run over them: backfill MB/s and the ratio, peak
// RSS, DB size, when the newest sessions are exact after a cold start, the backfill's estimate of
// its time left, the first
// `memctl sessions --json` and `memctl status --json` after the backfill and after a restart,
// restart to caught up, the worst daemon.status latency a parallel client sees during each,
// append → session.updated on the 50 MB session, idle CPU, and a 50,000-session listing.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  DAEMON_MAIN,
  fmt,
  MEMCTL_MAIN,
  makeSandbox,
  median,
  percentile,
  ROOT,
  STEP_DEADLINE_MS,
  spawnProcess,
  waitForSocket,
} from './lib.js';
import { parseSize, writeManySessions, writeScaleCorpus } from './scale-corpus.js';

const MB = 1024 * 1024;
/** ccusage at the version whose figures memd's equal (a devDependency). */
const CCUSAGE = join(ROOT, 'node_modules/ccusage/src/cli.js');
const PARSE_RUNS = 3;
const APPENDS = 30;
/** session.updated is throttled per session to one per 250 ms: appends further apart measure latency. */
const APPEND_SPACING_MS = 300;
const MANY_SESSIONS = 50_000;
/** The CPU of the backfill's extractions, right after the appends (work, reported as such). */
const EXTRACTION_CPU_WINDOW_MS = 10_000;
/**
 * Idle: a daemon with nothing to do, once its start-up has settled: the watch and the first full
 * sweep take a few seconds, and V8's memory reducer runs its full GCs 8 s and more after them.
 */
const IDLE_SETTLE_MS = 30_000;
const IDLE_CPU_WINDOW_MS = 60_000;
/** Issue 15's targets. */
const TARGETS = {
  ratio: 0.7,
  rssMb: 200,
  firstPageMs: 300,
  statusWorstMs: 100,
  appendP99Ms: 100,
  restartMs: 1_000,
  idleCpuSPerMin: 0.2,
  /** Issue 34: the newest sessions exact within a second of a cold start, and status answers within 50 ms meanwhile. */
  newestExactMs: 1_000,
  statusBackfillMs: 50,
};
/** The newest sessions a cold start must answer for first (issue 34): a page of `memctl sessions`. */
const NEWEST_SESSIONS = 50;
/** How often the bench asks for them during the backfill (a status line refreshes about this often)... */
const NEWEST_POLL_MS = 100;
/** ...and in the first seconds, where the target lies: at 100 ms the figure was late by 50 ms on average. */
const NEWEST_FIRST_POLL_MS = 25;
const NEWEST_FIRST_MS = 2_000;
/** The backfill's own estimate of the time left is checked when this share of it is read. */
const ETA_CHECK_SHARE = 0.25;

const pass = (ok) => (ok ? 'PASS' : 'FAIL');

function freshPlainParseS(files) {
  const result = spawnSync(process.execPath, [join(ROOT, 'bench/plain-parse.js'), ...files], {
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * MB,
  });
  if (result.status !== 0) throw new Error(`plain-parse.js exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout).seconds;
}

function procStatus(pid, field) {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function until(condition, what, deadlineMs = STEP_DEADLINE_MS * 10) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The status probe (status-probe.js) in its own process; `worst()` is its slowest answer since the last call. */
export function startProbe(env) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/status-probe.js'), String(TARGETS.statusBackfillMs)], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = createInterface({ input: child.stdout });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const spread = () =>
    new Promise((resolve) => {
      answers.once('line', (line) => resolve(JSON.parse(line)));
      child.stdin.write('worst\n');
    });
  return {
    worst: async () => (await spread()).worstMs,
    /** The slowest answer since the last call, the 99th percentile, how many took over the backfill bound, of how many. */
    spread,
    stop: async () => {
      child.stdin.write('stop\n');
      await exited;
    },
  };
}

/** Wall time of one memctl run (the first one counts: no warm-up). */
export function memctlMs(args, env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [MEMCTL_MAIN, ...args], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 * MB,
  });
  const ms = performance.now() - started;
  return { ms, ok: result.status === 0, bytes: Buffer.byteLength(result.stdout ?? ''), stderr: result.stderr };
}

export async function startDaemon(createClient, env) {
  const started = performance.now();
  const daemon = spawnProcess([DAEMON_MAIN, '--foreground'], env);
  await waitForSocket(join(env.XDG_RUNTIME_DIR, 'memd', 'memd.sock'));
  const client = createClient({ env, autostart: false, timeoutMs: STEP_DEADLINE_MS });
  return { daemon, client, started };
}

/**
 * Asks for the newest sessions every NEWEST_POLL_MS (NEWEST_FIRST_POLL_MS at first; figures that
 * tell a partial count from the final one) and for the backfill's estimate of its time left, until
 * `stop()`, which returns when the newest session and the newest page first equalled their final
 * figures for good (ms after `started`) and the estimate given at ETA_CHECK_SHARE of the bytes,
 * with when it was given.
 */
function watchNewest(client, started) {
  const figures = (session) =>
    JSON.stringify([session.sessionId, session.entries, session.usage.total, session.contextTokens, session.title]);
  const pages = [];
  let eta = null;
  let running = true;
  const loop = (async () => {
    while (running) {
      const [list, status] = await Promise.all([
        client.sessionsList({ limit: NEWEST_SESSIONS }),
        eta === null ? client.daemonStatus() : null,
      ]);
      const at = performance.now() - started;
      pages.push({ at, rows: list.sessions.map(figures) });
      const progress = status?.ingest.progress;
      if (progress && progress.bytesDone >= progress.bytesTotal * ETA_CHECK_SHARE && progress.backfillEtaMs != null)
        eta = { at, etaMs: progress.backfillEtaMs };
      const every = at < NEWEST_FIRST_MS ? NEWEST_FIRST_POLL_MS : NEWEST_POLL_MS;
      await new Promise((resolve) => setTimeout(resolve, every));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const final = (await client.sessionsList({ limit: NEWEST_SESSIONS })).sessions.map(figures);
      /** When the first `count` rows became what they end as, for good. */
      const exactAt = (count) => {
        const want = final.slice(0, count).join('\n');
        let at = performance.now() - started;
        for (let page = pages.length - 1; page >= 0 && pages[page].rows.slice(0, count).join('\n') === want; page--)
          at = pages[page].at;
        return at;
      };
      return { newestAt: exactAt(1), exactAt: exactAt(NEWEST_SESSIONS), eta };
    },
  };
}

/** When search answers say the index holds every line (ms after `started`). */
async function searchIndexReady(client, started) {
  await until(
    async () => (await client.searchQuery({ query: 'memd', limit: 1 })).index.state === 'ready',
    'the search index',
  );
  return performance.now() - started;
}

export async function caughtUp(client, minBytes) {
  await until(async () => {
    const { ingest } = await client.daemonStatus();
    return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.bytesRead >= minBytes;
  }, 'ingest to catch up');
}

export function dbBytes(stateHome) {
  const base = join(stateHome, 'memd', 'memd.sqlite');
  return ['', '-wal'].reduce(
    (sum, suffix) => sum + (statSync(`${base}${suffix}`, { throwIfNoEntry: false })?.size ?? 0),
    0,
  );
}

export async function benchScale(options = {}) {
  const { createClient } = await import(join(ROOT, 'dist/client/index.js'));
  const totalBytes = options.size === undefined ? undefined : parseSize(options.size);
  const sandbox = makeSandbox();
  const env = sandbox.env;
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  let running;
  let probe;
  const results = [];
  const report = (line, ok) => {
    console.log(`  ${line}${ok === undefined ? '' : `: ${pass(ok)}`}`);
    if (ok !== undefined) results.push(ok);
  };
  try {
    const generated = performance.now();
    // Dated as a history of weeks: the listing orders sessions by their newest entry, so the newest
    // files hold the newest sessions, as in a real history, and the big ones are spread over it
    // (the one being appended to is the newest) instead of being its newest ten.
    const corpus = writeScaleCorpus(env.MEMD_PROJECTS_DIR, totalBytes, { dated: true });
    const corpusMb = corpus.bytes / MB;
    console.log(
      `scale: ${fmt(corpusMb)} MB, ${corpus.sessions} sessions, ${corpus.files.length} files in 40 projects (generated in ${fmt((performance.now() - generated) / 1000)} s)`,
    );

    // The baseline, as memd meets it: a fresh process, after a first pass warmed the page cache.
    freshPlainParseS(corpus.files);
    const parseTimes = Array.from({ length: PARSE_RUNS }, () => freshPlainParseS(corpus.files));
    const plainRate = corpusMb / median(parseTimes);
    report(
      `plain chunked read + JSON.parse   ${fmt(plainRate)} MB/s (runs ${parseTimes.map((s) => fmt(s, 2)).join(', ')} s)`,
    );

    // One run of ccusage over the same files: what a user would run instead to see their usage.
    const ccusageStarted = performance.now();
    const ccusage = spawnSync(process.execPath, [CCUSAGE, 'daily', '--json', '--offline'], {
      env: { ...env, CLAUDE_CONFIG_DIR: dirname(env.MEMD_PROJECTS_DIR) },
      stdio: 'ignore',
      timeout: 600_000,
    });
    const ccusageMs = performance.now() - ccusageStarted;

    // Cold backfill, with a client asking daemon.status throughout and one asking for the newest sessions.
    running = await startDaemon(createClient, env);
    probe = startProbe(env);
    const newest = watchNewest(running.client, running.started);
    await caughtUp(running.client, corpus.bytes);
    const allListedMs = performance.now() - running.started;
    const { newestAt, exactAt, eta } = await newest.stop();
    const status = await running.client.daemonStatus();
    const backfillS = status.ingest.progress.backfillMs / 1000;
    const ratio = corpusMb / backfillS / plainRate;
    const rss = procStatus(running.daemon.child.pid, 'VmHWM');
    report(
      `memd backfill                     ${fmt(corpusMb / backfillS)} MB/s (${fmt(backfillS, 2)} s), ratio ${fmt(ratio, 2)} (target >= ${TARGETS.ratio})`,
      ratio >= TARGETS.ratio,
    );
    report(`peak RSS                          ${fmt(rss)} MB (target <= ${TARGETS.rssMb})`, rss <= TARGETS.rssMb);
    report(`database                          ${fmt(dbBytes(env.XDG_STATE_HOME) / MB)} MB`);
    const duringBackfill = await probe.spread();
    report(
      `worst daemon.status during backfill ${fmt(duringBackfill.worstMs)} ms, p99 ${fmt(duringBackfill.p99Ms)} ms, ${duringBackfill.slow} of ${duringBackfill.calls} over ${TARGETS.statusBackfillMs} ms (target: none over ${TARGETS.statusBackfillMs})`,
      duringBackfill.worstMs <= TARGETS.statusBackfillMs,
    );
    report(
      `newest ${NEWEST_SESSIONS} sessions exact             ${fmt(exactAt)} ms after spawn (target <= ${TARGETS.newestExactMs}), the newest one at ${fmt(newestAt)} ms; every session ${fmt(allListedMs)} ms; ccusage daily over the same files ${fmt(ccusageMs)} ms${ccusage.status === 0 ? '' : ' (failed)'}`,
      exactAt <= TARGETS.newestExactMs,
    );
    // A backfill this big leaves the search texts to the search index's build, which follows it.
    const searchReady = await searchIndexReady(running.client, running.started);
    report(
      `search index complete              ${fmt(searchReady)} ms after spawn (every session listed at ${fmt(allListedMs)} ms)`,
    );
    report(
      eta === null
        ? 'time left at 25 % of the backfill: no estimate given'
        : `time left at ${ETA_CHECK_SHARE * 100} % of the backfill  said ${fmt(eta.etaMs / 1000, 1)} s, took ${fmt((allListedMs - eta.at) / 1000, 1)} s`,
    );

    const firstPages = async (when) => {
      await probe.worst();
      const sessions = memctlMs(['sessions', '--json'], env);
      const statusRun = memctlMs(['status', '--json'], env);
      report(
        `first memctl sessions --json ${when}  ${fmt(sessions.ms)} ms${sessions.ok ? '' : ' (failed)'}, ${fmt(sessions.bytes / 1024)} KB (target <= ${TARGETS.firstPageMs})`,
        sessions.ok && sessions.ms <= TARGETS.firstPageMs,
      );
      report(`memctl status --json ${when}          ${fmt(statusRun.ms)} ms${statusRun.ok ? '' : ' (failed)'}`);
      const worst = await probe.worst();
      report(
        `worst daemon.status meanwhile     ${fmt(worst)} ms (target <= ${TARGETS.statusWorstMs})`,
        worst <= TARGETS.statusWorstMs,
      );
    };
    await firstPages('after backfill');

    // Append → session.updated on the 50 MB session, the rest idle.
    const target = corpus.appendTarget;
    const baseline = (await running.client.sessionsGet({ sessionId: target.id })).entries;
    const updates = [];
    await running.client.on('session.updated', (session) => {
      if (session.sessionId === target.id) updates.push({ at: performance.now(), entries: session.entries });
    });
    const latencies = [];
    let others = 0;
    let parent = target.lastUuid;
    for (let i = 0; i < APPENDS; i++) {
      const uuid = `abababab-0000-4000-8000-${String(i).padStart(12, '0')}`;
      await new Promise((resolve) => setTimeout(resolve, APPEND_SPACING_MS));
      const sent = performance.now();
      appendFileSync(
        target.path,
        `${JSON.stringify({ parentUuid: parent, isSidechain: false, type: 'user', message: { role: 'user', content: `appended ${i}` }, uuid, timestamp: new Date().toISOString(), sessionId: target.id })}\n`,
      );
      parent = uuid;
      await until(
        () => updates.some((update) => update.entries >= baseline + i + 1),
        `the event for append ${i}`,
        STEP_DEADLINE_MS,
      );
      latencies.push(updates.find((update) => update.entries >= baseline + i + 1).at - sent);
      // Updates that no append caused (an extraction finished): the next one waits out the throttle.
      others += updates.filter((update) => update.entries < baseline + i + 1).length;
      updates.length = 0;
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const appendP99 = percentile(sorted, 99);
    const slowest = sorted.slice(-3).map((ms) => fmt(ms));
    report(
      `append → session.updated (${fmt(statSync(target.path).size / MB)} MB session) p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(appendP99)} ms, slowest ${slowest.join(', ')}; ${others} update(s) meanwhile from elsewhere (target <= ${TARGETS.appendP99Ms})`,
      appendP99 <= TARGETS.appendP99Ms,
    );

    // CPU while the backfill's session-memory extractions run (one every 5 s, up to 50 per start),
    // with the probe stopped (it is a client): work, reported with how many finished in the window.
    await probe.stop();
    probe = undefined;
    const doneJobs = async () => (await running.client.daemonStatus()).extraction.jobs.done ?? 0;
    const jobsBefore = await doneJobs();
    const cpuBefore = cpuSeconds(running.daemon.child.pid);
    await new Promise((resolve) => setTimeout(resolve, EXTRACTION_CPU_WINDOW_MS));
    const extractingPerMin = ((cpuSeconds(running.daemon.child.pid) - cpuBefore) * 60_000) / EXTRACTION_CPU_WINDOW_MS;
    const extracted = (await doneJobs()) - jobsBefore;
    report(
      `CPU during backfill extractions    ${fmt(extractingPerMin, 2)} s a minute, ${extracted} extraction(s) finished in the ${EXTRACTION_CPU_WINDOW_MS / 1000} s window`,
    );

    // A restart over the unchanged history.
    running.client.close();
    await running.daemon.stop();
    running = await startDaemon(createClient, env);
    probe = startProbe(env);
    await caughtUp(running.client, 0);
    const restartMs = performance.now() - running.started;
    report(
      `restart to caught up              ${fmt(restartMs)} ms over ${corpus.files.length} files (target <= ${TARGETS.restartMs})`,
      restartMs <= TARGETS.restartMs,
    );
    const worstRestart = await probe.worst();
    report(
      `worst daemon.status during restart ${fmt(worstRestart)} ms (target <= ${TARGETS.statusWorstMs})`,
      worstRestart <= TARGETS.statusWorstMs,
    );
    await firstPages('after restart');
    await probe.stop();
    probe = undefined;
    running.client.close();
    await running.daemon.stop();

    // Idle: the same history, nothing to do (the backfill's extractions, bounded work after each
    // start, are off; their CPU is reported above), after the start-up has settled.
    running = await startDaemon(createClient, { ...env, MEMD_BACKFILL_EXTRACTIONS: '0' });
    await caughtUp(running.client, 0);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idleBefore = cpuSeconds(running.daemon.child.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_CPU_WINDOW_MS));
    const idlePerMin = ((cpuSeconds(running.daemon.child.pid) - idleBefore) * 60_000) / IDLE_CPU_WINDOW_MS;
    report(
      `idle CPU                          ${fmt(idlePerMin, 2)} s a minute over ${IDLE_CPU_WINDOW_MS / 1000} s (target <= ${TARGETS.idleCpuSPerMin})`,
      idlePerMin <= TARGETS.idleCpuSPerMin,
    );
    running.client.close();
    await running.daemon.stop();
    running = undefined;

    // 50,000 sessions.
    const many = makeSandbox();
    try {
      mkdirSync(many.env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
      writeManySessions(many.env.MEMD_PROJECTS_DIR, MANY_SESSIONS);
      running = await startDaemon(createClient, many.env);
      await caughtUp(running.client, 0);
      probe = startProbe(many.env);
      await probe.worst();
      const page = memctlMs(['sessions', '--json'], many.env);
      const worstMany = await probe.worst();
      report(
        `${MANY_SESSIONS} sessions: first memctl sessions --json ${fmt(page.ms)} ms, ${fmt(page.bytes / 1024)} KB (target <= ${TARGETS.firstPageMs})`,
        page.ok && page.ms <= TARGETS.firstPageMs,
      );
      const started = performance.now();
      await running.client.daemonStatus();
      report(
        `${MANY_SESSIONS} sessions: daemon.status ${fmt(performance.now() - started, 2)} ms after the listing, worst ${fmt(worstMany)} ms during it (target <= ${TARGETS.statusWorstMs})`,
        worstMany <= TARGETS.statusWorstMs,
      );
      await probe.stop();
      probe = undefined;
      running.client.close();
      await running.daemon.stop();
      running = undefined;
    } finally {
      many.cleanup();
    }
    return results.every(Boolean);
  } finally {
    await probe?.stop();
    running?.client.close();
    await running?.daemon.stop();
    sandbox.cleanup();
  }
}
