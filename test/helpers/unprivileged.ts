/**
 * A daemon that runs as `nobody` (uid 65534): the tests run as root, for whom a chmod 000 file or
 * dir is still readable. The sandbox is handed to that uid, the daemon and memctl are spawned with
 * it, and the test (root) still reads and writes everything. Daemons started here are killed after
 * each test (sandbox.ts also kills the lock holder), and their output is printed when a test fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, onTestFailed } from 'vitest';
import { RawSocket } from './raw-socket.js';
import { DAEMON_MAIN, type DaemonProcess, MEMCTL_MAIN, type RunResult, type Sandbox, waitReady } from './sandbox.js';

export const NOBODY = 65534;

const started = new Set<ChildProcess>();

afterEach(() => {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
});

/** Gives the sandbox (its dirs, and files made so far) to `nobody`. */
export function handToNobody(sandbox: Sandbox): void {
  chownSync(sandbox.root, NOBODY, NOBODY);
  for (const entry of readdirSync(sandbox.root, { recursive: true }))
    chownSync(join(sandbox.root, String(entry)), NOBODY, NOBODY);
}

/** Starts `memd --foreground` as `nobody` and waits until it answers. */
export async function startDaemonAsNobody(sandbox: Sandbox, extraEnv: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [DAEMON_MAIN, '--foreground'], {
    env: { ...sandbox.env, ...extraEnv },
    uid: NOBODY,
    gid: NOBODY,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  onTestFailed(() => {
    process.stderr.write(`\n--- output of memd as nobody (pid ${child.pid}) ---\n${output}\n---\n`);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
    });
  });
  const daemon: DaemonProcess = { child, pid: child.pid ?? -1, output: () => output, exited };
  await waitReady(sandbox, daemon);
  return daemon;
}

/** Runs `memctl ARGS` as `nobody` (the client checks that the socket is its own user's). */
export function runMemctlAsNobody(sandbox: Sandbox, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MEMCTL_MAIN, ...args], {
      env: sandbox.env,
      uid: NOBODY,
      gid: NOBODY,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** daemon.status over a raw socket (root may connect to nobody's socket; the client library would refuse). */
export async function daemonStatus<T = Record<string, unknown>>(sandbox: Sandbox): Promise<T> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    const response = await socket.request('daemon.status', {});
    return response.result as T;
  } finally {
    socket.close();
  }
}

/** The daemon's JSON log lines so far (foreground: on stderr). */
export function logLines(daemon: DaemonProcess): { level: string; msg: string; [field: string]: unknown }[] {
  return daemon
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string });
}
