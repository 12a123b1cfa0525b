/**
 * Transcript ingest over a real daemon under the faults of issue 3: appends in pieces, a replaced
 * file, a truncated file, a 10 MB line, invalid UTF-8, a deleted file, 2,000 files, `kill -9`
 * during the backfill. After each, the daemon's index must equal a clean ingest of the same files,
 * and a restart must read no byte of them again.
 */

import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { IngestStatus } from '../../shared/protocol/ingest.js';
import {
  cleanIngest,
  copyFixtureProjects,
  dumpDatabase,
  FIXTURES,
  present,
  transcriptSizes,
} from '../helpers/ingest.js';
import { RawSocket } from '../helpers/raw-socket.js';
import { type DaemonProcess, eventually, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CODING_LOOP = '-home-user-src-invoice-service/4be41908-9cd7-4f2f-8ce3-b4984d13a3f5.jsonl';
const SUBAGENT_MAIN = '-home-user-src-docs-site/a0b1e238-1b46-4fb7-a01b-e2debb338b95.jsonl';
const SUBAGENT_DIR = '-home-user-src-docs-site/a0b1e238-1b46-4fb7-a01b-e2debb338b95';
/** Ingest of everything a test writes finishes well within this on a loaded two-core machine. */
const CATCH_UP_MS = 20_000;

async function ingestStatus(sandbox: Sandbox): Promise<IngestStatus> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    const response = await socket.request('daemon.status', {});
    return (response.result as { ingest: IngestStatus }).ingest;
  } finally {
    socket.close();
  }
}

interface FileState {
  path: string;
  size: number;
  committed_offset: number;
  gone: number;
  bytes_read: number;
}

function fileStates(sandbox: Sandbox): Map<string, FileState> {
  const db = new Database(sandbox.dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT path, size, committed_offset, gone, bytes_read FROM files').all() as FileState[];
    return new Map(rows.map((row) => [row.path, row]));
  } finally {
    db.close();
  }
}

/** Offset just past the last newline: where a caught-up index must stand. */
function completeLength(path: string): number {
  return readFileSync(path).lastIndexOf(0x0a) + 1;
}

/**
 * Caught up: nothing pending, and for every transcript on disk the index has read it to its end
 * (its size) and committed it to its last newline; indexed files no longer on disk are gone.
 */
async function isCaughtUp(sandbox: Sandbox): Promise<boolean> {
  const { progress } = await ingestStatus(sandbox);
  if (progress.state !== 'live' || progress.filesPending !== 0 || !progress.watching) return false;
  const onDisk = await transcriptSizes(sandbox.projectsDir);
  const indexed = fileStates(sandbox);
  for (const [path, size] of onDisk) {
    const row = indexed.get(path);
    if (row === undefined || row.gone === 1 || row.size !== size || row.committed_offset !== completeLength(path))
      return false;
  }
  for (const row of indexed.values()) if (!onDisk.has(row.path) && row.gone !== 1) return false;
  return true;
}

function waitCaughtUp(sandbox: Sandbox, deadlineMs = CATCH_UP_MS): Promise<void> {
  return eventually(() => isCaughtUp(sandbox), 'ingest to catch up', deadlineMs);
}

async function expectCleanIndex(sandbox: Sandbox): Promise<void> {
  const indexed = present(dumpDatabase(sandbox.dbPath, sandbox.projectsDir));
  expect(indexed).toEqual(await cleanIngest(sandbox.projectsDir));
}

function totalBytesRead(sandbox: Sandbox): number {
  return [...fileStates(sandbox).values()].reduce((sum, row) => sum + row.bytes_read, 0);
}

