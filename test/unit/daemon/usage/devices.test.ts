/**
 * The usage book across machines (issue 35), on real SQLite books: a response in files of two
 * machines (a session copied to another machine and resumed there) counts once, for the same
 * machine on each of them whichever file was folded first; and usage.report by device, and of one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { type BookFile, createUsageBook, EVERYTHING, type UsageBook } from '../../../../daemon/usage/book.js';
import type { ResponseEntry } from '../../../../daemon/usage/rank.js';
import { createUsageService, type UsageService } from '../../../../daemon/usage/service.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { indexFiles, responseEntry } from '../../../helpers/usage-index.js';

const A = 'aaaa000000000000';
const B = 'bbbb000000000000';
const C = 'cccc000000000000';
const SONNET = 'claude-sonnet-4-5';

let dir: string;
const stores: Store[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-usage-devices-'));
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function openDb(name: string): Store {
  const store = openStore(join(dir, `${name}.sqlite`), fakeLogger());
  stores.push(store);
  return store;
}

/** The session as machine A wrote it: two responses. Copied to B and resumed there: both again, and a third. */
const onA = [
  responseEntry(1, '2026-03-01T10:00:00Z', SONNET, 300),
  responseEntry(2, '2026-03-01T10:05:00Z', SONNET, 400),
];
const onB = [
  ...onA.map((entry) => ({ ...entry, offset: entry.offset + 50 })),
  responseEntry(3, '2026-03-01T11:00:00Z', SONNET, 500),
];

/**
 * One machine's book of the two files, folded in the given order: its own file under its projects
 * dir, the other machine's decoded under its state dir (paths that sort the other way round on B).
 */
function machineBook(self: string, order: 'own first' | 'other first'): UsageBook {
  const { db } = openDb(`${self}-${order.replace(' ', '-')}`);
  const book = createUsageBook(db, { deviceId: self });
  const other = self === A ? B : A;
  const files: { file: BookFile; entries: readonly ResponseEntry[] }[] = [
    {
      file: { id: 1, path: `/home/${self}/.claude/projects/-p/s.jsonl`, project: '-p', sessionId: 's', device: '' },
      entries: self === A ? onA : onB,
    },
    {
      file: {
        id: 2,
        path: `/var/${self}/memd/sync/devices/${other}/-p/s.jsonl`,
        project: '-p',
        sessionId: 's',
        device: other,
      },
      entries: self === A ? onB : onA,
    },
  ];
  if (order === 'other first') files.reverse();
  for (const { file, entries } of files) db.transaction(() => book.fold(file, entries))();
  return book;
}

/** Responses and output tokens by device id, as a report names them ('' is the book's own). */
function byDevice(book: UsageBook, self: string): Record<string, [number, number]> {
  const sums: Record<string, [number, number]> = {};
  for (const row of book.groups(null, null, EVERYTHING)) {
    const id = row.device === '' ? self : row.device;
    const [responses, output] = sums[id] ?? [0, 0];
    sums[id] = [responses + row.responses, output + row.output];
  }
  return sums;
}

describe('a response in two machines’ files', () => {
  it('counts once, for the same machine on both, whichever file was folded first', () => {
    // A's id sorts first: the copied responses are A's on both machines, the one made on B is B's.
    const expected = { [A]: [2, 700], [B]: [1, 500] };
    for (const self of [A, B])
      for (const order of ['own first', 'other first'] as const)
        expect(byDevice(machineBook(self, order), self), `${self}, ${order}`).toEqual(expected);
  });

  it('totals what one machine holding both files counts', () => {
    const { db } = openDb('one-machine');
    const book = createUsageBook(db, { deviceId: A });
    db.transaction(() => {
      book.fold({ id: 1, path: '/p/-p/s.jsonl', project: '-p', sessionId: 's', device: '' }, onA);
      book.fold({ id: 2, path: '/p/-p/t.jsonl', project: '-p', sessionId: 's', device: '' }, onB);
    })();
    const total = (sums: Record<string, [number, number]>) =>
      Object.values(sums).reduce(([r, o], [dr, dout]) => [r + dr, o + dout], [0, 0]);
    expect(total(byDevice(book, A))).toEqual([3, 1_200]);
    expect(total(byDevice(machineBook(B, 'other first'), B))).toEqual([3, 1_200]);
  });

  it("passes the responses to the other machine's file when the counted one goes, and takes them back", () => {
    const { db } = openDb('drop');
    const book = createUsageBook(db, { deviceId: B });
    const mine: BookFile = {
      id: 1,
      path: '/Users/b/.claude/projects/-p/s.jsonl',
      project: '-p',
      sessionId: 's',
      device: '',
    };
    const theirs: BookFile = {
      id: 2,
      path: '/var/b/sync/devices/a/-p/s.jsonl',
      project: '-p',
      sessionId: 's',
      device: A,
    };
    db.transaction(() => {
      book.fold(mine, onB);
      book.fold(theirs, onA);
    })();
    expect(byDevice(book, B)).toEqual({ [A]: [2, 700], [B]: [1, 500] });
    db.transaction(() => book.dropFile(theirs.id))();
    expect(byDevice(book, B)).toEqual({ [B]: [3, 1_200] });
    db.transaction(() => book.fold(theirs, onA))();
    expect(byDevice(book, B)).toEqual({ [A]: [2, 700], [B]: [1, 500] });
  });
});

