/**
 * The usage book against ccusage 20.0.24's own algorithm (issue 18): random API-response entries
 * spread over files of several sessions (split responses with placeholder output, copies in other
 * files and sessions, sidechain replays with more tokens, exact ties, entries without a requestId
 * or a message.id, unreadable timestamps) are folded into a real SQLite book in random slices and
 * orders, with files dropped and folded again, then dropped for good; after every step the book's
 * quarter-hour rows must equal what ccusage's loop gives for the entries the files hold: files in
 * path order, lines in order, an entry replacing the kept one when the kept one is a sidechain's
 * and it is not, or when it has strictly more tokens. Seeded: a failure names its seed. Then the
 * same with files of three machines (issue 35): ccusage's order with the device ids before the
 * paths, and the quarter-hour rows kept by device too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { type BookFile, createUsageBook, EVERYTHING, type SlotRow } from '../../../../daemon/usage/book.js';
import { SLOT_MS } from '../../../../daemon/usage/days.js';
import { createUsageFollower } from '../../../../daemon/usage/follower.js';
import type { ResponseEntry } from '../../../../daemon/usage/rank.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { seededRandom } from '../../../helpers/seeded-random.mjs';
import { responseEntryWriter } from '../../../helpers/usage-index.js';

const SEEDS = Number(process.env.MEMD_PROPERTY_SEEDS ?? 24);
const STEPS = 12;
/** This machine's device id in these books: between the other two, so that neither side always wins. */
const THIS_DEVICE = '7777777777777777';
const OTHER_DEVICES = ['1111111111111111', 'eeeeeeeeeeeeeeee'];

interface FileData extends BookFile {
  entries: ResponseEntry[];
}

/** The order files are read in: ccusage's by path, with device ids first (this machine's files under its own). */
const readingOrder = (a: FileData, b: FileData) => {
  const [da, db] = [a.device || THIS_DEVICE, b.device || THIS_DEVICE];
  if (da !== db) return da < db ? -1 : 1;
  return a.path < b.path ? -1 : 1;
};

/** ccusage's loop over every file's entries; the slots it fills. */
function reference(files: readonly FileData[]): Map<string, SlotRow> {
  const kept = new Map<string, { entry: ResponseEntry; project: string; device: string }>();
  const unkeyed: { entry: ResponseEntry; project: string; device: string }[] = [];
  const total = (entry: ResponseEntry) => {
    const usage = entry.usage as NonNullable<ResponseEntry['usage']>;
    return usage.input + usage.output + usage.cacheCreation + usage.cacheRead;
  };
  for (const file of [...files].sort(readingOrder)) {
    for (const entry of file.entries) {
      // What memd takes for an API response; ccusage also reads `<synthetic>` entries, whose usage is zero.
      // A sub-agent's response nested in a main transcript's progress entry is one too, a sidechain's (issue 28).
      if (
        (entry.type !== 'assistant' && entry.type !== 'progress') ||
        entry.usage === null ||
        entry.model === '<synthetic>'
      )
        continue;
      if (entry.timestamp === null || !Number.isFinite(Date.parse(entry.timestamp))) continue;
      if (entry.messageId === null) {
        unkeyed.push({ entry, project: file.project, device: file.device });
        continue;
      }
      const key =
        entry.requestId === null
          ? `${entry.messageId}|${file.sessionId}|${Date.parse(entry.timestamp)}`
          : `${entry.messageId}|${entry.requestId}`;
      const seen = kept.get(key);
      const sidechain = (candidate: ResponseEntry) => candidate.isSidechain || candidate.type === 'progress';
      const replaces =
        seen === undefined ||
        (sidechain(seen.entry) !== sidechain(entry) ? sidechain(seen.entry) : total(entry) > total(seen.entry));
      if (replaces) kept.set(key, { entry, project: file.project, device: file.device });
    }
  }
  const slots = new Map<string, SlotRow>();
  for (const { entry, project, device } of [...kept.values(), ...unkeyed]) {
    const usage = entry.usage as NonNullable<ResponseEntry['usage']>;
    const slot = Math.floor(Date.parse(entry.timestamp as string) / SLOT_MS);
    const id = `${slot}|${project}|${entry.model ?? ''}|${device}`;
    const row = slots.get(id) ?? {
      slot,
      project,
      model: entry.model ?? '',
      device,
      responses: 0,
      input: 0,
      output: 0,
      cache_creation: 0,
      cache_read: 0,
      cache_5m: 0,
      cache_1h: 0,
    };
    row.responses += 1;
    row.input += usage.input;
    row.output += usage.output;
    row.cache_creation += usage.cacheCreation;
    row.cache_read += usage.cacheRead;
    row.cache_5m += usage.cache5m;
    row.cache_1h += usage.cache1h;
    slots.set(id, row);
  }
  return slots;
}

