/**
 * Issue 13 item 9: the transcript watcher recovers after the projects dir was briefly unreadable
 * or taken away, and says what state it is in meanwhile. Before, a projects dir that was chmod 000
 * for a moment left chokidar without its watches for good while status said `watching: true`, and
 * changes arrived only with the 30 s sweep. Here the sweep runs every 10 min, so a change ingested
 * within seconds proves that the watcher was re-armed.
 */

import { chmodSync, chownSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { DaemonStatus } from '../../shared/protocol/daemon.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import {
  daemonStatus,
  handToNobody,
  logLines,
  runMemctlAsNobody,
  startDaemonAsNobody,
} from '../helpers/unprivileged.js';

const CWD = '/home/dev/api';
const id = (n: number) => `9c000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Far beyond every deadline below: only the watcher can bring a change in time. */
const LONG_SWEEP = { MEMD_INGEST_SWEEP_MS: '600000' };
/** A change reaches the index within this once the watcher is back (events take milliseconds). */
const EVENT_DEADLINE_MS = 5_000;

function session(sessionId: string): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.38' });
  writer.prompt('Add the health endpoint');
  writer.toolRound('Bash', { command: 'npm test' }, 'ok', growingUsage(1));
  return writer;
}

function committed(sandbox: Sandbox, path: string): number {
  const db = new Database(sandbox.dbPath, { readonly: true });
  try {
    const row = db.prepare('SELECT committed_offset AS offset FROM files WHERE path = ?').get(path) as
      | { offset: number }
      | undefined;
    return row?.offset ?? -1;
  } finally {
    db.close();
  }
}

const watcherOf = async (sandbox: Sandbox) => (await daemonStatus<DaemonStatus>(sandbox)).ingest;

describe('the transcript watcher recovers', () => {
  it('after the projects dir was unreadable: degraded meanwhile, re-armed once readable, and changes arrive by event again', async () => {
    const sandbox = makeSandbox();
    const path = mainPath(sandbox.projectsDir, CWD, id(1));
    const writer = session(id(1));
    writeTranscript(path, writer);
    handToNobody(sandbox);
    const daemon = await startDaemonAsNobody(sandbox, LONG_SWEEP);
    await eventually(() => committed(sandbox, path) === statSync(path).size, 'the transcript to be ingested');
    expect((await watcherOf(sandbox)).watcher).toMatchObject({ state: 'watching', reason: null, rearms: 0 });

    chmodSync(sandbox.projectsDir, 0o000);
    await eventually(
      async () => (await watcherOf(sandbox)).watcher?.state === 'degraded',
      'the watcher to report degraded',
    );
    const degraded = await watcherOf(sandbox);
    expect(degraded.watcher).toMatchObject({
      state: 'degraded',
      reason: expect.stringContaining('unreadable (EACCES)'),
      since: expect.any(String),
    });
    expect(degraded.progress.watching).toBe(false);
    expect((await runMemctlAsNobody(sandbox, ['status'])).stdout).toMatch(
      /watcher degraded since \d\d:\d\d:\d\d: the projects dir is unreadable \(EACCES\)/,
    );

    chmodSync(sandbox.projectsDir, 0o755);
    await eventually(
      async () => (await watcherOf(sandbox)).watcher?.state === 'watching',
      'the watcher to be re-armed',
    );
    const rearmed = await watcherOf(sandbox);
    expect(rearmed.watcher.rearms).toBe(1);
    expect(rearmed.progress.watching).toBe(true);
    writer.toolRound('Read', { file_path: `${CWD}/src/health.ts` }, 'export const ok = true;\n', growingUsage(2));
    writeTranscript(path, writer);
    await eventually(
      () => committed(sandbox, path) === statSync(path).size,
      'the change to arrive by event',
      EVENT_DEADLINE_MS,
    );
    expect((await runMemctlAsNobody(sandbox, ['status'])).stdout).not.toContain('degraded');
    // One line per change of state: degraded, then back.
    const states = logLines(daemon).filter((line) => /^watcher degraded|^watching transcripts again/.test(line.msg));
    expect(states.map((line) => line.msg)).toEqual([
      'watcher degraded; changes may be missed until it is re-armed',
      'watching transcripts again',
    ]);
  }, 30_000);

  it('while a project dir cannot be read: degraded with one warning (chokidar failed), re-armed on a backoff, and watching once it can be', async () => {
    const sandbox = makeSandbox();
    const locked = join(sandbox.projectsDir, '-home-dev-locked');
    mkdirSync(locked);
    handToNobody(sandbox);
    // Root's dir, mode 000: chokidar as nobody cannot watch it.
    chownSync(locked, 0, 0);
    chmodSync(locked, 0o000);
    const daemon = await startDaemonAsNobody(sandbox, LONG_SWEEP);
    await eventually(
      async () => (await watcherOf(sandbox)).watcher?.state === 'degraded',
      'the watcher to report degraded',
    );
    expect((await watcherOf(sandbox)).watcher.reason).toMatch(/the watcher failed: EACCES/);
    // Re-arms (1 s, 2 s, ...) that fail the same way log nothing more.
    await eventually(async () => (await watcherOf(sandbox)).watcher.rearms >= 2, 'two re-arms');
    expect(
      logLines(daemon)
        .filter((line) => line.level === 'warn')
        .map((line) => line.msg),
    ).toEqual(['watcher degraded; changes may be missed until it is re-armed']);
    chmodSync(locked, 0o755);
    await eventually(
      async () => (await watcherOf(sandbox)).watcher?.state === 'watching',
      'the watcher to be healthy again',
      15_000,
    );
    const path = join(locked, `${id(3)}.jsonl`);
    writeTranscript(path, session(id(3)));
    await eventually(
      () => committed(sandbox, path) === statSync(path).size,
      'a new transcript in it to arrive by event',
      EVENT_DEADLINE_MS,
    );
  }, 40_000);

  it('after the projects dir was moved away and back: missing meanwhile, and watching again', async () => {
    const sandbox = makeSandbox();
    const path = mainPath(sandbox.projectsDir, CWD, id(2));
    const writer = session(id(2));
    writeTranscript(path, writer);
    await startDaemon(sandbox, undefined, LONG_SWEEP);
    await eventually(() => committed(sandbox, path) === statSync(path).size, 'the transcript to be ingested');
    renameSync(sandbox.projectsDir, `${sandbox.projectsDir}.away`);
    await eventually(
      async () => (await watcherOf(sandbox)).watcher?.state === 'missing',
      'the watcher to report the dir missing',
    );
    expect((await watcherOf(sandbox)).progress.watching).toBe(false);
    renameSync(`${sandbox.projectsDir}.away`, sandbox.projectsDir);
    await eventually(async () => (await watcherOf(sandbox)).watcher?.state === 'watching', 'the watcher to be back');
    writer.toolRound('Bash', { command: 'git status' }, 'clean', growingUsage(3));
    writeTranscript(path, writer);
    await eventually(
      () => committed(sandbox, path) === statSync(path).size,
      'the change to arrive by event',
      EVENT_DEADLINE_MS,
    );
  }, 30_000);
});
