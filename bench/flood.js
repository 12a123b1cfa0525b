// `npm run bench -- flood`: 30 connections each send 24 `export.session` requests for 8 MiB pages
// and never read an answer, while another client calls daemon.status (and a small sessions.list)
// in a loop. Reports that client's p50/p99 and memd's peak RSS (VmHWM). Targets: issue 27, item 4.
import { mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fixtureLines, hugeLine, writeSession } from './corpus.js';
import { DAEMON_MAIN, fmt, makeSandbox, percentile, STEP_DEADLINE_MS, spawnProcess, waitForSocket } from './lib.js';

const FLOODERS = 30;
const REQUESTS_PER_FLOODER = 24;
/** The largest page export.session gives (MAX_EXPORT_PAGE_BYTES). */
const PAGE_BYTES = 8 * 1024 * 1024;
/** Larger than a page, so that every request builds a full one. */
const SESSION_BYTES = 24 * 1024 * 1024;
const FLOOD_MS = 15_000;
const BASELINE_MS = 5_000;
/** Between the probe's calls, as a status line polls. */
const PROBE_EVERY_MS = 20;
/** Acceptance targets of issue 27. */
const MAX_P99_MS = 100;
const MAX_PEAK_RSS_BYTES = 400 * 1024 * 1024;
const SESSION_ID = 'f1000000-0000-4000-8000-000000000001';

const line = (id, method, params) => `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
/** A probe call that gets no answer within this counts as this slow (and as an error). */
const PROBE_TIMEOUT_MS = 5_000;

/** The well-behaved client: one call at a time, answers matched by id, a late answer ignored. */
class Probe {
  static open(path) {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new Probe(socket)));
      socket.once('error', reject);
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.buffer = '';
    this.waiting = new Map();
    this.nextId = 1;
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      this.buffer += chunk;
      for (let newline = this.buffer.indexOf('\n'); newline !== -1; newline = this.buffer.indexOf('\n')) {
        const answer = JSON.parse(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
        this.waiting.get(answer.id)?.(answer);
        this.waiting.delete(answer.id);
      }
    });
  }

  call(method, params, timeoutMs = STEP_DEADLINE_MS) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ id, error: { message: 'timeout' } });
      }, timeoutMs);
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.socket.write(line(id, method, params));
    });
  }

  close() {
    this.socket.destroy();
  }
}

/** CPU seconds the process used so far (utime + stime). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function procStatus(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

async function waitForSession(client) {
  const deadline = Date.now() + STEP_DEADLINE_MS;
  while (Date.now() < deadline) {
    // Caught up: the flood then measures the answers, not the first read of the session.
    const answer = await client.call('daemon.status', {});
    const progress = answer.result?.ingest.progress;
    if (progress?.state === 'live' && progress.filesPending === 0 && progress.filesDone > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`session ${SESSION_ID} was not indexed within ${STEP_DEADLINE_MS} ms`);
}

/** A connection that writes its requests and reads nothing. */
function flood(path, index) {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.pause();
      let frames = '';
      for (let i = 0; i < REQUESTS_PER_FLOODER; i++)
        frames += line(index * 1000 + i, 'export.session', {
          sessionId: SESSION_ID,
          format: 'jsonl',
          maxBytes: PAGE_BYTES,
        });
      socket.write(frames);
      resolve(socket);
    });
  });
}

/** Calls daemon.status and sessions.list in turn for `ms`; the latencies sorted, errors, and the RSS seen. */
async function probeLoop(probe, ms, pid) {
  const latencies = [];
  let calls = 0;
  let errors = 0;
  let peakRss = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const started = performance.now();
    const method = calls++ % 2 === 0 ? 'daemon.status' : 'sessions.list';
    const answer = await probe.call(method, method === 'sessions.list' ? { limit: 5 } : {}, PROBE_TIMEOUT_MS);
    latencies.push(performance.now() - started);
    if (process.env.FLOOD_TRACE && latencies.at(-1) > 100)
      console.log(
        `  slow ${method} at ${Math.round(ms - (until - Date.now()))} ms: ${Math.round(latencies.at(-1))} ms`,
      );
    if (answer.error) errors++;
    peakRss = Math.max(peakRss, procStatus(pid, 'VmRSS'));
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
  return { sorted: latencies.sort((a, b) => a - b), errors, peakRss };
}

export async function benchFlood() {
  const sandbox = makeSandbox();
  const project = join(sandbox.env.MEMD_PROJECTS_DIR, '-home-user-src-flood');
  mkdirSync(project, { recursive: true });
  const lines = fixtureLines();
  writeSession(join(project, `${SESSION_ID}.jsonl`), SESSION_ID, SESSION_BYTES, 1, lines, hugeLine(lines));
  const daemon = spawnProcess(
    [
      ...(process.env.FLOOD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FLOOD_PROF}`] : []),
      DAEMON_MAIN,
      '--foreground',
    ],
    sandbox.env,
  );
  const flooders = [];
  try {
    await waitForSocket(sandbox.socketPath);
    const probe = await Probe.open(sandbox.socketPath);
    await waitForSession(probe);
    const pid = daemon.child.pid;
    // The same probe with no flood: on a shared machine, what the load alone costs it.
    const baseline = await probeLoop(probe, BASELINE_MS, pid);
    const rssBefore = procStatus(pid, 'VmRSS');
    const cpuBefore = cpuSeconds(pid);
    for (let i = 0; i < FLOODERS; i++) flooders.push(await flood(sandbox.socketPath, i + 1));
    const { sorted, errors, peakRss } = await probeLoop(probe, FLOOD_MS, pid);
    const hwm = procStatus(pid, 'VmHWM');
    const cpu = cpuSeconds(pid) - cpuBefore;
    const final = await probe.call('daemon.status', {});
    if (final.result?.counts.answers)
      console.log(`  memd's answer budget at the end: ${JSON.stringify(final.result.counts.answers)}`);
    for (const socket of flooders) socket.destroy();
    probe.close();
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    const mb = (bytes) => fmt(bytes / 1024 / 1024, 0);
    console.log(
      `flood: ${FLOODERS} connections x ${REQUESTS_PER_FLOODER} export.session (${PAGE_BYTES / 1024 / 1024} MiB pages) never read, ${FLOOD_MS / 1000} s`,
    );
    console.log(
      `  probe alone first (${BASELINE_MS / 1000} s): p50 ${fmt(percentile(baseline.sorted, 50))} ms, p99 ${fmt(percentile(baseline.sorted, 99))} ms`,
    );
    console.log(
      `  probe (daemon.status / sessions.list): ${sorted.length} calls, p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(sorted.at(-1) ?? 0)} ms, errors ${errors}`,
    );
    console.log(
      `  memd RSS: ${mb(rssBefore)} MB before, ${mb(peakRss)} MB peak seen, VmHWM ${mb(hwm)} MB; memd used ${fmt(cpu)} s of CPU (load average ${fmt(loadavg()[0])})`,
    );
    const ok = p99 <= MAX_P99_MS && hwm <= MAX_PEAK_RSS_BYTES;
    console.log(
      `  targets: p99 <= ${MAX_P99_MS} ms, peak RSS <= ${mb(MAX_PEAK_RSS_BYTES)} MB: ${ok ? 'met' : 'MISSED'}`,
    );
    return ok;
  } finally {
    for (const socket of flooders) socket.destroy();
    await daemon.stop();
    sandbox.cleanup();
  }
}