const byId = (rows: readonly SlotRow[]) =>
  new Map(rows.map((row) => [`${row.slot}|${row.project}|${row.model}|${row.device}`, row]));

/**
 * Random responses, written into random files: each response once or several times, split or
 * copied. With `devices`, files are of this machine or one of two others (a session's files of one
 * machine: it was copied there and resumed), under their own roots.
 */
function corpus(rand: () => number, devices = false): FileData[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)] as T;
  const sessions = ['s-a', 's-b', 's-c'];
  const files: FileData[] = [];
  for (let id = 1; id <= 6; id++) {
    const sessionId = pick(sessions);
    const agent = rand() < 0.3;
    const device = devices ? pick(['', ...OTHER_DEVICES]) : '';
    const project = pick(['-p-one', '-p-two']);
    // This machine's files sort before the others' by path, not by device id: the id must decide.
    const root = device === '' ? '/p' : `/state/sync/devices/${device}/${project}`;
    files.push({
      id,
      sessionId,
      project,
      device,
      path: `${root}/${sessionId}${agent ? `/subagents/agent-${id}` : `-${id}`}.jsonl`,
      entries: [],
    });
  }
  const offsets = new Map<number, number>();
  const put = (file: FileData, entry: Omit<ResponseEntry, 'offset'>) => {
    const offset = (offsets.get(file.id) ?? 0) + 100;
    offsets.set(file.id, offset);
    file.entries.push({ ...entry, offset });
  };
  const start = Date.parse('2026-03-01T23:00:00.000Z');
  for (let n = 0; n < 60; n++) {
    const at = start + Math.floor(rand() * 3 * 3_600_000);
    const usage = {
      input: 1 + Math.floor(rand() * 5),
      output: 50 + Math.floor(rand() * 500),
      cacheCreation: Math.floor(rand() * 3) * 100,
      cacheRead: Math.floor(rand() * 4) * 1_000,
      cache5m: 0,
      cache1h: 0,
    };
    usage.cache1h = usage.cacheCreation;
    const shape = rand();
    const messageId = shape < 0.05 ? null : `msg_${n}`;
    const requestId = shape < 0.12 ? null : `req_${n}`;
    const model = pick(['claude-sonnet-4-5', 'claude-opus-4-6', null]);
    const home = pick(files);
    const parts = 1 + Math.floor(rand() * 3);
    // Split over entries a few seconds apart (maybe across a quarter hour): placeholders, then the final.
    for (let part = 0; part < parts; part++) {
      const last = part === parts - 1;
      put(home, {
        type: 'assistant',
        timestamp: new Date(at + part * 4_000).toISOString(),
        messageId,
        requestId,
        model,
        usage: { ...usage, output: last ? usage.output : 1 + part },
        isSidechain: home.path.includes('subagents'),
      });
    }
    const copies = rand();
    // A copy with the final usage: at the same time (a resumed session's history), or later (a tie whose entry decides the day).
    const copyAt = at + (parts - 1) * 4_000 + (rand() < 0.5 ? 0 : 20 * 60_000);
    if (copies < 0.3)
      put(rand() < 0.3 ? home : pick(files), {
        type: 'assistant',
        timestamp: new Date(copyAt).toISOString(),
        messageId,
        requestId,
        model,
        usage,
        isSidechain: false,
      });
    else if (copies < 0.4)
      put(pick(files), {
        type: 'assistant',
        timestamp: new Date(at).toISOString(),
        messageId,
        requestId,
        model,
        usage: { ...usage, output: usage.output + 900 },
        isSidechain: true,
      });
    else if (copies < 0.55) {
      // Nested in a main transcript's progress entries, split as in the sub-agent's file (2.1.3x-2.1.4x).
      const mains = files.filter((file) => !file.path.includes('subagents'));
      const nestIn = mains.length > 0 ? pick(mains) : home;
      for (let part = 0; part < parts; part++)
        put(nestIn, {
          type: 'progress',
          timestamp: new Date(at + part * 4_000).toISOString(),
          messageId,
          requestId,
          model,
          usage: { ...usage, output: part === parts - 1 ? usage.output : 1 + part },
          isSidechain: false,
        });
    }
  }
  // Things the book must skip: no usage, a synthetic message, an unreadable time.
  const first = files[0] as FileData;
  put(first, {
    type: 'user',
    timestamp: new Date(start).toISOString(),
    messageId: null,
    requestId: null,
    model: null,
    usage: null,
    isSidechain: false,
  });
  put(first, {
    type: 'assistant',
    timestamp: new Date(start).toISOString(),
    messageId: 'msg_s',
    requestId: 'req_s',
    model: '<synthetic>',
    usage: { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, cache5m: 0, cache1h: 0 },
    isSidechain: false,
  });
  put(first, {
    type: 'assistant',
    timestamp: 'not a time',
    messageId: 'msg_t',
    requestId: 'req_t',
    model: 'claude-opus-4-6',
    usage: { input: 9, output: 9, cacheCreation: 0, cacheRead: 0, cache5m: 0, cache1h: 0 },
    isSidechain: false,
  });
  return files;
}

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openBookStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'memd-usage-book-'));
  dirs.push(dir);
  const store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  stores.push(store);
  return store;
}

