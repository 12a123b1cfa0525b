/**
 * Issue 13 items 4 (transcripts) and 16: what sits in the projects dir is not trusted either. A
 * FIFO where a transcript should be must not block ingest; a symlink that leads out of the
 * projects dir is not followed (one inside it is).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionSummaryPath } from '../../shared/paths.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, projectFolder, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

function session(sessionId: string, cwd: string): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.38' });
  writer.prompt('Tidy the build');
  writer.toolRound('Bash', { command: 'make' }, 'ok', growingUsage(1));
  return writer;
}

const CWD = '/home/dev/build';
const id = (n: number) => `7a000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('hostile files in the projects dir', () => {
  it('follows a symlink inside the projects dir, never one that leads out of it', async () => {
    const sandbox = makeSandbox();
    const outside = join(sandbox.root, 'elsewhere');
    mkdirSync(outside);
    writeTranscript(join(outside, `${id(1)}.jsonl`), session(id(1), CWD));
    writeTranscript(mainPath(sandbox.projectsDir, CWD, id(2)), session(id(2), CWD));
    const folder = join(sandbox.projectsDir, projectFolder(CWD));
    symlinkSync(join(outside, `${id(1)}.jsonl`), join(folder, `${id(1)}.jsonl`));
    mkdirSync(join(sandbox.projectsDir, 'archive'));
    writeTranscript(join(sandbox.projectsDir, 'archive', 'kept.jsonl.txt'), session(id(3), CWD));
    symlinkSync(join(sandbox.projectsDir, 'archive', 'kept.jsonl.txt'), join(folder, `${id(3)}.jsonl`));
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => (await client.sessionsList()).sessions.some((s) => s.sessionId === id(3)),
        'the inside link to be read',
      );
      await eventually(
        async () => (await client.daemonStatus()).ingest.progress.filesPending === 0,
        'ingest to settle',
      );
      const ids = (await client.sessionsList()).sessions.map((s) => s.sessionId).sort();
      expect(ids).toEqual([id(2), id(3)]);
    } finally {
      client.close();
    }
  });

  it('a FIFO where a transcript should be blocks nothing, and the daemon still stops', async () => {
    const sandbox = makeSandbox();
    const swapped = mainPath(sandbox.projectsDir, CWD, id(4));
    writeTranscript(swapped, session(id(4), CWD));
    const daemon = await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => (await client.sessionsList()).sessions.some((s) => s.sessionId === id(4)),
        'the transcript to be read',
      );
      // Swapped for a FIFO while memd watches it; then another session starts.
      rmSync(swapped);
      execFileSync('mkfifo', [swapped]);
      writeTranscript(mainPath(sandbox.projectsDir, CWD, id(5)), session(id(5), CWD));
      await eventually(
        async () => (await client.sessionsList()).sessions.some((s) => s.sessionId === id(5)),
        'the next transcript to be read past the FIFO',
      );
      const started = Date.now();
      await client.daemonStatus();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      client.close();
    }
    const stop = await runMemctl(sandbox, ['stop']);
    expect(stop.code).toBe(0);
    await eventually(() => daemon.child.exitCode !== null || daemon.child.signalCode !== null, 'the daemon to exit');
  });

  it('a transcript swapped for a FIFO after ingest: methods that read it back answer InvalidTranscript at once', async () => {
    const sandbox = makeSandbox();
    const swapped = mainPath(sandbox.projectsDir, CWD, id(6));
    writeTranscript(swapped, session(id(6), CWD));
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => ((await client.sessionsList()).sessions.find((s) => s.sessionId === id(6))?.entries ?? 0) > 0,
        'the transcript to be read',
      );
      rmSync(swapped);
      execFileSync('mkfifo', [swapped]);
      // Before the fix the daemon's main thread blocked in open() until a writer came.
      const error = await client.compactMicro({ sessionId: id(6) }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 1007, kind: 'InvalidTranscript' });
      expect((error as Error).message).toContain('no longer a regular file');
      expect((await client.daemonVersion()).name).toBe('memd');
    } finally {
      client.close();
    }
  });

  it('a FIFO where memd reads session memory answers at once and holds no thread', async () => {
    const sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, id(7)), session(id(7), CWD));
    const summary = sessionSummaryPath(sandbox.projectsDir, projectFolder(CWD), id(7));
    mkdirSync(dirname(summary), { recursive: true });
    execFileSync('mkfifo', [summary]);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => ((await client.sessionsList()).sessions.find((s) => s.sessionId === id(7))?.entries ?? 0) > 0,
        'the transcript to be read',
      );
      // More calls than libuv has threads (4): before the fix each one held a thread for good.
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => client.memorySummary({ sessionId: id(7) }).catch((caught: unknown) => caught)),
      );
      for (const answer of answers) expect(answer).toMatchObject({ code: 1004, kind: 'NotAFile' });
      expect((answers[0] as Error).message).toContain(summary);
      expect((await client.daemonStatus()).pid).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });

  it("the hook's own fallback does not hang on a FIFO at the hook's transcript path", async () => {
    const sandbox = makeSandbox();
    const cwd = join(sandbox.root, 'work');
    mkdirSync(cwd);
    const fifo = join(sandbox.root, 'transcript.jsonl');
    execFileSync('mkfifo', [fifo]);
    const input = JSON.stringify({
      session_id: id(8),
      transcript_path: fifo,
      cwd,
      hook_event_name: 'PreCompact',
      trigger: 'auto',
      custom_instructions: '',
    });
    // No daemon: the hook writes the partial handoff itself, with what it could read of the transcript.
    const run = await runMemctl(sandbox, ['--no-autostart', 'hook', 'pre-compact'], {}, input);
    expect(run.code).toBe(0);
    expect(readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8')).toContain('not a regular file');
  });
});
