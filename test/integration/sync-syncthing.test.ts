/**
 * Sync across machines carried by Syncthing for real (issue 35): two memd daemons, each with its own
 * copy of the sync folder, and two Syncthing instances on loopback sharing it. Each lists and counts
 * the other's session, and a forget on one reaches the other. Skipped, with the reason, where
 * Syncthing cannot start (CI does not depend on it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionList } from '../../shared/protocol/sessions.js';
import type { UsageReportResult } from '../../shared/protocol/usage.js';
import { eventually, runMemctl } from '../helpers/sandbox.js';
import {
  call,
  type Machine,
  makeMachine,
  start,
  stop,
  syncStatus,
  usageCounted,
  writeSyncSession,
} from '../helpers/sync-pair.js';
import { type SyncthingPair, startSyncthingPair, syncthingUsable } from '../helpers/syncthing.js';

const unusable = await syncthingUsable();
if (unusable !== null) process.stderr.write(`sync-syncthing.test.ts: skipped, ${unusable}\n`);

const LAPTOP_SESSION = '5a1e0000-3333-4e5f-8a9b-0c1d2e3f4a5b';
const DESKTOP_SESSION = 'de5c0000-4444-4e5f-8a9b-0c1d2e3f4a5b';
/** Syncthing's watcher waits a second, then scans, exchanges indexes and pulls; memd looks every 100 ms. */
const CROSSING_MS = 30_000;
/** memd's temp files (atomic writes, decodes) and Syncthing's own stay home. */
const IGNORE = ['(?d).*'];

const listed = async (machine: Machine) =>
  (await call<SessionList>(machine, 'sessions.list', { all: true })).sessions.map((row) => row.sessionId).sort();
const totalTokens = async (machine: Machine) =>
  (await call<UsageReportResult>(machine, 'usage.report', { timezone: 'UTC' })).totals.totalTokens;

let pair: SyncthingPair | undefined;
const machines: Machine[] = [];
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
  for (const machine of machines.splice(0)) await stop(machine);
});

describe.skipIf(unusable !== null)(`sync over Syncthing${unusable === null ? '' : ` (skipped: ${unusable})`}`, () => {
  it("carries each machine's sessions to the other, counted once, and a forget back", async () => {
    const laptop = makeMachine('laptop');
    const desktop = makeMachine('desktop');
    machines.push(laptop, desktop);
    writeSyncSession(laptop, LAPTOP_SESSION, 3, '2026-04-01T10:00:00Z');
    writeSyncSession(desktop, DESKTOP_SESSION, 2, '2026-04-02T10:00:00Z');
    pair = await startSyncthingPair({ dirA: laptop.syncDir, dirB: desktop.syncDir, ignore: IGNORE });
    await Promise.all([start(laptop), start(desktop)]);
    for (const machine of [laptop, desktop]) await usageCounted(machine);
    const alone = [await totalTokens(laptop), await totalTokens(desktop)];
    const both = [DESKTOP_SESSION, LAPTOP_SESSION].sort();
    await eventually(
      async () => JSON.stringify(await listed(laptop)) === JSON.stringify(both),
      'the laptop lists both',
      CROSSING_MS,
    );
    await eventually(
      async () => JSON.stringify(await listed(desktop)) === JSON.stringify(both),
      'the desktop lists both',
      CROSSING_MS,
    );
    const sum = (alone[0] ?? 0) + (alone[1] ?? 0);
    await eventually(
      async () => (await totalTokens(laptop)) === sum && (await totalTokens(desktop)) === sum,
      'both count both once',
    );
    expect((await syncStatus(desktop)).devices.map((device) => device.name)).toEqual(['laptop']);

    const forgotten = await runMemctl(laptop.sandbox, ['archive', 'forget', LAPTOP_SESSION, '--delete-transcripts']);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    await eventually(
      async () => !(await listed(desktop)).includes(LAPTOP_SESSION),
      'the desktop forgets it',
      CROSSING_MS,
    );
    expect(await totalTokens(desktop)).toBe(alone[1]);
  }, 90_000);
});
