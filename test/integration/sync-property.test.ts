/**
 * Issue 35's property: any interleaving of sessions written, resumed on another machine, copied,
 * forgotten and synced (with copies stopped mid-file and older copies put back) gives every machine
 * the same session list and the same usage totals as one memd that saw every file, with nothing
 * counted twice. Three real daemons and rsync per seed; the reference is a fourth daemon, without
 * sync, over every transcript the machines hold at the end.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionList } from '../../shared/protocol/sessions.js';
import type { UsageReportResult } from '../../shared/protocol/usage.js';
import { mainPath, TranscriptWriter } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';
import { seededRandom } from '../helpers/seeded-random.mjs';
import {
  call,
  carry,
  carryAll,
  deviceId,
  type Machine,
  makeMachine,
  mirroredFiles,
  rsyncUsable,
  start,
  stop,
  rounds as syncRounds,
  syncStatus,
} from '../helpers/sync-pair.js';

const SEEDS = [35, 3501, 7, 12, 99];
const STEPS = 20;
const CWD = '/home/u/src/app';
/** A convergence waits this long at most: a few dozen rounds of 100 ms and rsync runs. */
const CONVERGE_MS = 30_000;

/** Rounds of a session, with ids unique to `tag` (a resume on another machine makes new responses). */
function rounds(sessionId: string, count: number, startMs: number, tag: string): string {
  const writer = new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.197', startMs });
  writer.prompt(`step ${tag}`);
  for (let n = 0; n < count; n++)
    writer.toolRound('Bash', { command: `make ${tag}-${n}` }, `ok ${n}`, {
      input: 5 + n,
      cacheWrite: 100 + n,
      cacheRead: 1_000 + n,
      output: 50 + n,
    });
  return writer.lines
    .map((line) => {
      const message = line.message as Record<string, unknown> | undefined;
      const unique = {
        ...line,
        uuid: `${line.uuid as string}-${tag}`,
        ...(line.parentUuid ? { parentUuid: `${line.parentUuid as string}-${tag}` } : {}),
        ...(line.requestId ? { requestId: `${line.requestId as string}-${tag}` } : {}),
        ...(message?.id ? { message: { ...message, id: `${message.id as string}-${tag}` } } : {}),
      };
      return `${JSON.stringify(unique)}\n`;
    })
    .join('');
}

const sessionIds = async (machine: Machine) =>
  (await call<SessionList>(machine, 'sessions.list', { all: true, limit: 1_000 })).sessions
    .map((session) => session.sessionId)
    .sort();
const totalsOf = async (machine: { sandbox: Machine['sandbox'] }) => {
  const report = await call<UsageReportResult>(machine as Machine, 'usage.report', { by: 'day', timezone: 'UTC' });
  const { input, output, cacheCreation, cacheRead, responses } = report.totals;
  return { input, output, cacheCreation, cacheRead, responses };
};

/** Every transcript under a projects dir, relative to it. */
function transcripts(projectsDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.jsonl')) found.push(relative(projectsDir, path));
    }
  };
  if (existsSync(projectsDir)) walk(projectsDir);
  return found;
}

const machines: Machine[] = [];
afterEach(async () => {
  for (const machine of machines.splice(0)) await stop(machine);
});

