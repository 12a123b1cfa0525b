/**
 * Session memory for sessions the backfill read (issue 12 item 2, daemon/extraction/backfill.ts) over
 * a real daemon: after a restart, a session that crossed the extraction threshold while memd was
 * down gets its summary.md, so compact.auto can use it; never while its memory lock is held.
 */
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import {
  backgroundTaskRounds,
  backgroundTaskSession,
  mainPath,
  projectFolder,
  TranscriptWriter,
  writeTranscript,
} from '../helpers/real-shapes.js';
import {
  BACKFILL_EXTRACTION_DEFAULT,
  eventually,
  makeSandbox,
  ROOT,
  spawnTracked,
  startDaemon,
} from '../helpers/sandbox.js';

const CWD = '/home/dev/poller';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('session memory after a restart', () => {
  it('extracts a session that crossed the extraction threshold while memd was down, so compact.auto uses it', async () => {
    const sandbox = makeSandbox();
    const sessionId = '5e551071-0000-4000-8000-0000000000a3';
    const path = mainPath(sandbox.projectsDir, CWD, sessionId);
    const writer = new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.38', startMs: Date.now() - 60 * 60_000 });
    writer.prompt('Make the SessionLive tests pass, then move the poller into its own module');
    writer.response([{ type: 'text', text: 'Looking at the poller first.' }], {
      input: 3,
      cacheWrite: 2_000,
      cacheRead: 3_000,
      output: 120,
    });
    writeTranscript(path, writer);
    const written = writer.lines.length;

    const first = await startDaemon(sandbox, undefined, BACKFILL_EXTRACTION_DEFAULT);
    let client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      expect((await client.memorySummary({ sessionId })).text).toBeNull();
    } finally {
      client.close();
    }
    first.child.kill('SIGTERM');
    await first.exited;

    // Claude Code goes on while memd is down: the context grows past 10,000 tokens, far enough past
    // that session memory (which keeps at least 10,000 tokens) makes it smaller (issue 28: a
    // compaction that would not is refused or falls back to the summary).
    backgroundTaskRounds(writer, CWD, 0, 40);
    appendFileSync(
      path,
      writer.lines
        .slice(written)
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );

    await startDaemon(sandbox, undefined, BACKFILL_EXTRACTION_DEFAULT);
    client = createClient({ env: sandbox.env, autostart: false });
    try {
      // Its record, not only its file: the file is written first.
      await eventually(
        async () => (await client.memorySummary({ sessionId })).lastUuid !== null,
        'the backfill extraction to write summary.md',
        20_000,
      );
      const memory = await client.memorySummary({ sessionId });
      expect(existsSync(memory.path)).toBe(true);
      expect(memory).toMatchObject({ summarizer: 'offline', lastUuid: expect.any(String) });
      expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ done: 1, failed: 0 });
      const result = await client.compactAuto({ sessionId, force: true });
      console.log(`session memory after a restart, 40 rounds: ${result.preTokens} → ${result.postTokens} tokens`);
      expect(result.method).toBe('session-memory');
    } finally {
      client.close();
    }
  });

  it('never extracts a backfilled session while another process holds its memory lock', async () => {
    const sandbox = makeSandbox();
    const sessionId = '5e551071-0000-4000-8000-0000000000a4';
    writeTranscript(
      mainPath(sandbox.projectsDir, CWD, sessionId),
      backgroundTaskSession(sessionId, CWD, 12, { startMs: Date.now() - 60 * 60_000 }),
    );
    const dir = join(sandbox.projectsDir, projectFolder(CWD), sessionId, 'session-memory');
    mkdirSync(dir, { recursive: true });
    const holder = spawnTracked(
      process.execPath,
      [join(ROOT, 'test/helpers/memory-lock-child.mjs'), 'hold', dir, '10000'],
      sandbox.env,
    );
    await eventually(() => holder.output().includes('locked'), 'the other process to take the lock');
    const daemon = await startDaemon(sandbox, undefined, BACKFILL_EXTRACTION_DEFAULT);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        () => daemon.output().includes('backfill extraction skipped'),
        'the backfill job to see the lock',
      );
      expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ done: 1, running: 0, queued: 0 });
      expect(existsSync(join(dir, 'summary.md'))).toBe(false);
      expect((await client.memorySummary({ sessionId })).text).toBeNull();
    } finally {
      client.close();
    }
  });
});
