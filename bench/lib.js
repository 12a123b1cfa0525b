// Shared pieces of the benchmarks: sandboxes, processes, a closed-loop NDJSON client, statistics.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const DAEMON_MAIN = join(ROOT, 'bin/memd.cjs');
export const MEMCTL_MAIN = join(ROOT, 'dist/client/memctl/main.js');
/** What memctl install-* registers with Claude Code: the shim outside dist/ that runs MEMCTL_MAIN. */
export const MEMCTL_COMMAND = join(ROOT, 'bin/memctl.cjs');
/** Every wait in a benchmark is bounded; a stuck run fails instead of hanging CI. */
export const STEP_DEADLINE_MS = 60_000;

export function makeSandbox() {
  const root = mkdtempSync('/tmp/memd-bench-');
  const runtime = join(root, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  mkdirSync(join(root, 'projects'));
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(MEMD_|LISTEN_)/.test(key) || key === 'JOURNAL_STREAM') delete env[key];
  Object.assign(env, {
    HOME: join(root, 'home'),
    XDG_RUNTIME_DIR: runtime,
    XDG_STATE_HOME: join(root, 'state'),
    XDG_CONFIG_HOME: join(root, 'config'),
    MEMD_PROJECTS_DIR: join(root, 'projects'),
    MEMD_LOG_LEVEL: 'warn',
  });
  return {
    root,
    env,
    socketPath: join(runtime, 'memd', 'memd.sock'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function spawnProcess(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
  return {
    child,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function waitForSocket(path) {
  const deadline = Date.now() + STEP_DEADLINE_MS;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolvePromise) => {
      const socket = connect(path);
      socket.once('connect', () => {
        socket.destroy();
        resolvePromise(true);
      });
      socket.once('error', () => resolvePromise(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`nothing listens on ${path} after ${STEP_DEADLINE_MS} ms`);
}

/** One connection doing request → response → request, timing each round trip. */
export class LoopClient {
  static open(path) {
    return new Promise((resolvePromise, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolvePromise(new LoopClient(socket)));
      socket.once('error', reject);
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.pending = '';
    this.waiter = undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      this.pending += chunk;
      let newline = this.pending.indexOf('\n');
      while (newline !== -1) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter?.(line);
        newline = this.pending.indexOf('\n');
      }
    });
  }

  /** Sends one line and resolves with the parsed answer. */
  roundTrip(line) {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer within the step deadline')), STEP_DEADLINE_MS);
      this.waiter = (answer) => {
        clearTimeout(timer);
        resolvePromise(JSON.parse(answer));
      };
      this.socket.write(line);
    });
  }

  close() {
    this.socket.destroy();
  }
}

export function percentile(sortedMs, p) {
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)];
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return percentile(sorted, 50);
}

export const fmt = (value, digits = 1) => value.toFixed(digits);
