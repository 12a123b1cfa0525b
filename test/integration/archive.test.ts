/**
 * The archive over a real daemon (issue 18): every transcript, sub-agent transcript and persisted
 * tool result archived (gzip, 0600), restored byte for byte after Claude Code's files are deleted
 * (never over a different file, never through a symlink), verified, pruned, and forgotten without
 * a trace in the state dir; a live transcript's appends flushed at shutdown; a torn append cut.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { appendPrompt, copyFixtureProjects } from '../helpers/ingest.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const outputs = manifest('big-outputs');
const subagent = manifest('subagent');
const loop = manifest('coding-loop');
/** Not --foreground: the daemon logs to <state>/memd.log, as when it runs on its own, so that forget's grep covers the log. */
const LOG_TO_FILE: string[] = [];

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The session's files as Claude Code keeps them: its transcript and everything under its folder. */
function sessionFiles(sandbox: Sandbox, m: ReturnType<typeof manifest>): string[] {
  const transcript = join(sandbox.projectsDir, m.transcript.replace(/^projects\//, ''));
  return [
    transcript,
    ...walk(join(dirname(transcript), m.sessionId)).filter(
      (path) => !path.includes(`${join(m.sessionId, 'session-memory')}`),
    ),
  ];
}

async function archiveCaughtUp(client: Client): Promise<boolean> {
  const { ingest, archive } = await client.daemonStatus();
  return (
    ingest.progress.state === 'live' &&
    ingest.progress.filesPending === 0 &&
    archive.state === 'live' &&
    archive.pendingBytes === 0 &&
    archive.files > 0
  );
}

describe('the archive over a daemon', () => {
  let sandbox: Sandbox;
  let client: Client;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['big-outputs', 'subagent', 'coding-loop']);
    daemon = await startDaemon(sandbox, LOG_TO_FILE);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => archiveCaughtUp(client), 'the archive to catch up');
    return () => client.close();
  });

  it('archives transcripts, sub-agent transcripts and tool results, owner-only, as gzip that zcat reads', async () => {
    const archiveDir = join(sandbox.stateDir, 'archive');
    for (const m of [outputs, subagent]) {
      for (const source of sessionFiles(sandbox, m)) {
        const project = relative(sandbox.projectsDir, source).split('/')[0] as string;
        const archived = join(
          archiveDir,
          project,
          m.sessionId,
          `${relative(join(sandbox.projectsDir, project), source)}.gz`,
        );
        expect(gunzipSync(readFileSync(archived)).equals(readFileSync(source)), archived).toBe(true);
        expect(statSync(archived).mode & 0o777).toBe(0o600);
      }
    }
    expect(walk(archiveDir).some((path) => path.includes('tool-results'))).toBe(true);
    expect(walk(archiveDir).some((path) => path.includes('subagents'))).toBe(true);
    expect(
      statSync(join(archiveDir, relative(sandbox.projectsDir, dirname(sessionFiles(sandbox, outputs)[0] as string))))
        .mode & 0o777,
    ).toBe(0o700);
    const { status, sessions } = await client.archiveList({});
    expect(status).toMatchObject({ enabled: true, state: 'live', reason: null, pendingBytes: 0 });
    expect(status.archiveBytes).toBeLessThan(status.sourceBytes);
    expect(sessions.map((session) => session.sessionId)).toEqual(
      expect.arrayContaining([outputs.sessionId, subagent.sessionId, loop.sessionId]),
    );
  });

  it('keeps a deleted session, shown as archived, and restores its files byte for byte for claude --resume', async () => {
    const files = sessionFiles(sandbox, subagent).concat(sessionFiles(sandbox, outputs));
    const before = new Map(files.map((path) => [path, sha(path)]));
    for (const m of [subagent, outputs]) {
      const transcript = join(sandbox.projectsDir, m.transcript.replace(/^projects\//, ''));
      rmSync(transcript);
      rmSync(join(dirname(transcript), m.sessionId), { recursive: true, force: true });
    }
    await eventually(
      async () => (await client.sessionsGet({ sessionId: subagent.sessionId })).gone,
      'the session to be gone',
    );
    expect(await client.sessionsGet({ sessionId: subagent.sessionId })).toMatchObject({ gone: true, archived: true });
    const listed = await runMemctl(sandbox, ['sessions', '--all']);
    expect(listed.stdout).toMatch(new RegExp(`${subagent.sessionId.slice(0, 8)}.*\\(archived\\)`));
    expect((await client.archiveList({ sessionId: subagent.sessionId })).sessions[0]).toMatchObject({
      transcriptGone: true,
      pruned: false,
    });

    const restored = await runMemctl(sandbox, ['archive', 'restore', subagent.sessionId.slice(0, 8)]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`claude --resume ${subagent.sessionId}`);
    const result = await client.archiveRestore({ sessionId: outputs.sessionId });
    expect(result.files.every((file) => file.action === 'restored')).toBe(true);
    for (const [path, hash] of before) expect(sha(path), path).toBe(hash);
    // Read again by ingest: the session is back, and a second restore finds everything in place.
    await eventually(
      async () => !(await client.sessionsGet({ sessionId: subagent.sessionId })).gone,
      'the session to be back',
    );
    const again = await client.archiveRestore({ sessionId: subagent.sessionId });
    expect(again.files.filter((file) => file.action !== 'present')).toEqual([]);
    await eventually(() => archiveCaughtUp(client), 'the archive to follow the restored files');
    expect((await client.archiveVerify({})).problems).toEqual([]);
  });

  it('never overwrites a different file, never restores through a symlink, and restores under --to', async () => {
    const transcript = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
    const original = readFileSync(transcript);
    const elsewhere = join(sandbox.root, 'elsewhere');
    const run = await runMemctl(sandbox, ['archive', 'restore', loop.sessionId, '--to', elsewhere]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(elsewhere, `${loop.sessionId}.jsonl`)).equals(original)).toBe(true);

    // A tool result (not a transcript: ingest leaves it alone) changed by someone else.
    const toolResult = sessionFiles(sandbox, outputs).find((path) => path.includes('tool-results')) as string;
    const kept = readFileSync(toolResult);
    writeFileSync(toolResult, 'someone else wrote this\n');
    const refused = await runMemctl(sandbox, ['archive', 'restore', outputs.sessionId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Conflict');
    expect(readFileSync(toolResult, 'utf8')).toBe('someone else wrote this\n');
    writeFileSync(toolResult, kept);

    const linked = join(sandbox.root, 'linked');
    mkdirSync(linked);
    symlinkSync(join(sandbox.root, 'outside'), join(linked, outputs.sessionId));
    await expect(client.archiveRestore({ sessionId: outputs.sessionId, to: linked })).rejects.toMatchObject({
      kind: 'PathRejected',
    });
    expect(existsSync(join(sandbox.root, 'outside'))).toBe(false);
  });

  it('verifies the archive, and names a damaged file', async () => {
    await eventually(() => archiveCaughtUp(client), 'the archive to catch up');
    const ok = await runMemctl(sandbox, ['archive', 'verify']);
    expect(ok.code, ok.stdout).toBe(0);
    const target = walk(join(sandbox.stateDir, 'archive')).find((path) =>
      path.endsWith(`${loop.sessionId}.jsonl.gz`),
    ) as string;
    const bytes = readFileSync(target);
    const damaged = Buffer.from(bytes);
    damaged[Math.floor(bytes.length / 2)] = (damaged[Math.floor(bytes.length / 2)] as number) ^ 0xff;
    writeFileSync(target, damaged);
    const bad = await runMemctl(sandbox, ['archive', 'verify', loop.sessionId]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(target);
    writeFileSync(target, bytes);
  });

  it("archives a live transcript's new lines at shutdown at the latest, and cuts a torn append at the next start", async () => {
    const transcript = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
    const updates: string[] = [];
    await client.on('session.updated', (session) => updates.push(session.sessionId));
    appendPrompt(transcript, loop.sessionId, 'archive this line too', '73000000-0000-4000-8000-000000000001');
    await eventually(() => updates.includes(loop.sessionId), 'session.updated');
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    const target = walk(join(sandbox.stateDir, 'archive')).find((path) =>
      path.endsWith(`${loop.sessionId}.jsonl.gz`),
    ) as string;
    expect(gunzipSync(readFileSync(target)).equals(readFileSync(transcript))).toBe(true);
    // A crash between an append and its book: garbage after the committed bytes.
    appendFileSync(target, Buffer.from('torn member'));
    daemon = await startDaemon(sandbox, LOG_TO_FILE);
    keepForFile(sandbox, daemon);
    client.close();
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => archiveCaughtUp(client), 'the archive to catch up after the restart');
    expect(gunzipSync(readFileSync(target)).equals(readFileSync(transcript))).toBe(true);
    expect((await client.archiveVerify({ sessionId: loop.sessionId })).problems).toEqual([]);
  });

  it('prunes archives of sessions last active before a span, and not twice', async () => {
    expect((await client.archivePrune({ olderThan: '3650d', dryRun: true })).sessions).toEqual([]);
    const dry = await client.archivePrune({ olderThan: '0d', dryRun: true });
    expect(dry.sessions.length).toBeGreaterThan(0);
    expect((await client.archiveList({})).sessions.every((session) => !session.pruned)).toBe(true);
    await expect(client.archivePrune({ olderThan: 'last year' })).rejects.toMatchObject({ code: -32602 });
  });

  it('forgets a session everywhere memd keeps it: nothing of its text is left in the state dir', async () => {
    const transcript = join(sandbox.projectsDir, outputs.transcript.replace(/^projects\//, ''));
    const updates: string[] = [];
    await client.on('session.updated', (session) => updates.push(session.sessionId));
    appendPrompt(
      transcript,
      outputs.sessionId,
      'the quixotrumpet password is very private',
      '73000000-0000-4000-8000-000000000002',
    );
    await eventually(() => updates.includes(outputs.sessionId), 'session.updated');
    expect((await client.searchQuery({ query: 'quixotrumpet' })).hits).toHaveLength(1);
    await client.daemonShutdown({ reason: 'flush the archive' });
    await daemon.exited;
    daemon = await startDaemon(sandbox, LOG_TO_FILE);
    keepForFile(sandbox, daemon);
    client.close();
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => archiveCaughtUp(client), 'the archive to catch up');
    const holds = (needle: string) =>
      walk(sandbox.stateDir).filter(
        (path) =>
          readFileSync(path).includes(needle) ||
          (path.endsWith('.gz') && gunzipSync(readFileSync(path)).includes(needle)),
      );
    expect(holds('quixotrumpet').length).toBeGreaterThan(0);
    expect(existsSync(join(sandbox.stateDir, 'memd.log'))).toBe(true);

    await expect(client.archiveForget({ sessionId: outputs.sessionId })).rejects.toMatchObject({ kind: 'Conflict' });
    const forgot = await runMemctl(sandbox, ['archive', 'forget', outputs.sessionId, '--delete-transcripts', '--json']);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(JSON.parse(forgot.stdout).removed).toMatchObject({ transcripts: 1 });
    expect(existsSync(transcript)).toBe(false);
    expect(holds('quixotrumpet')).toEqual([]);
    expect(holds(outputs.sessionId)).toEqual([]);
    expect((await client.searchQuery({ query: 'quixotrumpet' })).hits).toEqual([]);
    await expect(client.sessionsGet({ sessionId: outputs.sessionId })).rejects.toMatchObject({ kind: 'NotFound' });
    expect((await client.archiveList({ sessionId: outputs.sessionId })).sessions).toEqual([]);
  });
});

describe('forget after an extraction of a deleted transcript (issue 28 item 7)', () => {
  it('drops the job instead of retrying it, and leaves the id in no file of the state dir, memd.log included', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox, LOG_TO_FILE);
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => archiveCaughtUp(client), 'the archive to catch up');
      const logPath = join(sandbox.stateDir, 'memd.log');
      // Claude Code's transcript goes while an extraction of it is asked for.
      rmSync(join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, '')));
      rmSync(join(sandbox.projectsDir, dirname(loop.transcript.replace(/^projects\//, '')), loop.sessionId), {
        recursive: true,
        force: true,
      });
      const extracted = client.memoryExtract({ sessionId: loop.sessionId }).then(
        () => null,
        (error: unknown) => error,
      );
      // Dropped for good, not deferred for a retry that would log the session again and again.
      await eventually(async () => {
        const { extraction } = await client.daemonStatus();
        return (
          extraction.running.length === 0 &&
          extraction.jobs.failed === 1 &&
          extraction.jobs.deferred === 0 &&
          extraction.jobs.queued === 0
        );
      }, 'the job to be dropped');
      expect(await extracted).toMatchObject({ kind: 'TranscriptGone' });
      expect(readFileSync(logPath, 'utf8')).toContain(loop.sessionId);

      const forgot = await runMemctl(sandbox, ['archive', 'forget', loop.sessionId, '--delete-transcripts', '--json']);
      expect(forgot.code, forgot.stderr).toBe(0);
      const holds = walk(sandbox.stateDir).filter(
        (path) =>
          readFileSync(path).includes(loop.sessionId) ||
          (path.endsWith('.gz') && gunzipSync(readFileSync(path)).includes(loop.sessionId)),
      );
      expect(holds).toEqual([]);
      expect(JSON.parse(forgot.stdout).removed.logLines).toBeGreaterThan(0);
      // The log is rewritten, not emptied, and memd goes on writing to it.
      expect(readFileSync(logPath, 'utf8')).toContain('"msg":"ready"');
      await client.daemonShutdown({ reason: 'the log after forget' });
      await daemon.exited;
      const after = readFileSync(logPath, 'utf8');
      expect(after).not.toContain(loop.sessionId);
      expect(
        after
          .split('\n')
          .filter((line) => line !== '')
          .every((line) => JSON.parse(line) !== null),
      ).toBe(true);
    } finally {
      client.close();
    }
  });
});
