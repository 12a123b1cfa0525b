import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkerParser, type LineParser } from '../../../../daemon/ingest/parser.js';
import { scanTranscripts } from '../../../../daemon/ingest/scan.js';
import {
  createTailer,
  DEFAULT_CARRY_BUDGET_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  type PassOptions,
  type TailerDeps,
} from '../../../../daemon/ingest/tailer.js';
import type { CommitEvent, PassResult } from '../../../../daemon/ingest/types.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { type FileRow, fileFromRow } from '../../../../daemon/store/rows.js';
import { listSessions, loadFileEntries, loadSessionEntries } from '../../../../daemon/transcripts/queries.js';
import { classifyTranscript } from '../../../../shared/transcript/layout.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { copyFixtureProjects, dumpIndex } from '../../../helpers/ingest.js';

const SESSION = 'a0b1e238-1b46-4fb7-a01b-e2debb338b95';
const PROJECT = '-home-user-src-docs-site';

let dir: string;
let root: string;
let store: Store;
let commits: CommitEvent[];
const never = { shouldYield: () => false };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-tailer-'));
  root = join(dir, 'projects');
  mkdirSync(root);
  store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  commits = [];
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function tailer(options: Partial<TailerDeps> = {}) {
  return createTailer({
    db: store.db,
    log: fakeLogger(),
    clock: () => 1_000,
    onCommit: (event) => commits.push(event),
    ...options,
  });
}

type Tailer = ReturnType<typeof tailer>;

const workers: LineParser[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((parser) => parser.close()));
});

function workerParser(slotBytes: number): LineParser {
  const parser = createWorkerParser({
    lanes: 1,
    slotBytes,
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    carryBudgetBytes: DEFAULT_CARRY_BUDGET_BYTES,
  });
  workers.push(parser);
  return parser;
}

function pass(t: Tailer, path: string, options: PassOptions = never): Promise<PassResult> {
  const target = classifyTranscript(root, path);
  if (target === null) throw new Error(`not a transcript: ${path}`);
  return t.pass(target, options);
}

async function transcriptsUnder(base: string): Promise<string[]> {
  return (await scanTranscripts(base)).map((file) => file.path).sort();
}

function mainPath(sessionId = SESSION): string {
  return join(root, PROJECT, `${sessionId}.jsonl`);
}

