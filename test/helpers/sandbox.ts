/**
 * An isolated memd installation per test: temporary XDG dirs, projects dir and home, a real
 * daemon process, and memctl runs against it. Every process a test starts is killed after it,
 * and the daemon's log is printed when the test fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, onTestFailed } from 'vitest';
import { RawSocket } from './raw-socket.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const DAEMON_MAIN = join(ROOT, 'bin/memd.cjs');
export const MEMCTL_MAIN = join(ROOT, 'dist/client/memctl/main.js');
export const STARTUP_DEADLINE_MS = 15_000;

const live = new Set<ChildProcess>();
const sandboxes = new Map<string, Sandbox>();

/** Daemons that memctl started detached are not our children; the lock file names them. */
function killLockHolder(sandbox: Sandbox): void {
  try {
    const pid = Number.parseInt(readFileSync(sandbox.lockPath, 'utf8'), 10);
    if (pid > 0 && pid !== process.pid) process.kill(pid, 'SIGKILL');
  } catch {
    // No lock, or the holder is gone already.
  }
}

afterEach(() => {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const [dir, sandbox] of sandboxes) {
    killLockHolder(sandbox);
    rmSync(dir, { recursive: true, force: true });
  }
  sandboxes.clear();
});

/** Sandboxes and processes that the tests of one file share (see keepForFile). */
const fileLive = new Set<ChildProcess>();
const fileSandboxes = new Map<string, Sandbox>();

afterAll(() => {
  for (const child of fileLive) child.kill('SIGKILL');
  fileLive.clear();
  for (const [dir, sandbox] of fileSandboxes) {
    killLockHolder(sandbox);
    rmSync(dir, { recursive: true, force: true });
  }
  fileSandboxes.clear();
});

/**
 * Takes a sandbox and its daemon out of the per-test cleanup, so that the ordered tests of one file
 * can all run against the same daemon (made in beforeAll); they are cleaned up after the file.
 */
export function keepForFile(sandbox: Sandbox, daemon: DaemonProcess): void {
  if (sandboxes.delete(sandbox.root)) fileSandboxes.set(sandbox.root, sandbox);
  if (live.delete(daemon.child)) fileLive.add(daemon.child);
}

export interface Sandbox {
  root: string;
  env: NodeJS.ProcessEnv;
  runtimeDir: string;
  socketPath: string;
  stateDir: string;
  dbPath: string;
  lockPath: string;
  projectsDir: string;
  configHome: string;
}

/** The parent's environment without anything that would point memd at a real installation. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // DBUS_SESSION_BUS_ADDRESS would let systemctl --user reach the real user manager.
    if (
      /^(MEMD_|XDG_|LISTEN_|CLAUDE_|ANTHROPIC_|DBUS_)/.test(key) ||
      key === 'JOURNAL_STREAM' ||
      key === 'NODE_OPTIONS'
    )
      continue;
    env[key] = value;
  }
  return env;
}

/** Extra env for startDaemon: the backfill extraction as configured by default (an empty value is unset). */
export const BACKFILL_EXTRACTION_DEFAULT: NodeJS.ProcessEnv = { MEMD_BACKFILL_EXTRACTIONS: '' };

export function makeSandbox(): Sandbox {
  // Short /tmp paths keep the socket well under the 107-byte limit.
  const root = mkdtempSync('/tmp/memd-t-');
  const runtime = join(root, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const home = join(root, 'home');
  const projectsDir = join(root, 'projects');
  mkdirSync(projectsDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  const stateHome = join(root, 'state');
  const configHome = join(root, 'config');
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_STATE_HOME: stateHome,
    XDG_CONFIG_HOME: configHome,
    MEMD_PROJECTS_DIR: projectsDir,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    NO_COLOR: '1',
    // Every fixture is past the extraction threshold, and the backfill extraction
    // (daemon/extraction/backfill.ts) would run beside what a test asserts about session memory, jobs
    // and API requests. Tests of it pass BACKFILL_EXTRACTION_DEFAULT.
    MEMD_BACKFILL_EXTRACTIONS: '0',
  };
  const stateDir = join(stateHome, 'memd');
  const sandbox: Sandbox = {
    root,
    env,
    runtimeDir: join(runtime, 'memd'),
    socketPath: join(runtime, 'memd', 'memd.sock'),
    stateDir,
    dbPath: join(stateDir, 'memd.sqlite'),
    lockPath: join(stateDir, 'memd.lock'),
    projectsDir,
    configHome,
  };
  sandboxes.set(root, sandbox);
  return sandbox;
}

export interface DaemonProcess {
  child: ChildProcess;
  pid: number;
  /** Everything the daemon wrote to stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `memd` (foreground by default) without waiting for it to be ready. */
export function spawnDaemon(
  sandbox: Sandbox,
  args: string[] = ['--foreground'],
  extraEnv: NodeJS.ProcessEnv = {},
): DaemonProcess {
  return spawnTracked(process.execPath, [DAEMON_MAIN, ...args], { ...sandbox.env, ...extraEnv });
}

export function spawnTracked(command: string, args: string[], env: NodeJS.ProcessEnv): DaemonProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    onTestFailed(() => {
      process.stderr.write(`\n--- output of ${args.join(' ')} (pid ${child.pid}) ---\n${output}\n---\n`);
    });
  } catch {
    // Called outside a test (e.g. in beforeAll): no per-test log then.
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, pid: child.pid ?? -1, output: () => output, exited };
}

/** Polls the socket until daemon.version answers, or fails with the daemon's output. */
export async function waitReady(
  sandbox: Sandbox,
  daemon?: DaemonProcess,
  deadlineMs = STARTUP_DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let exited = false;
  void daemon?.exited.then(() => (exited = true));
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`memd exited before it was ready:\n${daemon?.output()}`);
    try {
      const socket = await RawSocket.open(sandbox.socketPath);
      try {
        const response = await socket.request('daemon.version', {}, 2_000);
        if (response.result) return;
      } finally {
        socket.close();
      }
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`memd not ready within ${deadlineMs} ms (${String(lastError)}):\n${daemon?.output() ?? ''}`);
}

export async function startDaemon(
  sandbox: Sandbox,
  args?: string[],
  extraEnv?: NodeJS.ProcessEnv,
): Promise<DaemonProcess> {
  const daemon = spawnDaemon(sandbox, args, extraEnv);
  await waitReady(sandbox, daemon);
  return daemon;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `memctl ARGS` against the sandbox and collects its output. */
export function runMemctl(
  sandbox: Sandbox,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<RunResult> {
  return runNode([MEMCTL_MAIN, ...args], { ...sandbox.env, ...extraEnv }, input);
}

export function runNode(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input ?? '');
    child.once('close', (code) => {
      live.delete(child);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export { eventually } from './poll.js';
