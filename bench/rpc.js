// `npm run bench -- rpc`: daemon.status latency (sequential) and throughput (16 clients) of a real
// memd, beside a raw NDJSON echo server over the same kind of socket, in one run.
import { join } from 'node:path';
import { DAEMON_MAIN, fmt, LoopClient, makeSandbox, percentile, ROOT, spawnProcess, waitForSocket } from './lib.js';

/** Round trips before measuring, so that both servers run JIT-compiled code. */
const WARMUP_CALLS = 2_000;
const SEQUENTIAL_CALLS = 10_000;
const CLIENTS = 16;
const THROUGHPUT_WARMUP_MS = 500;
const THROUGHPUT_MS = 3_000;
/** Acceptance targets of issue 2. */
const MAX_P99_RATIO = 3;
const MIN_REQUESTS_PER_SECOND = 15_000;

const statusLine = (id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'daemon.status', params: {} })}\n`;

function checkAnswer(answer, id, isMemd) {
  if (answer.id !== id) throw new Error(`answer for id ${answer.id}, expected ${id}`);
  if (isMemd && typeof answer.result?.pid !== 'number')
    throw new Error(`not a daemon.status result: ${JSON.stringify(answer)}`);
}

async function sequential(path, isMemd) {
  const client = await LoopClient.open(path);
  let id = 0;
  for (let i = 0; i < WARMUP_CALLS; i++) checkAnswer(await client.roundTrip(statusLine(++id)), id, isMemd);
  const latencies = new Float64Array(SEQUENTIAL_CALLS);
  for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
    const started = process.hrtime.bigint();
    const answer = await client.roundTrip(statusLine(++id));
    latencies[i] = Number(process.hrtime.bigint() - started) / 1e6;
    checkAnswer(answer, id, isMemd);
  }
  client.close();
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function throughput(path, isMemd) {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => LoopClient.open(path)));
  let counting = false;
  let stop = false;
  let completed = 0;
  const loops = clients.map(async (client, index) => {
    let id = index * 1e9;
    while (!stop) {
      const answer = await client.roundTrip(statusLine(++id));
      checkAnswer(answer, id, isMemd);
      if (counting) completed++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, THROUGHPUT_WARMUP_MS));
  counting = true;
  const started = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, THROUGHPUT_MS));
  counting = false;
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  stop = true;
  await Promise.all(loops);
  for (const client of clients) client.close();
  return completed / elapsedS;
}

export async function benchRpc() {
  const sandbox = makeSandbox();
  const echoPath = join(sandbox.root, 'echo.sock');
  const daemon = spawnProcess([DAEMON_MAIN, '--foreground'], sandbox.env);
  const echo = spawnProcess([join(ROOT, 'bench/echo-server.js'), echoPath], sandbox.env);
  try {
    await Promise.all([waitForSocket(sandbox.socketPath), waitForSocket(echoPath)]);
    const echoSeq = await sequential(echoPath, false);
    const memdSeq = await sequential(sandbox.socketPath, true);
    const echoRps = await throughput(echoPath, false);
    const memdRps = await throughput(sandbox.socketPath, true);
    const ratio = memdSeq.p99 / echoSeq.p99;
    console.log(
      `rpc: daemon.status over ${SEQUENTIAL_CALLS} sequential calls, then ${CLIENTS} clients for ${THROUGHPUT_MS / 1000} s`,
    );
    console.log('  server        p50 ms   p99 ms   req/s (16 clients)');
    console.log(
      `  echo (raw)    ${fmt(echoSeq.p50, 3).padStart(6)}   ${fmt(echoSeq.p99, 3).padStart(6)}   ${fmt(echoRps, 0).padStart(8)}`,
    );
    console.log(
      `  memd          ${fmt(memdSeq.p50, 3).padStart(6)}   ${fmt(memdSeq.p99, 3).padStart(6)}   ${fmt(memdRps, 0).padStart(8)}`,
    );
    const latencyOk = ratio <= MAX_P99_RATIO;
    const throughputOk = memdRps >= MIN_REQUESTS_PER_SECOND;
    console.log(`  p99 ratio memd/echo ${fmt(ratio, 2)} (target <= ${MAX_P99_RATIO}): ${latencyOk ? 'PASS' : 'FAIL'}`);
    console.log(
      `  memd throughput ${fmt(memdRps, 0)} req/s (target >= ${MIN_REQUESTS_PER_SECOND}): ${throughputOk ? 'PASS' : 'FAIL'}`,
    );
    return latencyOk && throughputOk;
  } finally {
    await Promise.all([daemon.stop(), echo.stop()]);
    sandbox.cleanup();
  }
}