describe('usage.report by device', () => {
  let service: UsageService;
  let store: Store;

  beforeEach(async () => {
    store = openDb('report');
    indexFiles(store.db, [
      {
        id: 1,
        path: '/home/u/.claude/projects/-p-a/s1.jsonl',
        project: '-p-a',
        sessionId: 's1',
        entries: [responseEntry(1, '2026-03-01T10:00:00Z', SONNET, 100)],
      },
      {
        id: 2,
        path: `/state/sync/devices/${B}/-p-a/s2.jsonl`,
        project: '-p-a',
        sessionId: 's2',
        device: B,
        entries: [
          responseEntry(2, '2026-03-01T12:00:00Z', SONNET, 200),
          responseEntry(3, '2026-03-02T09:00:00Z', SONNET, 300),
        ],
      },
      {
        id: 3,
        path: `/state/sync/devices/${C}/-p-b/s3.jsonl`,
        project: '-p-b',
        sessionId: 's3',
        device: C,
        entries: [responseEntry(4, '2026-03-02T10:00:00Z', SONNET, 400)],
      },
    ]);
    // The sync reader names B from its device.json; C has none yet.
    store.db
      .prepare(
        "INSERT INTO sync_devices (id, name, version, first_seen, last_seen) VALUES (?, 'laptop', '1.0.0', 0, 0)",
      )
      .run(B);
    service = createUsageService({
      db: store.db,
      log: fakeLogger(),
      clock: () => Date.parse('2026-03-03T12:00:00Z'),
      device: { id: A, name: 'desk' },
    });
    service.start();
    await service.caughtUp();
  });

  afterEach(() => service.stop());

  it('gives a row per device, named, this machine marked, adding up to the totals', async () => {
    const report = await service.report({ by: 'device', timezone: 'UTC' });
    expect(report.rows.map((row) => [row.key, row.name, row.local, row.responses, row.output])).toEqual([
      [B, 'laptop', false, 2, 500],
      [C, C, false, 1, 400],
      [A, 'desk', true, 1, 100],
    ]);
    expect(report.totals).toMatchObject({ responses: 4, output: 1_000 });
    // The default view sums every device, as before.
    expect((await service.report({ timezone: 'UTC' })).totals).toEqual(report.totals);
  });

  it('keeps to one device, given by name (in any case) or id, in every view', async () => {
    const laptop = await service.report({ device: 'laptop', timezone: 'UTC' });
    expect(laptop.rows.map((row) => [row.key, row.responses])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 1],
    ]);
    expect(laptop.totals).toMatchObject({ responses: 2, output: 500 });
    expect((await service.report({ device: 'LAPTOP', by: 'project' })).rows.map((row) => row.key)).toEqual(['-p-a']);
    expect((await service.report({ device: B, by: 'block' })).totals).toMatchObject({ responses: 2, output: 500 });
    expect((await service.report({ device: 'desk' })).totals).toMatchObject({ responses: 1, output: 100 });
    expect((await service.report({ device: A, by: 'device' })).rows.map((row) => row.key)).toEqual([A]);
    expect((await service.report({ device: C, project: '-p-a' })).totals.responses).toBe(0);
  });

  it('refuses a device it does not know, or a name two devices share, with the candidates', async () => {
    await expect(service.report({ device: 'phone' })).rejects.toThrow(
      expect.objectContaining({
        data: expect.objectContaining({
          kind: 'UnknownDevice',
          candidates: expect.arrayContaining([
            { id: A, name: 'desk' },
            { id: B, name: 'laptop' },
          ]),
        }),
      }),
    );
    store.db
      .prepare(
        "INSERT INTO sync_devices (id, name, version, first_seen, last_seen) VALUES (?, 'laptop', '1.0.0', 0, 0)",
      )
      .run('dddd000000000000');
    await expect(service.report({ device: 'laptop' })).rejects.toThrow(
      expect.objectContaining({ code: -32602, data: expect.objectContaining({ kind: 'AmbiguousDevice' }) }),
    );
  });
});