describe.skipIf(rsyncUsable() !== null)('sync, any interleaving', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: every machine lists and counts what one memd over every file does`, async () => {
      const random = seededRandom(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
      const group = ['a', 'b', 'c'].map((name) => makeMachine(name));
      machines.push(...group);
      await Promise.all(group.map((machine) => start(machine)));
      const live = new Set<string>();
      const forgotten = new Set<string>();
      /** Older copies of a machine's subtree, put back later as an engine's rollback would. */
      const snapshots: { from: Machine; dir: string }[] = [];
      const local = (machine: Machine, sessionId: string) => mainPath(machine.sandbox.projectsDir, CWD, sessionId);
      let clock = Date.parse('2026-06-01T08:00:00Z');
      const log: string[] = [];
      for (let step = 0; step < STEPS; step++) {
        const machine = pick(group);
        const roll = random();
        clock += 3_600_000;
        const tag = `${machine.name}${step}`;
        const held = [...live].filter((id) => existsSync(local(machine, id)));
        if (roll < 0.25 || live.size === 0) {
          const sessionId = `${seed.toString(16).padStart(4, '0')}${step.toString(16).padStart(4, '0')}-0000-4000-8000-${tag.padEnd(12, '0')}`;
          mkdirSync(dirname(local(machine, sessionId)), { recursive: true });
          writeFileSync(local(machine, sessionId), rounds(sessionId, 2 + Math.floor(random() * 3), clock, tag));
          live.add(sessionId);
          log.push(`${tag}: write ${sessionId}`);
        } else if (roll < 0.4 && held.length > 0) {
          const sessionId = pick(held);
          writeFileSync(local(machine, sessionId), rounds(sessionId, 1 + Math.floor(random() * 2), clock, tag), {
            flag: 'a',
          });
          log.push(`${tag}: append ${sessionId}`);
        } else if (roll < 0.55) {
          // Resume here a session another machine shared (restored byte for byte first), if one has arrived.
          await syncRounds(machine, 2);
          const listed = (await sessionIds(machine)).filter((id) => live.has(id) && !existsSync(local(machine, id)));
          if (listed.length > 0) {
            const sessionId = pick(listed);
            const restored = await runMemctl(machine.sandbox, ['archive', 'restore', sessionId]);
            expect(restored.code, `${tag} restore ${sessionId}: ${restored.stderr}`).toBe(0);
            writeFileSync(local(machine, sessionId), rounds(sessionId, 1, clock, tag), { flag: 'a' });
            log.push(`${tag}: restore and resume ${sessionId}`);
          }
        } else if (roll < 0.65 && held.length > 0) {
          // The user copies a transcript to another machine by hand.
          const sessionId = pick(held);
          const to = pick(group.filter((other) => other !== machine && !existsSync(local(other, sessionId))));
          if (to !== undefined) {
            mkdirSync(dirname(local(to, sessionId)), { recursive: true });
            copyFileSync(local(machine, sessionId), local(to, sessionId));
            log.push(`${tag}: copy ${sessionId} to ${to.name}`);
          }
        } else if (roll < 0.72 && held.length > 0) {
          const sessionId = pick(held);
          const forgot = await runMemctl(machine.sandbox, ['archive', 'forget', sessionId, '--delete-transcripts']);
          expect(forgot.code, `${tag} forget ${sessionId}: ${forgot.stderr}`).toBe(0);
          live.delete(sessionId);
          forgotten.add(sessionId);
          log.push(`${tag}: forget ${sessionId}`);
        } else {
          const to = pick(group.filter((other) => other !== machine));
          const mode = random();
          if (mode < 0.2 && snapshots.length > 0) {
            // An older copy of some machine's subtree put back.
            const old = pick(snapshots);
            if (old.from !== to) {
              carry({ ...old.from, syncDir: old.dir }, to);
              log.push(`${tag}: replay an old copy of ${old.from.name} to ${to.name}`);
            }
          } else {
            carry(machine, to);
            if (mode < 0.5) {
              // Stopped mid-copy: one of the files arrived cut.
              const files = mirroredFiles(machine);
              if (files.length > 0) {
                const cut = join(to.syncDir, deviceId(machine), 'archive', pick(files));
                if (existsSync(cut)) truncateSync(cut, Math.floor(readFileSync(cut).length * random()));
              }
            }
            log.push(`${tag}: sync ${machine.name} to ${to.name}${mode < 0.5 ? ' (cut)' : ''}`);
          }
          if (random() < 0.3) {
            const dir = join(machine.sandbox.root, `snapshot-${step}`);
            mkdirSync(dir);
            carry(machine, { ...machine, syncDir: dir });
            snapshots.push({ from: machine, dir });
          }
        }
      }
      // The engine catches up: every machine ends with the same sessions and totals.
      let settled: string | null = null;
      await eventually(
        async () => {
          carryAll(group);
          const ids = await Promise.all(group.map((machine) => sessionIds(machine)));
          const totals = await Promise.all(group.map((machine) => totalsOf(machine)));
          const statuses = await Promise.all(group.map((machine) => syncStatus(machine)));
          const same = ids.every((list) => JSON.stringify(list) === JSON.stringify(ids[0]));
          const counted = totals.every((total) => JSON.stringify(total) === JSON.stringify(totals[0]));
          const caughtUp = statuses.every(
            (status) => status.devices.every((device) => device.behind === 0) && status.self?.behind === 0,
          );
          settled = same && counted && caughtUp ? JSON.stringify({ ids: ids[0], totals: totals[0] }) : null;
          return settled !== null;
        },
        `the machines agree (${log.join('; ')})`,
        CONVERGE_MS,
      );
      // One memd over every transcript the machines hold, each machine's under a folder of its own.
      const reference = makeSandbox();
      for (const machine of group)
        for (const rel of transcripts(machine.sandbox.projectsDir)) {
          const to = join(reference.projectsDir, `${machine.name}${rel.slice(rel.indexOf('/'))}`);
          mkdirSync(dirname(to), { recursive: true });
          copyFileSync(join(machine.sandbox.projectsDir, rel), to);
        }
      await startDaemon(reference);
      const one = { sandbox: reference, syncDir: '', name: 'reference', daemon: null } as Machine;
      await eventually(
        async () => (await call<UsageReportResult>(one, 'usage.report', {})).index.state === 'ready',
        'the reference counted',
      );
      const expected = { ids: await sessionIds(one), totals: await totalsOf(one) };
      const agreed = JSON.parse(settled as unknown as string) as typeof expected;
      if (process.env.SYNC_PROPERTY_LOG) console.log(seed, log, agreed);
      expect(agreed.ids, log.join('\n')).toEqual(expected.ids);
      expect(agreed.totals, log.join('\n')).toEqual(expected.totals);
      for (const sessionId of forgotten) expect(agreed.ids).not.toContain(sessionId);
    }, 120_000);
  }
});
