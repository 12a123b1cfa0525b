/**
 * Machines that share a sync folder, for sync's integration tests (issue 35): each a sandbox with
 * its own home, state and projects dir, and its own copy of the sync folder, carried between them
 * by rsync as a user's engine would (each device's subtree from its owner's copy to the others').
 * Tests stop a copy mid-file, reorder what arrives and replay older copies with the helpers here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SyncStatus } from '../../shared/protocol/sync.js';
import type { UsageReportResult } from '../../shared/protocol/usage.js';
import { createClient } from './client.js';
import { mainPath, TranscriptWriter, writeTranscript } from './real-shapes.js';
import { type DaemonProcess, eventually, makeSandbox, type Sandbox, startDaemon } from './sandbox.js';

export const RSYNC = '/usr/bin/rsync';
/** Rounds this often in tests: a change crosses in a few of them. */
const TEST_SCAN_MS = 100;

export interface Machine {
  name: string;
  sandbox: Sandbox;
  syncDir: string;
  daemon: DaemonProcess | null;
}

export function rsyncUsable(): string | null {
  return existsSync(RSYNC) ? null : 'rsync is not installed (Debian: apt-get install rsync)';
}

export function makeMachine(name: string): Machine {
  const sandbox = makeSandbox();
  const syncDir = join(sandbox.root, 'sync');
  mkdirSync(syncDir, { recursive: true, mode: 0o700 });
  Object.assign(sandbox.env, {
    MEMD_SYNC_DIR: syncDir,
    MEMD_SYNC_DEVICE_NAME: name,
    MEMD_SYNC_SCAN_MS: String(TEST_SCAN_MS),
  });
  return { name, sandbox, syncDir, daemon: null };
}

export async function start(machine: Machine): Promise<void> {
  machine.daemon = await startDaemon(machine.sandbox);
}

export async function stop(machine: Machine): Promise<void> {
  if (machine.daemon === null) return;
  machine.daemon.child.kill('SIGTERM');
  await machine.daemon.exited;
  machine.daemon = null;
}

/** The machine's device id (its state dir's device.json). */
export function deviceId(machine: Machine): string {
  return (JSON.parse(readFileSync(join(machine.sandbox.stateDir, 'device.json'), 'utf8')) as { id: string }).id;
}

/** Copies `from`'s own subtree into `to`'s copy of the sync folder (rsync -a: a temp file renamed into place, as the engine does). */
export function carry(from: Machine, to: Machine, extra: readonly string[] = []): void {
  const id = deviceId(from);
  const source = join(from.syncDir, id);
  if (!existsSync(source)) return;
  execFileSync(RSYNC, ['-a', '--delete', '--exclude=.*', ...extra, `${source}/`, `${join(to.syncDir, id)}/`]);
}

/** Every machine's subtree to every other machine. */
export function carryAll(machines: readonly Machine[]): void {
  for (const from of machines) for (const to of machines) if (from !== to) carry(from, to);
}

export async function call<T>(machine: Machine, method: string, params: object = {}): Promise<T> {
  const client = createClient({ socketPath: machine.sandbox.socketPath, autostart: false });
  try {
    return (await client.callRaw(method, params)) as T;
  } finally {
    client.close();
  }
}

export const syncStatus = (machine: Machine) => call<SyncStatus>(machine, 'sync.status');

/** The archive files a machine mirrored (paths under its subtree's archive/). */
export function mirroredFiles(machine: Machine): string[] {
  const root = join(machine.syncDir, deviceId(machine), 'archive');
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const next = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), next);
      else if (entry.name.endsWith('.gz')) found.push(next);
    }
  };
  if (existsSync(root)) walk(root, '');
  return found.sort();
}

/** Waits until `count` whole rounds began after now (a change made before it has been looked at). */
export async function rounds(machine: Machine, count = 2): Promise<void> {
  let after = Date.now();
  for (let round = 0; round < count; round++) {
    let ended = after;
    await eventually(
      async () => {
        const at = (await syncStatus(machine)).lastRoundAt;
        ended = at === null ? 0 : Date.parse(at);
        return ended > after;
      },
      `round ${round + 1} of ${count} on ${machine.name}`,
    );
    after = ended;
  }
}

/** The project the sync tests' sessions run in (the same path on every machine). */
export const SYNC_CWD = '/home/u/src/shop';

const roundUsage = (n: number) => ({ input: 10 + n, cacheWrite: 500 + n, cacheRead: 8_000 + 100 * n, output: 120 + n });

/** A session of `rounds` tool rounds (`make step-N`), each response's usage its own. */
export function syncSession(sessionId: string, rounds: number, startIso: string): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId, cwd: SYNC_CWD, version: '2.1.197', startMs: Date.parse(startIso) });
  writer.prompt(`Work on ${sessionId.slice(0, 4)}`);
  for (let n = 0; n < rounds; n++)
    writer.toolRound('Bash', { command: `make step-${n}` }, `step ${n} done`, roundUsage(n));
  return writer;
}

/** Writes a syncSession into the machine's projects dir, as Claude Code would have. */
export function writeSyncSession(machine: Machine, sessionId: string, rounds: number, startIso: string): void {
  writeTranscript(mainPath(machine.sandbox.projectsDir, SYNC_CWD, sessionId), syncSession(sessionId, rounds, startIso));
}

/** Waits until the machine's usage book has counted what its index holds. */
export function usageCounted(machine: Machine): Promise<void> {
  return eventually(
    async () => (await call<UsageReportResult>(machine, 'usage.report', {})).index.state === 'ready',
    `${machine.name} counted its own`,
  );
}
