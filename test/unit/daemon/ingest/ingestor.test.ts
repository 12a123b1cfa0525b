import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { MAX_FAILED_EVENTS_PER_FILE } from '../../../../daemon/ingest/failed-events.js';
import { GROUP_FILES_MAX } from '../../../../daemon/ingest/group-pass.js';
import { allFiles, ingestStats } from '../../../../daemon/ingest/index-rows.js';
import { createIngestor, type Ingestor, type IngestorDeps } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { listSessions } from '../../../../daemon/transcripts/queries.js';
import type { EventPayloads, EventTopic } from '../../../../shared/protocol/events.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { copyFixtureProjects, dumpIndex } from '../../../helpers/ingest.js';

let dir: string;
let root: string;
let store: Store;
let changedSessions: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-ingestor-'));
  root = join(dir, 'projects');
  mkdirSync(join(root, 'p'), { recursive: true });
  store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  changedSessions = [];
});

const started: Ingestor[] = [];

afterEach(async () => {
  // Each ingestor has a parse worker: stop them before the store they write to closes.
  await Promise.all(started.splice(0).map((ingest) => ingest.stop()));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const bus = createBus((error) => {
  throw error;
});

function ingestor(options: Partial<IngestorDeps> = {}): Ingestor {
  const ingest = createIngestor({
    db: store.db,
    bus,
    log: fakeLogger(),
    clock: () => Date.now(),
    projectsDir: root,
    onSessionsChanged: (ids) => changedSessions.push(...ids),
    ...options,
  });
  started.push(ingest);
  return ingest;
}

const line = (n: number) =>
  `{"type":"user","uuid":"u${n}","timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"user","content":"message ${n}"}}\n`;

function session(id: string, lines: number, extra = ''): string {
  const path = join(root, 'p', `${id}.jsonl`);
  writeFileSync(path, Array.from({ length: lines }, (_, n) => line(n)).join('') + extra);
  return path;
}

describe('the ingestor', () => {
  it('backfills newest first (the smallest first among equally new) and reports progress until it is live', async () => {
    const hour = 3_600;
    utimesSync(session('old', 2), 1_000_000, 1_000_000);
    utimesSync(session('big', 30), 1_000_000 + hour, 1_000_000 + hour);
    utimesSync(session('small', 1), 1_000_000 + hour, 1_000_000 + hour);
    utimesSync(session('newest', 10), 1_000_000 + 2 * hour, 1_000_000 + 2 * hour);
    // One lane, so that the order is the scheduler's alone (two lanes finish in either order).
    const log = fakeLogger();
    const ingest = ingestor({ lanes: 1, log });
    // Before the scan has given it the files: not live, since nothing is caught up yet.
    expect(ingest.progress()).toMatchObject({ state: 'starting', filesPending: 0, backfillStartedAt: null });
    const files = await scanTranscripts(root);
    const total = files.reduce((sum, file) => sum + file.size, 0);
    ingest.backfill(files, []);
    expect(ingest.progress()).toMatchObject({
      state: 'backfilling',
      filesTotal: 4,
      bytesTotal: total,
      filesPending: 4,
    });
    await ingest.idle();
    expect(changedSessions).toEqual(['newest', 'small', 'big', 'old']);
    expect(ingest.progress()).toEqual({
      state: 'live',
      watching: false,
      filesDone: 4,
      filesTotal: 4,
      bytesDone: total,
      bytesTotal: total,
      filesPending: 0,
      backfillStartedAt: expect.any(String),
      backfillMs: expect.any(Number),
      // Done: no time left to estimate.
      backfillEtaMs: null,
    });
    expect(ingest.status().stats).toMatchObject({
      files: 4,
      sessions: 4,
      entries: 43,
      badLines: 0,
      bytesRead: total,
      bytesReadThisRun: total,
    });
    // One line when it is done, with the totals.
    expect(log.at('info').filter((entry) => entry.msg === 'backfill done')).toEqual([
      {
        level: 'info',
        msg: 'backfill done',
        fields: { files: 4, bytes: total, ms: expect.any(Number), mbPerS: expect.any(Number) },
      },
    ]);
  });

  it('counts only what is left to read in a restart backfill, and reads nothing of unchanged files', async () => {
    session('a', 5);
    session('b', 5);
    const first = ingestor();
    first.backfill(await scanTranscripts(root), []);
    await first.idle();
    const second = ingestor();
    second.backfill(await scanTranscripts(root), []);
    await second.idle();
    expect(second.progress()).toMatchObject({
      state: 'live',
      filesDone: 2,
      filesTotal: 2,
      bytesTotal: 0,
      bytesDone: 0,
    });
    expect(second.status().stats.bytesReadThisRun).toBe(0);
    // Two lanes: the two equal files finish in either order.
    expect([...changedSessions].sort()).toEqual(['a', 'b']);
  });

  it('passes over a file read to its end and unchanged since, but reads one rewritten in place to the same size', async () => {
    const same = session('same', 5);
    const rewritten = session('rewritten', 5);
    const first = ingestor();
    first.backfill(await scanTranscripts(root), []);
    await first.idle();
    await first.stop();
    // Same inode, same size, other content, written after the last read: the mtime says so.
    const text = readFileSync(rewritten, 'utf8').replace('message 0', 'massage 0');
    writeFileSync(rewritten, text);
    const later = Date.now() / 1000 + 60;
    utimesSync(rewritten, later, later);
    const before = store.db.prepare('SELECT last_seen FROM files WHERE path = ?').pluck().get(same);
    const second = ingestor();
    second.backfill(await scanTranscripts(root), []);
    await second.idle();
    expect(second.progress()).toMatchObject({ state: 'live', filesDone: 2, filesTotal: 2 });
    // The unchanged file had no pass (its row untouched); the rewritten one was read again.
    expect(store.db.prepare('SELECT last_seen FROM files WHERE path = ?').pluck().get(same)).toBe(before);
    expect(second.status().stats.bytesReadThisRun).toBe(statSync(rewritten).size);
    expect(second.lastRead(same)).toEqual({ ino: String(statSync(same).ino), size: statSync(same).size });
  });

  it('reads a changed file before the rest of the backfill', async () => {
    const paths = [session('small', 1), session('medium', 10), session('big', 30)];
    const big = paths[2] as string;
    // One mtime for all (they were written within a tick or two): smallest first among equals.
    const at = Date.now() / 1000 - 60;
    for (const path of paths) utimesSync(path, at, at);
    // One lane, so that the order is the scheduler's alone; chunks so small that no file is read in a group.
    const ingest = ingestor({ lanes: 1, chunkBytes: 256 });
    ingest.backfill(await scanTranscripts(root), []);
    // `small` is being read already; `big` jumps the queue.
    ingest.touch(big);
    await ingest.idle();
    expect(changedSessions).toEqual(['small', 'big', 'medium']);
    expect(ingest.progress()).toMatchObject({ state: 'live', filesDone: 3 });
  });

  it('reads small backfill files in groups, and a changed file before the groups after the one being read', async () => {
    const count = GROUP_FILES_MAX * 2 + 5;
    const paths = Array.from({ length: count }, (_, n) => session(`s${String(n).padStart(3, '0')}`, 2));
    // Older files further down the list: the backfill reads the top of it first.
    const now = Date.now() / 1000;
    paths.forEach((path, n) => utimesSync(path, now - 60 - n, now - 60 - n));
    const last = paths.at(-1) as string;
    const ingest = ingestor({ lanes: 1 });
    ingest.backfill(await scanTranscripts(root), []);
    ingest.touch(last);
    await ingest.idle();
    // The first group (GROUP_FILES_MAX files, its sessions told in order), then the changed file, then the rest.
    expect(changedSessions.slice(0, GROUP_FILES_MAX)).toEqual(
      paths.slice(0, GROUP_FILES_MAX).map((path) => basename(path, '.jsonl')),
    );
    expect(changedSessions[GROUP_FILES_MAX]).toBe(basename(last, '.jsonl'));
    expect(changedSessions).toHaveLength(count);
    expect(ingestStats(store.db)).toMatchObject({ files: count, entries: 2 * count });
    expect(ingest.progress()).toMatchObject({
      state: 'live',
      filesDone: count,
      filesTotal: count,
      bytesDone: ingest.progress().bytesTotal,
    });
  });

  it('lets a long backfill pass give way to a changed file, then resumes it', async () => {
    const big = session('big', 400);
    const small = session('small', 1);
    // One lane: with a second one, the changed file would simply be read beside the big one.
    const ingest = ingestor({ chunkBytes: 256, lanes: 1 });
    ingest.backfill([{ path: big, size: statSync(big).size, ino: String(statSync(big).ino) }], []);
    ingest.touch(small);
    await ingest.idle();
    expect(changedSessions.indexOf('small')).toBeLessThan(changedSessions.lastIndexOf('big'));
    expect(changedSessions[0]).toBe('big');
    expect(allFiles(store.db).get(big)).toMatchObject({ entries: 400, committedOffset: statSync(big).size });
    expect(ingest.progress()).toMatchObject({ state: 'live', filesDone: 1, filesTotal: 1 });
  });

  it('indexes every fixture the same in two lanes through the parse worker as in one lane inline', async () => {
    copyFixtureProjects(root);
    const files = await scanTranscripts(root);
    // Small chunks, so that lines span chunks and partial lines are kept in the worker too.
    const inWorker = ingestor({ chunkBytes: 4096 });
    inWorker.backfill(files, []);
    await inWorker.idle();
    const expected = dumpIndex(store.db, root);
    store.close();
    store = openStore(join(dir, 'inline.sqlite'), fakeLogger());
    const inline = ingestor({ parseInWorker: false, lanes: 1 });
    inline.backfill(files, []);
    await inline.idle();
    expect(dumpIndex(store.db, root)).toEqual(expected);
    expect(Object.keys(expected).length).toBe(files.length);
  });

  it('reads a file changed while it is being read once more afterwards, never in two lanes at once', async () => {
    const path = session('s', 200);
    const ingest = ingestor({ chunkBytes: 256 });
    ingest.backfill(await scanTranscripts(root), []);
    for (let n = 200; n < 260; n++) {
      appendFileSync(path, line(n));
      ingest.touch(path);
      if (n % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await ingest.idle();
    expect(allFiles(store.db).get(path)).toMatchObject({ entries: 260, committedOffset: statSync(path).size });
    // Two passes at once over one file would have read (and counted) some bytes twice.
    expect(ingest.status().stats.bytesReadThisRun).toBe(statSync(path).size);
  });

  it('marks files indexed before but missing now as gone during the backfill', async () => {
    const path = session('s', 2);
    const first = ingestor();
    first.backfill(await scanTranscripts(root), []);
    await first.idle();
    rmSync(path);
    const second = ingestor();
    second.backfill(await scanTranscripts(root), [path]);
    await second.idle();
    expect(listSessions(store.db)).toMatchObject([{ sessionId: 's', gone: true, entries: 2 }]);
  });

  it('publishes ingest.failed once per bad line, after the line is committed', async () => {
    const path = session('s', 2, '{not json\n[]\n');
    const seen: { topic: EventTopic; payload: unknown; committed: number }[] = [];
    const stop = bus.listen(<T extends EventTopic>(topic: T, payload: EventPayloads[T]) => {
      seen.push({ topic, payload, committed: ingestStats(store.db).badLines });
    });
    try {
      const ingest = ingestor();
      ingest.backfill(await scanTranscripts(root), []);
      await ingest.idle();
      ingest.touch(path);
      await ingest.idle();
      const at = line(0).length * 2;
      expect(seen).toEqual([
        {
          topic: 'ingest.failed',
          payload: { path, sessionId: 's', offset: at, length: 9, reason: 'invalid-json' },
          committed: 2,
        },
        {
          topic: 'ingest.failed',
          payload: { path, sessionId: 's', offset: at + 10, length: 2, reason: 'not-an-object' },
          committed: 2,
        },
      ]);
      expect(
        ingest
          .status()
          .recentBadLines.map((bad) => bad.reason)
          .sort(),
      ).toEqual(['invalid-json', 'not-an-object']);
    } finally {
      stop();
    }
  });

  it('reports at most MAX_FAILED_EVENTS_PER_FILE bad lines of a file as events, and counts them all', async () => {
    session('g', 1, '{bad\n'.repeat(MAX_FAILED_EVENTS_PER_FILE + 20));
    let events = 0;
    const stop = bus.listen((topic) => {
      if (topic === 'ingest.failed') events++;
    });
    try {
      const ingest = ingestor();
      ingest.backfill(await scanTranscripts(root), []);
      await ingest.idle();
      expect(events).toBe(MAX_FAILED_EVENTS_PER_FILE);
      expect(ingestStats(store.db).badLines).toBe(MAX_FAILED_EVENTS_PER_FILE + 20);
    } finally {
      stop();
    }
  });

  it("keeps each session's newest entry timestamp, and recomputes it when a file is rewritten", async () => {
    const entry = (uuid: string, timestamp: string) =>
      `${JSON.stringify({ type: 'user', uuid, timestamp, message: { role: 'user', content: uuid } })}\n`;
    const path = join(root, 'p', 't.jsonl');
    writeFileSync(
      path,
      entry('u1', '2026-12-02T10:00:00.000Z') +
        entry('u2', '2026-12-02T12:00:00.000Z') +
        entry('u3', '2026-12-02T11:00:00.000Z'),
    );
    const ingest = ingestor();
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    expect(listSessions(store.db).find((row) => row.sessionId === 't')?.lastActivity).toBe('2026-12-02T12:00:00.000Z');
    writeFileSync(path, entry('v1', '2026-12-01T09:00:00.000Z'));
    ingest.touch(path);
    await ingest.idle();
    expect(listSessions(store.db).find((row) => row.sessionId === 't')?.lastActivity).toBe('2026-12-01T09:00:00.000Z');
  });

  it('ignores paths that are not transcripts', async () => {
    const ingest = ingestor();
    ingest.touch(join(root, 'p', 'notes.txt'));
    ingest.touch(join(dir, 'elsewhere.jsonl'));
    expect(ingest.progress().filesPending).toBe(0);
    await ingest.idle();
    expect(ingestStats(store.db).files).toBe(0);
  });

  it('keeps going after a file it cannot read, and says so in status', async () => {
    // A symlink to itself fails to open with ELOOP.
    const loop = join(root, 'p', 'loop.jsonl');
    symlinkSync(loop, loop);
    session('fine', 1);
    const ingest = ingestor();
    ingest.touch(loop);
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    expect(listSessions(store.db).map((s) => s.sessionId)).toEqual(['fine']);
    expect(ingest.status().lastError).toMatchObject({ path: loop, message: expect.stringContaining('ELOOP') });
    expect(ingest.progress()).toMatchObject({ state: 'live', filesPending: 0 });
  });

  it('stops at the next chunk, with what it read committed, and reads nothing after', async () => {
    const big = session('big', 400);
    const ingest = ingestor({ chunkBytes: 256, commitBytes: 1 });
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.stop();
    const row = allFiles(store.db).get(big);
    expect(row?.committedOffset ?? 0).toBeLessThan(statSync(big).size);
    ingest.touch(big);
    await ingest.idle();
    expect(allFiles(store.db).get(big)?.committedOffset).toBe(row?.committedOffset);
  });
});
