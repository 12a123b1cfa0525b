/**
 * Sync across machines (issue 35): two real memd daemons with their own homes and state, one sync
 * folder carried between their copies by rsync. Each lists, counts, restores and forgets the other's
 * sessions; what the engine does wrong (a copy stopped mid-file, files out of order, an older copy
 * put back, a machine's subtree gone) loses nothing and counts nothing twice.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionList } from '../../shared/protocol/sessions.js';
import type { UsageReportResult } from '../../shared/protocol/usage.js';
import { mainPath } from '../helpers/real-shapes.js';
import { eventually, runMemctl } from '../helpers/sandbox.js';
import {
  call,
  carry,
  carryAll,
  deviceId,
  type Machine,
  makeMachine,
  mirroredFiles,
  rounds,
  rsyncUsable,
  SYNC_CWD,
  start,
  stop,
  syncSession,
  syncStatus,
  usageCounted,
  writeSyncSession,
} from '../helpers/sync-pair.js';

const LAPTOP_SESSION = '5a1e0000-1111-4e5f-8a9b-0c1d2e3f4a5b';
const DESKTOP_SESSION = 'de5c0000-2222-4e5f-8a9b-0c1d2e3f4a5b';

const listAll = (machine: Machine) => call<SessionList>(machine, 'sessions.list', { all: true, limit: 100 });
const totals = async (machine: Machine) =>
  (await call<UsageReportResult>(machine, 'usage.report', { by: 'day', timezone: 'UTC' })).totals;

const machines: Machine[] = [];
afterEach(async () => {
  for (const machine of machines.splice(0)) await stop(machine);
});

async function pair(): Promise<[Machine, Machine]> {
  const laptop = makeMachine('laptop');
  const desktop = makeMachine('desktop');
  machines.push(laptop, desktop);
  writeSyncSession(laptop, LAPTOP_SESSION, 4, '2026-03-02T09:00:00Z');
  writeSyncSession(desktop, DESKTOP_SESSION, 3, '2026-03-03T09:00:00Z');
  await Promise.all([start(laptop), start(desktop)]);
  // Each mirrors its archive (made after its backfill) into its own subtree first.
  for (const machine of [laptop, desktop]) {
    await eventually(async () => (await syncStatus(machine)).self?.files === 1, `${machine.name} mirrored its archive`);
    await usageCounted(machine);
  }
  return [laptop, desktop];
}

const holds = async (machine: Machine, sessionId: string) =>
  (await listAll(machine)).sessions.find((listed) => listed.sessionId === sessionId);

describe.skipIf(rsyncUsable() !== null)('sync across machines over rsync', () => {
  it("lists, counts and restores the other machine's sessions, each response once", async () => {
    const [laptop, desktop] = await pair();
    const alone = [await totals(laptop), await totals(desktop)];
    carryAll([laptop, desktop]);
    await eventually(
      async () => (await holds(laptop, DESKTOP_SESSION)) !== undefined,
      'the laptop lists the desktop session',
    );
    await eventually(
      async () => (await holds(desktop, LAPTOP_SESSION)) !== undefined,
      'the desktop lists the laptop session',
    );
    expect((await holds(laptop, DESKTOP_SESSION))?.devices).toEqual(['desktop']);
    // The default listing stays this machine's.
    const local = await call<SessionList>(laptop, 'sessions.list', {});
    expect(local.sessions.map((listed) => listed.sessionId)).toEqual([LAPTOP_SESSION]);
    expect(local.hidden).toBe(1);
    const sum = (key: 'input' | 'output' | 'responses' | 'totalTokens') =>
      (alone[0]?.[key] ?? Number.NaN) + (alone[1]?.[key] ?? Number.NaN);
    await eventually(
      async () => (await totals(laptop)).totalTokens === sum('totalTokens'),
      'the laptop counts both machines',
    );
    for (const machine of [laptop, desktop]) {
      const both = await totals(machine);
      expect(both.input).toBe(sum('input'));
      expect(both.output).toBe(sum('output'));
      expect(both.responses).toBe(sum('responses'));
    }
    // Searchable and exportable here too.
    await eventually(async () => {
      const found = await call<{ hits: { sessionId: string }[] }>(laptop, 'search.query', { query: 'make step-2' });
      return found.hits.some((hit) => hit.sessionId === DESKTOP_SESSION);
    }, "the laptop's search finds the desktop session");
    const exported = await call<{ content: string }>(laptop, 'export.session', {
      sessionId: DESKTOP_SESSION,
      format: 'md',
    });
    expect(exported.content).toContain('make step-2');
    const status = await syncStatus(laptop);
    expect(status.devices).toMatchObject([
      { name: 'desktop', id: deviceId(desktop), gone: false, files: 1, behind: 0 },
    ]);
    const shown = await runMemctl(laptop.sandbox, ['sync', 'status']);
    expect(shown.stdout).toContain('from      desktop');
    const table = await runMemctl(laptop.sandbox, ['sessions', '--all']);
    expect(table.stdout).toMatch(/DEVICE/);
    expect(table.stdout).toMatch(/de5c0000 +desktop/);

    // Restored here byte for byte, then resumed here: the desktop counts the new responses once, the old ones once.
    const original = readFileSync(mainPath(desktop.sandbox.projectsDir, SYNC_CWD, DESKTOP_SESSION));
    const restored = await runMemctl(laptop.sandbox, ['archive', 'restore', DESKTOP_SESSION]);
    expect(restored.code, restored.stderr).toBe(0);
    const here = mainPath(laptop.sandbox.projectsDir, SYNC_CWD, DESKTOP_SESSION);
    expect(readFileSync(here).equals(original)).toBe(true);
    const resumed = syncSession(DESKTOP_SESSION, 5, '2026-03-03T09:00:00Z');
    appendFileSync(
      here,
      resumed.lines
        .slice(-4)
        .map((line) => `${JSON.stringify({ ...line, uuid: `${line.uuid}-r` })}\n`)
        .join(''),
    );
    await eventually(
      async () => (await holds(laptop, DESKTOP_SESSION))?.devices?.[0] === 'laptop',
      'the laptop holds it too',
    );
    const laptopTotals = async () => (await totals(laptop)).totalTokens;
    await eventually(
      async () => (await laptopTotals()) > sum('totalTokens'),
      'the laptop counts the resumed responses',
    );
    await eventually(async () => {
      carryAll([laptop, desktop]);
      return (await totals(desktop)).totalTokens === (await laptopTotals());
    }, 'the desktop counts what the laptop counts');
  });

  it('waits out torn and early copies, keeps what an older copy would take back, and keeps a gone machine', async () => {
    const [laptop, desktop] = await pair();
    const id = deviceId(laptop);
    const [file] = mirroredFiles(laptop);
    const mirrored = join(laptop.syncDir, id, 'archive', file as string);
    const arriving = join(desktop.syncDir, id, 'archive', file as string);
    // The index arrives before the file, then a copy stopped mid-member: nothing is decoded until a whole member is there.
    const whole = readFileSync(mirrored);
    carry(laptop, desktop, ['--exclude=archive/']);
    await eventually(async () => (await syncStatus(desktop)).devices[0]?.behind === 1, 'the desktop sees the index');
    mkdirSync(dirname(arriving), { recursive: true });
    writeFileSync(arriving, whole.subarray(0, whole.length - 9));
    await rounds(desktop);
    expect((await syncStatus(desktop)).devices[0]?.behind).toBe(1);
    expect(await holds(desktop, LAPTOP_SESSION)).toBeUndefined();
    writeFileSync(arriving, whole);
    await eventually(async () => (await holds(desktop, LAPTOP_SESSION)) !== undefined, 'the whole copy decodes');
    const before = await totals(desktop);
    // An older copy put back (an engine's rollback): what was decoded stays, counted once.
    writeFileSync(arriving, whole.subarray(0, 10));
    await rounds(desktop);
    expect((await totals(desktop)).totalTokens).toBe(before.totalTokens);
    writeFileSync(arriving, whole);
    // The laptop's subtree leaves the folder: its sessions stay on the desktop.
    rmSync(join(desktop.syncDir, id), { recursive: true });
    await eventually(async () => (await syncStatus(desktop)).devices[0]?.gone === true, 'the laptop is marked gone');
    expect(await holds(desktop, LAPTOP_SESSION)).toBeDefined();
    expect((await totals(desktop)).totalTokens).toBe(before.totalTokens);
    expect(existsSync(mirrored)).toBe(true);
  });

  it('carries a forget to the other machine as a tombstone', async () => {
    const [laptop, desktop] = await pair();
    carryAll([laptop, desktop]);
    await eventually(
      async () => (await holds(desktop, LAPTOP_SESSION)) !== undefined,
      'the desktop lists the laptop session',
    );
    const forgotten = await runMemctl(laptop.sandbox, ['archive', 'forget', LAPTOP_SESSION, '--delete-transcripts']);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect((await syncStatus(laptop)).self?.tombstones).toBe(1);
    await eventually(() => mirroredFiles(laptop).length === 0, "the laptop's copy leaves its subtree");
    await eventually(async () => {
      carryAll([laptop, desktop]);
      return (await holds(desktop, LAPTOP_SESSION)) === undefined;
    }, 'the desktop forgets the session');
    expect((await syncStatus(desktop)).self?.tombstones).toBe(1);
    // A replayed old copy of the laptop's archive does not bring it back.
    carryAll([laptop, desktop]);
    await rounds(desktop);
    expect(await holds(desktop, LAPTOP_SESSION)).toBeUndefined();
  });

  it('stops while the sync folder is missing (never making it) and goes on once it is back', async () => {
    const laptop = makeMachine('laptop');
    machines.push(laptop);
    rmSync(laptop.syncDir, { recursive: true });
    await start(laptop);
    await eventually(async () => (await syncStatus(laptop)).state === 'failing', 'sync says it fails');
    expect((await syncStatus(laptop)).reason).toMatch(/does not exist/);
    expect(existsSync(laptop.syncDir)).toBe(false);
    mkdirSync(laptop.syncDir, { mode: 0o700 });
    await eventually(async () => (await syncStatus(laptop)).state === 'idle', 'sync goes on', 30_000);
  });
});
