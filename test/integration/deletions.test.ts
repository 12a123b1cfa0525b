/**
 * Deletions on the record over a real daemon (issue 31): Claude Code's cleanup deleting one session
 * and then a burst, `claude project purge` removing a project folder, a live session deleted
 * before the archive took it (it batches a live transcript's bytes), and all of it with the archive
 * off. Each shows in `archive.deleted`, `daemon.status`, `memctl archive deleted`, `memctl status`
 * and `memctl doctor`. The transcripts are written here, in 2.1.x's shape.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { ArchiveDeletedResult, DeletedSession } from '../../shared/protocol/archive.js';
import { createClient } from '../helpers/client.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const OLD = '2026-01-05T10:00:00.000Z';
const ALONE = 'a0000000-0000-4000-8000-000000000001';
const BURST = [
  'b0000000-0000-4000-8000-000000000002',
  'b0000000-0000-4000-8000-000000000003',
  'b0000000-0000-4000-8000-000000000004',
];
const PURGED = ['c0000000-0000-4000-8000-000000000005', 'c0000000-0000-4000-8000-000000000006'];
const LIVE = 'd0000000-0000-4000-8000-000000000007';
const STAYS = 'e0000000-0000-4000-8000-000000000008';

const PROJECT_ONE = '-home-u-one';
const PROJECT_TWO = '-home-u-two';
const PROJECT_PURGED = '-home-u-purged';
const PROJECT_STAYS = '-home-u-stays';

/** A main transcript of two prompts and their answers, as Claude Code 2.1.x writes it. */
function writeSession(projectsDir: string, project: string, sessionId: string, at: string): string {
  const dir = join(projectsDir, project);
  mkdirSync(dir, { recursive: true });
  const start = Date.parse(at);
  const lines: unknown[] = [];
  let parent: string | null = null;
  for (let turn = 0; turn < 2; turn++) {
    const user = `${sessionId.slice(0, 8)}-0000-4000-8000-00000000010${turn}`;
    const assistant = `${sessionId.slice(0, 8)}-0000-4000-8000-00000000020${turn}`;
    const common = {
      isSidechain: false,
      sessionId,
      cwd: `/home/u/${project}`,
      version: '2.1.197',
      userType: 'external',
    };
    lines.push({
      ...common,
      parentUuid: parent,
      type: 'user',
      uuid: user,
      timestamp: new Date(start + turn * 60_000).toISOString(),
      message: { role: 'user', content: `prompt ${turn} of ${sessionId}` },
    });
    lines.push({
      ...common,
      parentUuid: user,
      type: 'assistant',
      uuid: assistant,
      requestId: `req_${sessionId.slice(0, 8)}_${turn}`,
      timestamp: new Date(start + turn * 60_000 + 5_000).toISOString(),
      message: {
        id: `msg_${sessionId.slice(0, 8)}_${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: `answer ${turn} of ${sessionId}` }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 100, cache_read_input_tokens: 0 },
      },
    });
    parent = assistant;
  }
  const path = join(dir, `${sessionId}.jsonl`);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}

const transcript = (sandbox: Sandbox, project: string, sessionId: string) =>
  join(sandbox.projectsDir, project, `${sessionId}.jsonl`);

/** The deleted sessions once every one named is on the record and checked. */
async function recorded(client: Client, sessionIds: readonly string[]): Promise<Map<string, DeletedSession>> {
  let result: ArchiveDeletedResult | null = null;
  await eventually(
    async () => {
      result = await client.archiveDeleted({});
      const seen = new Set(result.sessions.map((session) => session.sessionId));
      return sessionIds.every((id) => seen.has(id)) && result.sessions.every((s) => s.state !== 'checking');
    },
    `the deletion of ${sessionIds.join(', ')} on the record`,
  );
  return new Map((result as ArchiveDeletedResult | null)?.sessions.map((session) => [session.sessionId, session]));
}

describe('deletions on the record, archive on', () => {
  let sandbox: Sandbox;
  let client: Client;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeSession(sandbox.projectsDir, PROJECT_ONE, ALONE, OLD);
    for (const id of BURST) writeSession(sandbox.projectsDir, PROJECT_TWO, id, OLD);
    for (const id of PURGED) writeSession(sandbox.projectsDir, PROJECT_PURGED, id, OLD);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest, archive } = await client.daemonStatus();
      return ingest.progress.state === 'live' && archive.state === 'live' && archive.sessions === 6;
    }, 'the archive to hold the six sessions');
  });
  afterAll(() => client.close());

  it('says nothing was deleted before anything was', async () => {
    expect(await client.archiveDeleted({})).toEqual({ events: [], sessions: [], truncated: false });
    expect((await client.daemonStatus()).deletions).toEqual({
      sessions: 0,
      files: 0,
      bytes: 0,
      notHeld: 0,
      checking: 0,
      last: null,
    });
    expect((await runMemctl(sandbox, ['status'])).stdout).not.toContain('deleted');
  });

  it('records one session Claude Code deleted, kept and verified', async () => {
    const path = transcript(sandbox, PROJECT_ONE, ALONE);
    const { size } = statSync(path);
    rmSync(path);
    const sessions = await recorded(client, [ALONE]);
    expect(sessions.get(ALONE)).toMatchObject({
      project: PROJECT_ONE,
      files: 1,
      bytes: size,
      heldBytes: size,
      state: 'kept',
      problem: null,
    });
    const status = await runMemctl(sandbox, ['status']);
    expect(status.stdout).toMatch(/Claude Code deleted 1 session on [A-Z][a-z]{2} \d{1,2}; kept, verified/);
  });

  it('records a burst and a purged project folder as one event, all kept', async () => {
    for (const id of BURST) rmSync(transcript(sandbox, PROJECT_TWO, id));
    rmSync(join(sandbox.projectsDir, PROJECT_PURGED), { recursive: true });
    const sessions = await recorded(client, [ALONE, ...BURST, ...PURGED]);
    for (const id of [...BURST, ...PURGED]) expect(sessions.get(id)?.state, id).toBe('kept');
    const result = await client.archiveDeleted({});
    // Minutes apart at most: one burst.
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({ sessions: 6, files: 6, kept: 6, notHeld: 0, checking: 0 });
    expect(new Set(result.events[0]?.projects)).toEqual(new Set([PROJECT_ONE, PROJECT_TWO, PROJECT_PURGED]));
    expect((await client.daemonStatus()).deletions).toMatchObject({ sessions: 6, notHeld: 0 });
    expect((await runMemctl(sandbox, ['status'])).stdout).toMatch(
      /Claude Code deleted 6 sessions on .*; all 6 kept, verified/,
    );
    const doctor = await runMemctl(sandbox, ['doctor', '--json']);
    const check = (
      JSON.parse(doctor.stdout) as { checks: { label: string; ok: unknown; detail: string }[] }
    ).checks.find((c) => c.label === 'deleted');
    expect(check).toMatchObject({ ok: true });
    expect(check?.detail).toContain('memd holds them all, verified');
  });

  it('records a live session deleted before the archive took its bytes as not held', async () => {
    const path = writeSession(sandbox.projectsDir, PROJECT_ONE, LIVE, new Date().toISOString());
    await eventually(async () => {
      const listed = await client.sessionsList({ limit: 50 });
      return listed.sessions.some((session) => session.sessionId === LIVE);
    }, 'the live session indexed');
    rmSync(path);
    const sessions = await recorded(client, [LIVE]);
    expect(sessions.get(LIVE)).toMatchObject({
      state: 'lost',
      heldBytes: 0,
      problem: 'it went before memd archived it',
    });
    const list = await runMemctl(sandbox, ['archive', 'deleted']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/Claude Code deleted 7 sessions on .*; 6 kept, verified; 1 not held by memd/);
    expect(list.stdout).toContain(`${LIVE}  `);
    expect(list.stdout).toContain('not held (it went before memd archived it)');
    const json = JSON.parse(
      (await runMemctl(sandbox, ['archive', 'deleted', '--json', '--since', '1h'])).stdout,
    ) as ArchiveDeletedResult;
    expect(json.sessions).toHaveLength(7);
    expect((await runMemctl(sandbox, ['status'])).stdout).toContain('(memctl archive deleted)');
    const doctor = await runMemctl(sandbox, ['doctor']);
    expect(doctor.stdout).toMatch(
      /warn deleted +Claude Code deleted 7 sessions in 30d; memd did not hold 1 of them whole/,
    );
  });

  it('lists only what went since a time, and the archive restores a kept session', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await client.archiveDeleted({ since: future })).sessions).toEqual([]);
    expect((await client.archiveDeleted({ limit: 2 })).truncated).toBe(true);
    await client.archiveRestore({ sessionId: ALONE });
    // Restored, it stays on the record: the record is of what Claude Code deleted.
    expect((await client.archiveDeleted({})).sessions.some((session) => session.sessionId === ALONE)).toBe(true);
  });

  it('forgets the record of a session forgotten', async () => {
    expect((await client.archiveDeleted({})).sessions.some((session) => session.sessionId === BURST[0])).toBe(true);
    await client.archiveForget({ sessionId: BURST[0] as string });
    expect((await client.archiveDeleted({})).sessions.some((session) => session.sessionId === BURST[0])).toBe(false);
  });
});

describe('deletions on the record, archive off', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeSession(sandbox.projectsDir, PROJECT_ONE, ALONE, OLD);
    for (const id of BURST) writeSession(sandbox.projectsDir, PROJECT_TWO, id, OLD);
    writeSession(sandbox.projectsDir, PROJECT_STAYS, STAYS, OLD);
    const daemon = await startDaemon(sandbox, undefined, { MEMD_ARCHIVE: 'off' });
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0;
    }, 'the backfill');
  });
  afterAll(() => client.close());

  it('records every deletion as not held, and warns', async () => {
    rmSync(transcript(sandbox, PROJECT_ONE, ALONE));
    rmSync(join(sandbox.projectsDir, PROJECT_TWO), { recursive: true });
    const sessions = await recorded(client, [ALONE, ...BURST]);
    for (const id of [ALONE, ...BURST])
      expect(sessions.get(id), id).toMatchObject({ state: 'lost', heldBytes: 0, problem: 'the archive is off' });
    expect((await client.daemonStatus()).deletions).toMatchObject({ sessions: 4, notHeld: 4 });
    expect((await runMemctl(sandbox, ['status'])).stdout).toMatch(
      /Claude Code deleted 4 sessions on .*; 4 not held by memd \(memctl archive deleted\)/,
    );
    const doctor = await runMemctl(sandbox, ['doctor']);
    expect(doctor.stdout).toContain('memd did not hold 4 of them whole');
  });

  it("warns in the status line of a session still there, from sessions.get's answer", async () => {
    expect((await client.sessionsGet({ sessionId: STAYS })).deletedNotHeld).toBe(4);
    const input = JSON.stringify({
      session_id: STAYS,
      transcript_path: transcript(sandbox, PROJECT_STAYS, STAYS),
      model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
      version: '2.1.197',
    });
    const wide = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, input);
    expect(wide).toMatchObject({ code: 0, stderr: '' });
    expect(wide.stdout).toMatch(/ · 4 deleted, not kept\n$/);
    const narrow = await runMemctl(sandbox, ['statusline'], { COLUMNS: '40' }, input);
    expect(narrow.stdout).not.toContain('deleted');
  });
});

describe('deletions while memd was not running', () => {
  it('are recorded at the next start, kept when the archive held them', async () => {
    const sandbox = makeSandbox();
    writeSession(sandbox.projectsDir, PROJECT_ONE, ALONE, OLD);
    writeSession(sandbox.projectsDir, PROJECT_TWO, STAYS, OLD);
    const first = await startDaemon(sandbox);
    keepForFile(sandbox, first);
    let client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { archive } = await client.daemonStatus();
      return archive.state === 'live' && archive.sessions === 2 && archive.pendingBytes === 0;
    }, 'the archive to hold both sessions');
    await client.daemonShutdown({ reason: 'test' });
    client.close();
    await first.exited;
    rmSync(transcript(sandbox, PROJECT_ONE, ALONE));
    const second = await startDaemon(sandbox);
    keepForFile(sandbox, second);
    client = createClient({ env: sandbox.env, autostart: false });
    try {
      const sessions = await recorded(client, [ALONE]);
      expect(sessions.get(ALONE)).toMatchObject({ state: 'kept', files: 1 });
      expect([...sessions.keys()]).toEqual([ALONE]);
    } finally {
      client.close();
    }
  });
});