function write(path: string, text: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * What the index must hold for a file: every non-blank line parsed on its own, without the
 * session id each line repeats (the file's row has it; the writer stores none per row).
 */
function reference(path: string): IndexedEntry[] {
  const bytes = readFileSync(path);
  const entries: IndexedEntry[] = [];
  for (let start = 0, end = bytes.indexOf(10); end !== -1; start = end + 1, end = bytes.indexOf(10, start)) {
    if (end === start) continue;
    const entry = parseEntry(JSON.parse(bytes.toString('utf8', start, end)) as unknown, start, end - start);
    // The index keeps no per-entry mark of a bad timestamp (the file's row counts them).
    if (entry !== null) {
      const { badTimestamp: _, ...kept } = entry;
      entries.push({ ...kept, sessionId: null });
    }
  }
  return entries;
}

function fileRow(path: string) {
  const row = store.db.prepare('SELECT * FROM files WHERE path = ?').get(path) as FileRow | undefined;
  if (row === undefined) throw new Error(`no row for ${path}`);
  return fileFromRow(row);
}

const line = (n: number, extra = '') =>
  `{"type":"user","uuid":"u${n}","timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"user","content":"m${n}${extra}"}}\n`;

describe('a pass over a transcript', () => {
  it.each([
    ['inline', () => tailer()],
    [
      'through the parse worker, in chunks smaller than some lines',
      () => tailer({ parser: { parser: workerParser(2048), lane: 0 } }),
    ],
  ])(
    'indexes every line of the fixtures exactly as parseEntry sees it, main and sidechains (%s)',
    async (_how, make) => {
      copyFixtureProjects(root);
      const t = make();
      const paths = await transcriptsUnder(root);
      expect(paths.length).toBeGreaterThanOrEqual(9);
      for (const path of paths) expect((await pass(t, path)).outcome).toBe('caught-up');
      for (const path of paths) {
        const row = fileRow(path);
        expect(loadFileEntries(store.db, row.id)).toEqual(reference(path));
        expect(row.committedOffset).toBe(statSync(path).size);
      }
      const session = loadSessionEntries(store.db, SESSION);
      expect(session.main).toEqual(reference(mainPath()));
      const agents = paths.filter((path) => path.includes('/subagents/')).sort();
      expect(session.sidechain).toEqual(agents.flatMap(reference));
      expect(t.counters.bytesRead).toBe(paths.reduce((sum, path) => sum + statSync(path).size, 0));
    },
  );

  it('reads only the bytes appended since the last pass', async () => {
    const path = mainPath();
    write(path, line(1) + line(2));
    const t = tailer();
    await pass(t, path);
    const before = t.counters.bytesRead;
    appendFileSync(path, line(3));
    const result = await pass(t, path);
    expect(result).toMatchObject({ outcome: 'caught-up', changed: true, bytesRead: line(3).length });
    expect(t.counters.bytesRead - before).toBe(line(3).length);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
    // Nothing new: nothing read, nothing written.
    const idle = await pass(t, path);
    expect(idle).toMatchObject({ outcome: 'caught-up', changed: false, bytesRead: 0 });
  });

  it('waits for the newline of a half-written line, without reading its start again', async () => {
    const path = mainPath();
    const full = line(2, 'x'.repeat(100));
    write(path, line(1) + full.slice(0, 40));
    const t = tailer();
    await pass(t, path);
    expect(fileRow(path)).toMatchObject({ committedOffset: line(1).length, entries: 1 });
    appendFileSync(path, full.slice(40, 90));
    await pass(t, path);
    expect(fileRow(path)).toMatchObject({ committedOffset: line(1).length, entries: 1 });
    appendFileSync(path, full.slice(90));
    await pass(t, path);
    const size = statSync(path).size;
    expect(fileRow(path)).toMatchObject({ committedOffset: size, entries: 2 });
    expect(t.counters.bytesRead).toBe(size);
    expect(store.db.prepare('SELECT bytes_read FROM files').pluck().get()).toBe(size);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
  });

  it('does not join a kept half-written line to other bytes written where it was (truncated back, then written again)', async () => {
    const path = mainPath();
    write(path, line(1) + line(2).slice(0, 30));
    const t = tailer();
    await pass(t, path);
    expect(fileRow(path)).toMatchObject({ committedOffset: line(1).length, entries: 1 });
    // The half line is cut away (the file is back to its committed size: no reset) and a whole
    // other line is written where it began.
    truncateSync(path, line(1).length);
    appendFileSync(path, line(3));
    await pass(t, path);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
    expect(fileRow(path)).toMatchObject({ committedOffset: statSync(path).size, entries: 2, badLines: 0 });
  });

  it('reads a half-written line again when it cannot keep it (no carry budget), with the same result', async () => {
    const path = mainPath();
    write(path, line(1) + line(2).slice(0, 10));
    const t = tailer({ carryBudgetBytes: 0 });
    await pass(t, path);
    appendFileSync(path, line(2).slice(10));
    await pass(t, path);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
    expect(t.counters.bytesRead).toBe(statSync(path).size + 10);
  });

  it.each([3, 7, 64])('gives the same index with chunks of %i bytes', async (chunkBytes) => {
    copyFixtureProjects(root, ['subagent']);
    const paths = await transcriptsUnder(root);
    const small = tailer({ chunkBytes, commitBytes: 1 });
    for (const path of paths) await pass(small, path);
    const dump = dumpIndex(store.db, root);
    for (const path of paths) expect(dump[path.slice(root.length + 1)]?.entries.length).toBe(reference(path).length);
    store.close();
    store = openStore(join(dir, 'other.sqlite'), fakeLogger());
    const large = tailer();
    for (const path of paths) await pass(large, path);
    expect(dumpIndex(store.db, root)).toEqual(dump);
  });

  it('ends early when asked to yield and resumes where it committed', async () => {
    const path = mainPath();
    write(path, Array.from({ length: 50 }, (_, n) => line(n)).join(''));
    const t = tailer({ chunkBytes: 100, commitBytes: 1 });
    const first = await pass(t, path, { shouldYield: (bytes) => bytes >= 300 });
    expect(first).toMatchObject({ outcome: 'yielded', end: null });
    expect(fileRow(path).committedOffset).toBeLessThan(statSync(path).size);
    expect((await pass(t, path)).outcome).toBe('caught-up');
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
    expect(t.counters.bytesRead).toBe(statSync(path).size);
  });
});

describe('a file that changed under the index', () => {
  it('is indexed again from its start when truncated, its rows replaced', async () => {
    const path = mainPath();
    write(path, line(1) + line(2) + line(3));
    const t = tailer();
    await pass(t, path);
    truncateSync(path, line(1).length);
    appendFileSync(path, line(9));
    const result = await pass(t, path);
    expect(result.changed).toBe(true);
    expect(fileRow(path)).toMatchObject({ generation: 1, entries: 2, committedOffset: statSync(path).size });
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
    expect(commits.at(-1)?.reset).toBe(true);
  });

  it('is indexed again when replaced by another file (a new inode)', async () => {
    const path = mainPath();
    write(path, line(1) + line(2) + line(3));
    const t = tailer();
    await pass(t, path);
    const other = join(dir, 'replacement.jsonl');
    writeFileSync(other, line(7) + line(8) + line(9) + line(10));
    renameSync(other, path);
    await pass(t, path);
    expect(fileRow(path)).toMatchObject({ generation: 1, entries: 4 });
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
  });

  it('is indexed again when rewritten in place with a different start', async () => {
    const path = mainPath();
    write(path, line(1) + line(2));
    const t = tailer();
    await pass(t, path);
    writeFileSync(path, line(5) + line(6) + line(7));
    await pass(t, path);
    expect(fileRow(path).generation).toBe(1);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
  });

  it('is indexed again when rewritten in place past its head (the last committed newline moved)', async () => {
    const path = mainPath();
    const head = line(0, 'h'.repeat(5_000));
    write(path, head + line(1) + line(2));
    const t = tailer();
    await pass(t, path);
    writeFileSync(path, head + line(11) + line(2) + line(3));
    await pass(t, path);
    expect(fileRow(path).generation).toBe(1);
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
  });

  it('is marked gone when deleted, its rows kept, and its session gone when it is the main transcript', async () => {
    copyFixtureProjects(root, ['subagent']);
    const t = tailer();
    const paths = await transcriptsUnder(root);
    for (const path of paths) await pass(t, path);
    const agent = paths.find((path) => path.includes('/subagents/')) as string;
    rmSync(agent);
    expect((await pass(t, agent)).outcome).toBe('gone');
    expect(listSessions(store.db)[0]).toMatchObject({ sessionId: SESSION, gone: false });
    rmSync(mainPath());
    expect(await pass(t, mainPath())).toMatchObject({ outcome: 'gone', changed: true });
    expect(await pass(t, mainPath())).toMatchObject({ outcome: 'absent', changed: false });
    const [session] = listSessions(store.db);
    expect(session).toMatchObject({ sessionId: SESSION, gone: true, mainFile: mainPath(), files: 3 });
    expect(loadSessionEntries(store.db, SESSION).main.length).toBeGreaterThan(0);
  });

  it('comes back when a deleted file reappears', async () => {
    const path = mainPath();
    write(path, line(1));
    const t = tailer();
    await pass(t, path);
    rmSync(path);
    await pass(t, path);
    write(path, line(2) + line(3));
    await pass(t, path);
    expect(fileRow(path)).toMatchObject({ gone: false, entries: 2 });
    expect(loadFileEntries(store.db, fileRow(path).id)).toEqual(reference(path));
  });
});

describe('bad lines', () => {
  it('records lines that are not UTF-8, not JSON, not an object or too long, once each, and skips them', async () => {
    const path = mainPath();
    const parts = [
      Buffer.from(line(1)),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      Buffer.from('{"type": oops\n'),
      Buffer.from('[1,2,3]\n'),
      Buffer.from(`${line(2, 'y'.repeat(300)).trimEnd()}\n`),
      Buffer.from('\n'),
      Buffer.from(line(3)),
    ];
    write(path, Buffer.concat(parts));
    const t = tailer({ maxLineBytes: 200, chunkBytes: 16 });
    await pass(t, path);
    const offsets = parts.map((_, i) => parts.slice(0, i).reduce((sum, part) => sum + part.length, 0));
    const rows = store.db.prepare('SELECT offset, length, reason FROM bad_lines ORDER BY offset').all();
    expect(rows).toEqual([
      { offset: offsets[1], length: 6, reason: 'invalid-utf8' },
      { offset: offsets[2], length: 13, reason: 'invalid-json' },
      { offset: offsets[3], length: 7, reason: 'not-an-object' },
      { offset: offsets[4], length: (parts[4] as Buffer).length - 1, reason: 'too-long' },
    ]);
    expect(fileRow(path)).toMatchObject({ entries: 2, badLines: 4, committedOffset: statSync(path).size });
    expect(loadFileEntries(store.db, fileRow(path).id).map((entry) => entry.uuid)).toEqual(['u1', 'u3']);
    expect(commits.flatMap((commit) => commit.bad).map((bad) => bad.reason)).toEqual([
      'invalid-utf8',
      'invalid-json',
      'not-an-object',
      'too-long',
    ]);
    appendFileSync(path, line(4));
    await pass(t, path);
    expect(commits.flatMap((commit) => commit.bad)).toHaveLength(4);
  });
});
