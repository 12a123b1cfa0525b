/**
 * Group passes (group-pass.ts): small backfill files read together and committed in one
 * transaction must index exactly what passes of their own do, and leave every case they do not
 * handle to such a pass, over a real store and a real parse worker.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { GROUP_FILES_MAX } from '../../../../daemon/ingest/group-pass.js';
import { allFiles, ingestStats } from '../../../../daemon/ingest/index-rows.js';
import { createIngestor, type Ingestor, type IngestorDeps } from '../../../../daemon/ingest/ingestor.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import { createAggregateStore } from '../../../../daemon/sessions/aggregates.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { type FakeLogger, fakeLogger } from '../../../helpers/fake-logger.js';
import { copyFixtureProjects, dumpIndex } from '../../../helpers/ingest.js';
import { eventually } from '../../../helpers/poll.js';

let dir: string;
let root: string;
const stores: Store[] = [];
const started: Ingestor[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-group-'));
  root = join(dir, 'projects');
  mkdirSync(join(root, 'p'), { recursive: true });
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((ingest) => ingest.stop()));
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function indexer(
  name: string,
  options: Partial<IngestorDeps> = {},
): { store: Store; ingest: Ingestor; changed: string[]; log: FakeLogger } {
  const store = openStore(join(dir, `${name}.sqlite`), fakeLogger());
  stores.push(store);
  const changed: string[] = [];
  const log = fakeLogger();
  const observer = createAggregateStore({ db: store.db, lastExtraction: () => null });
  const ingest = createIngestor({
    db: store.db,
    bus: createBus(() => {}),
    log,
    clock: () => Date.now(),
    projectsDir: root,
    onSessionsChanged: (ids) => changed.push(...ids),
    observer,
    ...options,
  });
  started.push(ingest);
  return { store, ingest, changed, log };
}

const line = (n: number, extra = '') =>
  `{"type":"user","uuid":"u${n}","sessionId":"s","message":{"role":"user","content":"message ${n}"}${extra}}\n`;

function write(relative: string, text: string): string {
  const path = join(root, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** What a store holds: the index rows, and each session's aggregate (its state parsed: files read in another order add its keys in another order). */
function contents(store: Store) {
  const aggregates = store.db
    .prepare(
      'SELECT session_id, state, project, last_activity, all_gone, entries, bad_lines FROM session_aggregates ORDER BY session_id',
    )
    .all() as { state: string }[];
  return {
    index: dumpIndex(store.db, root),
    aggregates: aggregates.map((row) => ({ ...row, state: JSON.parse(row.state) as unknown })),
  };
}

describe('group passes', () => {
  it('index the fixtures, sub-agents and bad lines included, exactly as passes one file at a time', async () => {
    copyFixtureProjects(root);
    write('p/bad.jsonl', `${line(0)}not json\n${line(1)}\n\n`);
    write('p/empty.jsonl', '');
    const files = await scanTranscripts(root);
    const grouped = indexer('grouped');
    grouped.ingest.backfill(files, []);
    await grouped.ingest.idle();
    // A changed file is never grouped: touching every file reads each in a pass of its own.
    const alone = indexer('alone');
    for (const file of files) alone.ingest.touch(file.path);
    await alone.ingest.idle();
    expect(contents(grouped.store)).toEqual(contents(alone.store));
    expect(ingestStats(grouped.store.db)).toMatchObject({ files: files.length, badLines: 1 });
  });

  it('commit up to the last complete line, and read the rest once it is written', async () => {
    const path = write('p/half.jsonl', `${line(0)}${line(1).slice(0, 20)}`);
    write('p/whole.jsonl', line(0));
    const { store, ingest } = indexer('half');
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    expect(allFiles(store.db).get(path)).toMatchObject({ entries: 1, committedOffset: line(0).length });
    writeFileSync(path, `${line(0)}${line(1)}`);
    ingest.touch(path);
    await ingest.idle();
    expect(allFiles(store.db).get(path)).toMatchObject({
      entries: 2,
      committedOffset: line(0).length + line(1).length,
    });
  });

  it('leave a FIFO where a file was found, a symlink out of the projects dir and a dangling one to passes of their own, and read the rest', async () => {
    const paths = Array.from({ length: 5 }, (_, n) => write(`p/s${n}.jsonl`, line(n)));
    const fifo = write('p/fifo.jsonl', line(8));
    const outside = join(dir, 'outside.jsonl');
    writeFileSync(outside, line(9));
    const escaping = join(root, 'p', 'escape.jsonl');
    symlinkSync(outside, escaping);
    symlinkSync(join(dir, 'nowhere.jsonl'), join(root, 'p', 'dangling.jsonl'));
    const { store, ingest } = indexer('odd');
    const found = await scanTranscripts(root);
    // Made a FIFO after the scan found it as a file: the group sees a FIFO where a transcript was.
    rmSync(fifo);
    execFileSync('mkfifo', [fifo]);
    ingest.backfill(found, []);
    await ingest.idle();
    for (const path of paths) expect(allFiles(store.db).get(path)).toMatchObject({ entries: 1 });
    const failing = ingest.status().failing.map((failure) => [failure.path, failure.code]);
    expect(failing).toEqual(
      expect.arrayContaining([
        [escaping, 'outside'],
        [fifo, 'not-a-file'],
      ]),
    );
    expect(allFiles(store.db).has(escaping)).toBe(false);
    expect(ingest.progress()).toMatchObject({ state: 'live', filesPending: 0 });
  });

  it('file a 2.0.x top-level agent file under the session its entries name', async () => {
    write('p/s.jsonl', line(0));
    const agent = write('p/agent-1a2b.jsonl', line(1, ',"isSidechain":true'));
    const { store, ingest, changed } = indexer('agent');
    ingest.backfill(await scanTranscripts(root), []);
    await ingest.idle();
    expect(allFiles(store.db).get(agent)).toMatchObject({ entries: 1 });
    expect(store.db.prepare('SELECT session_id FROM files WHERE path = ?').pluck().get(agent)).toBe('s');
    // Told of the session it joined and of the stem it was listed under until then.
    expect(changed).toEqual(expect.arrayContaining(['s', 'agent-1a2b']));
  });

  it('read their files one by one when the group cannot commit, and lose none once the store takes writes', async () => {
    const count = GROUP_FILES_MAX + 3;
    for (let n = 0; n < count; n++) write(`p/s${String(n).padStart(3, '0')}.jsonl`, line(n));
    const { store, ingest, log } = indexer('full', { parseInWorker: false });
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    ingest.backfill(await scanTranscripts(root), []);
    await eventually(() => ingest.status().failing.some((failure) => failure.kind === 'store'), 'the store fault');
    // The group's commit failed first; its files were then read one by one (one of them probing the store).
    expect(log.lines.some((logged) => logged.msg === 'a group pass failed; its files are read one by one')).toBe(true);
    store.db.pragma('max_page_count = 1073741823');
    await ingest.idle();
    expect(ingestStats(store.db)).toMatchObject({ files: count, entries: count });
    expect(ingest.progress()).toMatchObject({ state: 'live', filesDone: count, filesTotal: count });
  });
});