describe('the usage book', () => {
  for (let seed = 1; seed <= 2 * SEEDS; seed++) {
    const devices = seed > SEEDS;
    it(`equals ccusage's loop over the entries the files hold${devices ? ' of three machines' : ''} (seed ${seed})`, () => {
      const rand = seededRandom(seed);
      const files = corpus(rand, devices);
      const store = openBookStore();
      const { db } = store;
      const book = createUsageBook(db, { deviceId: THIS_DEVICE });
      const insertFile = db.prepare(
        "INSERT INTO files (id, path, project, session_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen, device) VALUES (?, ?, ?, ?, 0, '1', ?, 0, 0, '', 0, 0, 0, 0, 0, 0, 0, 0, ?)",
      );
      for (const file of files)
        insertFile.run(file.id, file.path, file.project, file.sessionId, String(file.id), file.device || null);
      /** What each file's index holds so far: a prefix of its entries. */
      const held = new Map(files.map((file) => [file.id, 0]));
      const check = (what: string) => {
        const holding = files.map((file) => ({ ...file, entries: file.entries.slice(0, held.get(file.id)) }));
        expect(byId(book.slots(null, null, EVERYTHING)), `seed ${seed}: ${what}`).toEqual(reference(holding));
      };
      for (let step = 0; step < STEPS; step++) {
        const file = files[Math.floor(rand() * files.length)] as FileData;
        const action = rand();
        const from = held.get(file.id) as number;
        if (action < 0.2 && from > 0) {
          // Truncated or replaced: the rows go, then the file is read again from its start.
          const keep = Math.floor(rand() * from);
          db.transaction(() => {
            book.dropFile(file.id);
            book.fold(file, file.entries.slice(0, keep));
          })();
          held.set(file.id, keep);
          check(`file ${file.id} cut to ${keep}`);
        } else {
          // An append of a few lines, folded maybe twice (a slice the background build reads again).
          const to = Math.min(file.entries.length, from + 1 + Math.floor(rand() * 8));
          const slice = file.entries.slice(from, to);
          db.transaction(() => book.fold(file, rand() < 0.3 ? [...slice].reverse() : slice))();
          if (rand() < 0.2) db.transaction(() => book.fold(file, slice))();
          held.set(file.id, to);
          check(`file ${file.id} read to ${to}`);
        }
      }
      for (const file of files) {
        db.transaction(() => book.fold(file, file.entries.slice(held.get(file.id))))();
        held.set(file.id, file.entries.length);
      }
      check('every file read to its end');
      // A forgotten session: its files leave the index, and the book takes back what they counted.
      const forgotten = (files[0] as FileData).sessionId;
      db.prepare('DELETE FROM files WHERE session_id = ?').run(forgotten);
      expect(db.transaction(() => book.dropOrphans())()).toBe(
        files.filter((file) => file.sessionId === forgotten).length,
      );
      for (const file of files) if (file.sessionId === forgotten) held.set(file.id, 0);
      check(`session ${forgotten} forgotten`);
    });
  }

  it('follows the index: files read, read again from their start, and removed', async () => {
    const store = openBookStore();
    const { db } = store;
    const book = createUsageBook(db, { deviceId: THIS_DEVICE });
    const files = corpus(seededRandom(99));
    const insertFile = db.prepare(
      "INSERT INTO files (id, path, project, session_id, is_sidechain, dev, ino, size, head_len, head_hash, committed_offset, bytes_read, entries, bad_lines, generation, gone, first_seen, last_seen) VALUES (?, ?, ?, ?, 0, '1', ?, 0, 0, '', ?, 0, 0, 0, 0, 0, 0, 0)",
    );
    const writeEntries = responseEntryWriter(db);
    const write = (file: FileData, entries: readonly ResponseEntry[]) => writeEntries(file.id, entries);
    for (const file of files) {
      insertFile.run(
        file.id,
        file.path,
        file.project,
        file.sessionId,
        String(file.id),
        (file.entries.at(-1)?.offset ?? 0) + 1,
      );
      write(file, file.entries);
    }
    const follower = createUsageFollower({ db, book, log: fakeLogger(), sliceRows: 7 });
    expect(follower.progress().state).toBe('building');
    follower.start();
    await follower.idle();
    expect(follower.progress()).toEqual({ state: 'ready', filesDone: 0, filesTotal: 0 });
    expect(byId(book.slots(null, null, EVERYTHING))).toEqual(reference(files));

    // A file read again from its start, with fewer lines: its next generation.
    const cut = files[1] as FileData;
    const kept = cut.entries.slice(0, 2);
    db.prepare('DELETE FROM entries WHERE file_id = ?').run(cut.id);
    write(cut, kept);
    db.prepare('UPDATE files SET generation = generation + 1, committed_offset = ? WHERE id = ?').run(
      (kept.at(-1)?.offset ?? 0) + 1,
      cut.id,
    );
    follower.wake();
    await follower.idle();
    expect(byId(book.slots(null, null, EVERYTHING))).toEqual(
      reference(files.map((file) => (file === cut ? { ...file, entries: kept } : file))),
    );

    // Appended lines, folded from where the file was left.
    const grown = files[2] as FileData;
    const more = [
      { ...(grown.entries.at(-1) as ResponseEntry), offset: 100_000, messageId: 'msg_late', requestId: 'req_late' },
    ];
    write(grown, more);
    db.prepare('UPDATE files SET committed_offset = ? WHERE id = ?').run(100_001, grown.id);
    follower.wake();
    await follower.idle();
    const now = files.map((file) =>
      file === cut
        ? { ...file, entries: kept }
        : file === grown
          ? { ...file, entries: [...file.entries, ...more] }
          : file,
    );
    expect(byId(book.slots(null, null, EVERYTHING))).toEqual(reference(now));
    follower.stop();
  });
});