/** Stops the daemon, starts another, and checks that it reads nothing and changes nothing. */
async function expectRestartReadsNothing(sandbox: Sandbox, daemon: DaemonProcess): Promise<DaemonProcess> {
  daemon.child.kill('SIGTERM');
  expect((await daemon.exited).code).toBe(0);
  const before = dumpDatabase(sandbox.dbPath, sandbox.projectsDir);
  const bytesBefore = totalBytesRead(sandbox);
  const next = await startDaemon(sandbox);
  await waitCaughtUp(sandbox);
  const { stats, progress } = await ingestStatus(sandbox);
  expect(stats.bytesReadThisRun).toBe(0);
  expect(progress).toMatchObject({ bytesTotal: 0, bytesDone: 0 });
  expect(totalBytesRead(sandbox)).toBe(bytesBefore);
  expect(dumpDatabase(sandbox.dbPath, sandbox.projectsDir)).toEqual(before);
  return next;
}

async function startWithFixtures(scenarios?: string[]): Promise<{ sandbox: Sandbox; daemon: DaemonProcess }> {
  const sandbox = makeSandbox();
  copyFixtureProjects(sandbox.projectsDir, scenarios);
  const daemon = await startDaemon(sandbox);
  await waitCaughtUp(sandbox);
  return { sandbox, daemon };
}

const userLine = (text: string) =>
  `${JSON.stringify({ type: 'user', uuid: `u-${text.length}-${text.slice(0, 8)}`, sessionId: 'x', message: { role: 'user', content: text } })}\n`;

