// `npm run bench -- client`: wall time of `memctl status` against a running daemon beside bare
// `node -e 0`, alternating runs so that both see the same machine state.
import { spawnSync } from 'node:child_process';
import { DAEMON_MAIN, fmt, MEMCTL_MAIN, makeSandbox, median, spawnProcess, waitForSocket } from './lib.js';

const RUNS = 30;
const WARMUP_RUNS = 3;
/** Acceptance target of issue 2. */
const MAX_RATIO = 1.5;

function timeRun(args, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

export async function benchClient() {
  const sandbox = makeSandbox();
  const daemon = spawnProcess([DAEMON_MAIN, '--foreground'], sandbox.env);
  try {
    await waitForSocket(sandbox.socketPath);
    const bare = [];
    const memctl = [];
    for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
      const nodeMs = timeRun(['-e', '0'], sandbox.env);
      const memctlMs = timeRun([MEMCTL_MAIN, 'status'], sandbox.env);
      if (i >= WARMUP_RUNS) {
        bare.push(nodeMs);
        memctl.push(memctlMs);
      }
    }
    const ratio = median(memctl) / median(bare);
    console.log(`client: median wall time over ${RUNS} runs each`);
    console.log(`  node -e 0        ${fmt(median(bare))} ms`);
    console.log(`  memctl status    ${fmt(median(memctl))} ms`);
    const ok = ratio <= MAX_RATIO;
    console.log(`  ratio ${fmt(ratio, 2)} (target <= ${MAX_RATIO}): ${ok ? 'PASS' : 'FAIL'}`);
    return ok;
  } finally {
    await daemon.stop();
    sandbox.cleanup();
  }
}
