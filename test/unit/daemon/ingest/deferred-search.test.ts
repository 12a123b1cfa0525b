/**
 * A big first backfill leaves its new files' search texts to the search index builder
 * (pass-choices.ts DEFAULT_DEFER_SEARCH_BYTES): the files' search offsets stay at 0 and the index
 * empty until the builder runs, which then holds exactly what an ingest that read the texts
 * holds, appends before it ran included. Once it is caught up, a live append is indexed by its own
 * commit again, and a file left behind later is caught up after the next commit.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Ingestor, IngestorDeps } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { createSearchBuilder } from '../../../../daemon/search/builder.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { KIND_SLOTS } from '../../../../daemon/store/search-row.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { copyFixtureProjects, quietIngestor } from '../../../helpers/ingest.js';
import { eventually } from '../../../helpers/sandbox.js';

let dir: string;
let root: string;
const stores: Store[] = [];
const started: Ingestor[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-deferred-search-'));
  root = join(dir, 'projects');
  copyFixtureProjects(root, ['coding-loop', 'corrections']);
  // Small files (read in group passes) and one of several chunks (a pass of its own).
  mkdirSync(join(root, 'p'), { recursive: true });
  for (const id of ['a', 'b', 'c']) writeFileSync(join(root, 'p', `${id}.jsonl`), lines(id, 0, 20));
  writeFileSync(join(root, 'p', 'big.jsonl'), lines('big', 0, 3_000));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((ingest) => ingest.stop()));
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function lines(id: string, from: number, count: number): string {
  return Array.from(
    { length: count },
    (_, n) =>
      `${JSON.stringify({
        type: 'user',
        uuid: `${id}-${from + n}`,
        sessionId: id,
        timestamp: '2026-03-02T10:00:00.000Z',
        message: {
          role: 'user',
          content: `word${from + n} in ${id}, some padding to make a chunk: ${'x'.repeat(400)}`,
        },
      })}\n`,
  ).join('');
}

function open(name: string): Store {
  const store = openStore(join(dir, `${name}.sqlite`), fakeLogger());
  stores.push(store);
  return store;
}

async function backfill(store: Store, options: Partial<IngestorDeps>): Promise<Ingestor> {
  // Small chunks, so that the big file takes several commits.
  const ingest = quietIngestor(store.db, root, { chunkBytes: 64 * 1024, commitBytes: 128 * 1024, ...options });
  started.push(ingest);
  ingest.backfill(await scanTranscripts(root), []);
  await ingest.idle();
  return ingest;
}

/** The index's rows as (file, line offset, kind): entry rowids differ between two ingests. */
function indexed(store: Store): string[] {
  return (
    store.db
      .prepare(
        `SELECT f.path || ' ' || e.offset || ' ' || (s.rowid % ${KIND_SLOTS}) FROM search_fts s
         JOIN entries e ON e.rowid = s.rowid / ${KIND_SLOTS} JOIN files f ON f.id = e.file_id`,
      )
      .pluck()
      .all() as string[]
  ).sort();
}

const offsets = (store: Store) =>
  store.db.prepare('SELECT path, committed_offset, search_offset FROM files ORDER BY path').all() as {
    path: string;
    committed_offset: number;
    search_offset: number;
  }[];

async function build(store: Store): Promise<ReturnType<typeof createSearchBuilder>> {
  const builder = createSearchBuilder({ db: store.db, log: fakeLogger() });
  builder.start();
  await eventually(() => builder.state().state === 'ready' && offsets(store).every(caughtUp), 'the builder');
  return builder;
}

const caughtUp = (file: { committed_offset: number; search_offset: number }) =>
  file.search_offset === file.committed_offset;

describe('a backfill that defers search texts', () => {
  it('reads none, and the builder then indexes what an ingest with texts does', async () => {
    const reference = open('reference');
    await backfill(reference, {});
    expect(offsets(reference).every(caughtUp)).toBe(true);
    const want = indexed(reference);
    expect(want.length).toBeGreaterThan(3_000);

    const deferred = open('deferred');
    await backfill(deferred, { deferSearchBytes: 1 });
    expect(offsets(deferred).map((file) => file.search_offset)).toEqual(offsets(deferred).map(() => 0));
    expect(offsets(deferred).every((file) => file.committed_offset > 0)).toBe(true);
    expect(indexed(deferred)).toEqual([]);

    const builder = await build(deferred);
    builder.stop();
    expect(indexed(deferred)).toEqual(want);
  });

  it('leaves a small backfill indexed as it commits', async () => {
    const store = open('small');
    await backfill(store, { deferSearchBytes: 1024 * 1024 * 1024 });
    expect(offsets(store).every(caughtUp)).toBe(true);
  });

  it('catches up appends made before the builder ran, and a caught-up file is indexed by its commits', async () => {
    const store = open('appended');
    const ingest = await backfill(store, { deferSearchBytes: 1 });
    const big = join(root, 'p', 'big.jsonl');
    appendFileSync(big, lines('big', 3_000, 10));
    ingest.touch(big);
    await ingest.idle();
    // Read live, behind in the index: the commit keeps no texts.
    expect(indexed(store).length).toBe(0);
    const builder = await build(store);
    const before = indexed(store).length;
    expect(before).toBeGreaterThan(3_000);
    appendFileSync(big, lines('big', 3_010, 5));
    ingest.touch(big);
    await ingest.idle();
    expect(indexed(store).length).toBe(before + 5);
    expect(offsets(store).every(caughtUp)).toBe(true);
    // A pass that began before the builder caught its file up commits without texts: the builder
    // looks again after commits.
    store.db.exec(`DELETE FROM search_fts; UPDATE files SET search_offset = 0 WHERE path = '${big}'`);
    builder.committed();
    await eventually(() => offsets(store).every(caughtUp), 'the builder to look again');
    builder.stop();
    expect(indexed(store).filter((row) => row.startsWith(big)).length).toBe(3_015);
  });
});