describe('transcript ingest under faults', () => {
  it('indexes the fixtures like a clean ingest, and a restart reads no byte again', async () => {
    const { sandbox, daemon } = await startWithFixtures();
    await expectCleanIndex(sandbox);
    const { stats } = await ingestStatus(sandbox);
    const sizes = [...(await transcriptSizes(sandbox.projectsDir)).values()];
    expect(stats.bytesRead).toBe(sizes.reduce((sum, size) => sum + size, 0));
    expect(stats.bytesReadThisRun).toBe(stats.bytesRead);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('follows appends in pieces (half lines, bursts faster than the watcher reports) without reading a byte twice', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['subagent']);
    const source = readFileSync(join(FIXTURES, 'coding-loop/projects', CODING_LOOP));
    const target = join(sandbox.projectsDir, CODING_LOOP);
    mkdirSync(dirname(target), { recursive: true });
    const cut = source.indexOf(0x0a, source.length / 4) + 1;
    writeFileSync(target, source.subarray(0, cut));
    const daemon = await startDaemon(sandbox);
    await waitCaughtUp(sandbox);
    // Half a line: the daemon sees it, commits nothing of it, and waits for the newline.
    let at = cut;
    const half = source.indexOf(0x0a, at) - 100;
    appendFileSync(target, source.subarray(at, half));
    at = half;
    await eventually(() => fileStates(sandbox).get(target)?.size === half, 'the half line to be seen');
    expect(fileStates(sandbox).get(target)?.committed_offset).toBe(cut);
    // The rest in uneven pieces, most written back to back (within chokidar's 50 ms throttle).
    for (let piece = 1; at < source.length; piece++) {
      const end = Math.min(source.length, at + 37 * piece * piece);
      appendFileSync(target, source.subarray(at, end));
      at = end;
      if (piece % 9 === 0) await waitCaughtUp(sandbox);
    }
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    expect(fileStates(sandbox).get(target)?.bytes_read).toBe(source.length);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('indexes a replaced file (a new inode) again from its start', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop', 'subagent']);
    const target = join(sandbox.projectsDir, CODING_LOOP);
    const replacement = join(sandbox.root, 'replacement.jsonl');
    const lines = readFileSync(target, 'utf8').split('\n').filter(Boolean);
    writeFileSync(replacement, `${lines.slice(0, 5).reverse().join('\n')}\n`);
    renameSync(replacement, target);
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('indexes a truncated file again, including one cut in the middle of a line', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop', 'compactions']);
    const target = join(sandbox.projectsDir, CODING_LOOP);
    const bytes = readFileSync(target);
    const middleOfALine = bytes.indexOf(0x0a, bytes.length / 2) - 10;
    truncateSync(target, middleOfALine);
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    // Growing back with other lines: still the same as a clean ingest.
    appendFileSync(target, `\n${userLine('after the cut')}`);
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('indexes a 10 MB line written in three pieces', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop']);
    const target = join(sandbox.projectsDir, CODING_LOOP);
    const big = Buffer.from(userLine('z'.repeat(10 * 1024 * 1024)));
    const third = Math.floor(big.length / 3);
    appendFileSync(target, big.subarray(0, third));
    appendFileSync(target, big.subarray(third, 2 * third));
    appendFileSync(target, big.subarray(2 * third));
    appendFileSync(target, userLine('after the big one'));
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    const dump = present(dumpDatabase(sandbox.dbPath, sandbox.projectsDir))[CODING_LOOP];
    expect(dump?.entries.some((entry) => entry.length === big.length - 1)).toBe(true);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('skips a line that is not UTF-8, reports it once, and carries on', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop']);
    const events = await RawSocket.open(sandbox.socketPath);
    expect((await events.request('events.subscribe', { topics: ['ingest.failed'] })).result).toEqual({
      topics: ['ingest.failed'],
    });
    const target = join(sandbox.projectsDir, CODING_LOOP);
    const offset = readFileSync(target).length;
    const invalid = Buffer.from([...Buffer.from('{"type":"user","text":"'), 0xc3, 0x28, 0xff, ...Buffer.from('"}')]);
    appendFileSync(target, Buffer.concat([invalid, Buffer.from('\n'), Buffer.from(userLine('still indexed'))]));
    expect(await events.next()).toEqual({
      jsonrpc: '2.0',
      method: 'ingest.failed',
      params: {
        path: target,
        sessionId: '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5',
        offset,
        length: invalid.length,
        reason: 'invalid-utf8',
      },
    });
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    const status = await ingestStatus(sandbox);
    expect(status.stats.badLines).toBe(1);
    expect(status.recentBadLines).toMatchObject([{ path: target, offset, reason: 'invalid-utf8' }]);
    appendFileSync(target, userLine('later'));
    await waitCaughtUp(sandbox);
    events.close();
    // Reported once: a restart re-reads nothing, so it reports nothing again.
    const next = await expectRestartReadsNothing(sandbox, daemon);
    expect(next.output()).not.toContain('invalid-utf8');
  });

  it('marks deleted files gone, keeps their rows, and indexes what remains like a clean ingest', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop', 'subagent']);
    const before = dumpDatabase(sandbox.dbPath, sandbox.projectsDir);
    rmSync(join(sandbox.projectsDir, SUBAGENT_MAIN));
    rmSync(join(sandbox.projectsDir, SUBAGENT_DIR), { recursive: true });
    await waitCaughtUp(sandbox);
    const after = dumpDatabase(sandbox.dbPath, sandbox.projectsDir);
    const gone = Object.keys(after).filter((path) => after[path]?.gone);
    expect(gone.sort()).toEqual(
      Object.keys(before)
        .filter((path) => path.startsWith(SUBAGENT_DIR))
        .sort(),
    );
    for (const path of gone) expect(after[path]?.entries).toEqual(before[path]?.entries);
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('indexes 2,000 files: half there at start, half created while it runs', async () => {
    const sandbox = makeSandbox();
    const lines = readFileSync(join(FIXTURES, 'coding-loop/projects', CODING_LOOP), 'utf8')
      .split('\n')
      .filter(Boolean);
    const writeSession = (n: number) => {
      const project = join(sandbox.projectsDir, `-home-user-p${n % 40}`);
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, `session-${n}.jsonl`), `${lines.slice(n % 20, (n % 20) + 1 + (n % 3)).join('\n')}\n`);
    };
    for (let n = 0; n < 1_000; n++) writeSession(n);
    const daemon = await startDaemon(sandbox);
    for (let n = 1_000; n < 2_000; n++) writeSession(n);
    await waitCaughtUp(sandbox, 60_000);
    expect((await ingestStatus(sandbox)).stats).toMatchObject({ files: 2_000, sessions: 2_000, badLines: 0 });
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, daemon);
  }, 120_000);

  it('survives kill -9 during the backfill: the restart reads exactly what was not committed', async () => {
    const sandbox = makeSandbox();
    const lines = readdirSync(join(FIXTURES, 'big-outputs/projects'))
      .flatMap((project) =>
        readdirSync(join(FIXTURES, 'big-outputs/projects', project)).map((name) =>
          join(FIXTURES, 'big-outputs/projects', project, name),
        ),
      )
      .filter((path) => path.endsWith('.jsonl'))
      .flatMap((path) => readFileSync(path, 'utf8').split('\n').filter(Boolean));
    // About 60 MB in 30 files: long enough a backfill to kill in the middle of.
    const body = `${Array.from({ length: 70 }, (_, n) => lines[n % lines.length]).join('\n')}\n`;
    for (let n = 0; n < 30; n++) {
      const project = join(sandbox.projectsDir, `-home-user-k${n % 3}`);
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, `kill-${n}.jsonl`), body.repeat(1 + (n % 3)));
    }
    const sizes = await transcriptSizes(sandbox.projectsDir);
    const total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
    const first = await startDaemon(sandbox);
    await eventually(
      async () => (await ingestStatus(sandbox)).progress.bytesDone > 0,
      'the backfill to commit something',
      10_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = fileStates(sandbox);
    const committed = [...atKill.values()].reduce((sum, row) => sum + row.committed_offset, 0);
    const readAtKill = [...atKill.values()].reduce((sum, row) => sum + row.bytes_read, 0);
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(total);
    const second = await startDaemon(sandbox);
    await waitCaughtUp(sandbox, 60_000);
    const { stats } = await ingestStatus(sandbox);
    expect(stats.bytesReadThisRun).toBe(total - committed);
    // Bytes read but not committed when killed are the only ones ever read twice.
    expect(stats.bytesRead).toBe(total + (readAtKill - committed));
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, second);
  }, 120_000);

  it('picks up projects, sessions and sub-agent transcripts created while it runs', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop']);
    copyFixtureProjects(sandbox.projectsDir, ['subagent', 'interactive']);
    // Well before the 30 s sweep: this is the watcher's doing.
    await waitCaughtUp(sandbox, 15_000);
    expect((await ingestStatus(sandbox)).stats).toMatchObject({ files: 5, sessions: 3 });
    await expectCleanIndex(sandbox);
    await expectRestartReadsNothing(sandbox, daemon);
  });

  it('waits for a projects dir that does not exist yet', async () => {
    const sandbox = makeSandbox();
    rmSync(sandbox.projectsDir, { recursive: true });
    await startDaemon(sandbox);
    expect((await ingestStatus(sandbox)).progress).toMatchObject({ watching: false, filesTotal: 0 });
    copyFixtureProjects(sandbox.projectsDir, ['subagent']);
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
  });

  it('marks everything gone when the projects dir goes away, and takes it back when it returns', async () => {
    const { sandbox, daemon } = await startWithFixtures(['coding-loop', 'subagent']);
    const away = `${sandbox.projectsDir}.away`;
    renameSync(sandbox.projectsDir, away);
    await eventually(async () => {
      const rows = [...fileStates(sandbox).values()];
      return !(await ingestStatus(sandbox)).progress.watching && rows.every((row) => row.gone === 1);
    }, 'every file to be gone');
    renameSync(away, sandbox.projectsDir);
    await waitCaughtUp(sandbox);
    await expectCleanIndex(sandbox);
    // Same files, same inodes: nothing was read again.
    const { stats } = await ingestStatus(sandbox);
    expect(stats.bytesReadThisRun).toBe(stats.bytesRead);
    await expectRestartReadsNothing(sandbox, daemon);
  });
});
