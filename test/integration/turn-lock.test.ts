/**
 * The main agent's turn holds the session-memory lock (issue 16, DESIGN.md §6), through the hooks
 * Claude Code runs as separate processes: UserPromptSubmit → `memctl hook turn-start`, Stop →
 * `memctl hook turn-end`. Extraction waits for the turn, runs at its end, and a turn that never
 * sent its Stop lets go once its transcript has been quiet for the TTL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { TURN_OWNER } from '../../client/memctl/quick/turn.js';
import { sessionSummaryPath } from '../../shared/paths.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { appendPrompt, copyFixtureProjects, FIXTURES } from '../helpers/ingest.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');

interface Setup {
  sandbox: Sandbox;
  client: Client;
  transcript: string;
  summaryPath: string;
  hookInput: string;
  stopInput: string;
}

async function setUp(): Promise<Setup> {
  const sandbox = makeSandbox();
  copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
  await startDaemon(sandbox);
  const client = createClient({ env: sandbox.env, autostart: false });
  await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the fixture to be indexed');
  const transcript = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
  const project = loop.transcript.split('/')[1] as string;
  return {
    sandbox,
    client,
    transcript,
    summaryPath: sessionSummaryPath(sandbox.projectsDir, project, loop.sessionId),
    hookInput: recordedHookInput('01-UserPromptSubmit.json', transcript),
    stopInput: recordedHookInput('02-Stop.json', transcript),
  };
}

/** What Claude Code 2.1.197 gave the hook on stdin (recorded with the fixture), its transcript path moved into the sandbox. */
function recordedHookInput(name: string, transcript: string): string {
  const recorded = JSON.parse(readFileSync(join(FIXTURES, 'coding-loop', 'hooks', name), 'utf8')) as {
    stdin: Record<string, unknown>;
  };
  return JSON.stringify({ ...recorded.stdin, transcript_path: transcript });
}

async function lockOf(client: Client) {
  return (await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.lock;
}

describe('a Claude Code turn holds the session memory', () => {
  it('defers extraction while the turn runs (renewed by its transcript lines) and runs it when the turn ends', async () => {
    const { sandbox, client, transcript, summaryPath, hookInput, stopInput } = await setUp();
    const start = await runMemctl(sandbox, ['hook', 'turn-start'], {}, hookInput);
    expect(start).toEqual({ code: 0, stdout: '', stderr: '' });
    const held = await lockOf(client);
    expect(held).toMatchObject({ owner: TURN_OWNER });

    // Another process asks for an extraction during the turn: told at once, nothing written.
    const asked = await runMemctl(sandbox, ['memory', 'extract', loop.sessionId]);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain(`locked by ${TURN_OWNER}`);
    // The agent keeps working: its lines renew the hold and trigger extraction, which waits.
    appendPrompt(transcript, loop.sessionId, 'a prompt during the turn', '70000000-0000-4000-8000-000000000001');
    await eventually(
      async () => ((await lockOf(client))?.expiresAt ?? 0) > (held?.expiresAt ?? 0),
      'the hold to be renewed by the new line',
    );
    const status = await client.daemonStatus();
    expect(status.extraction.jobs).toMatchObject({ deferred: 1, done: 0 });
    expect(existsSync(summaryPath)).toBe(false);
    const detail = await runMemctl(sandbox, ['status', loop.sessionId]);
    expect(detail.stdout).toMatch(new RegExp(`lock +held by ${TURN_OWNER}, lapses in \\d+s`));

    const end = await runMemctl(sandbox, ['hook', 'turn-end'], {}, stopInput);
    expect(end).toEqual({ code: 0, stdout: '', stderr: '' });
    await eventually(() => existsSync(summaryPath), 'the extraction to run at the end of the turn');
    await eventually(async () => (await client.daemonStatus()).extraction.jobs.done === 1, 'the job to be done');
    expect(await lockOf(client)).toBeNull();
    client.close();
  });

  it('lets go of a turn whose Stop never came once its transcript is quiet for the TTL, and extracts then', async () => {
    const { sandbox, client, transcript, summaryPath, hookInput } = await setUp();
    await runMemctl(sandbox, ['hook', 'turn-start'], { MEMD_TURN_TTL_MS: '1500' }, hookInput);
    appendPrompt(
      transcript,
      loop.sessionId,
      'the last thing the crashed turn wrote',
      '70000000-0000-4000-8000-000000000002',
    );
    await eventually(
      async () => (await client.daemonStatus()).extraction.jobs.deferred === 1,
      'the extraction to wait for the turn',
    );
    expect(existsSync(summaryPath)).toBe(false);
    await eventually(async () => (await lockOf(client)) === null, 'the TTL to release the lock', 15_000);
    await eventually(() => existsSync(summaryPath), 'the deferred extraction to run', 15_000);
    client.close();
  });

  it('holds a new session that memd has not indexed yet, by its transcript path, and nothing outside the projects dir', async () => {
    const { sandbox, client } = await setUp();
    const sessionId = '12345678-aaaa-4bbb-8ccc-123456789abc';
    const project = loop.transcript.split('/')[1] as string;
    const inside = join(sandbox.projectsDir, project, `${sessionId}.jsonl`);
    const start = await runMemctl(
      sandbox,
      ['hook', 'turn-start'],
      {},
      JSON.stringify({ session_id: sessionId, transcript_path: inside }),
    );
    expect(start).toEqual({ code: 0, stdout: '', stderr: '' });
    const locks = (await client.daemonStatus()).extraction.locks;
    expect(locks).toEqual([
      expect.objectContaining({
        owner: TURN_OWNER,
        sessionDir: join(sandbox.projectsDir, project, sessionId, 'session-memory'),
      }),
    ]);
    await runMemctl(
      sandbox,
      ['hook', 'turn-end'],
      {},
      JSON.stringify({ session_id: sessionId, transcript_path: inside }),
    );
    expect((await client.daemonStatus()).extraction.locks).toEqual([]);

    const outside = await runMemctl(
      sandbox,
      ['hook', 'turn-start'],
      {},
      JSON.stringify({ session_id: sessionId, transcript_path: `/tmp/elsewhere/${sessionId}.jsonl` }),
    );
    expect(outside).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await client.daemonStatus()).extraction.locks).toEqual([]);
    client.close();
  });
});

describe('the turn hooks without memd', () => {
  it.each([
    ['turn-start', JSON.stringify({ session_id: loop.sessionId, transcript_path: '/x.jsonl' })],
    ['turn-end', JSON.stringify({ session_id: loop.sessionId })],
    ['turn-start', 'not json'],
    ['turn-end', ''],
  ])('%s does nothing, says nothing, exits 0 and starts no daemon (stdin %j)', async (hook, input) => {
    const sandbox = makeSandbox();
    const run = await runMemctl(sandbox, ['hook', hook], {}, input);
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(sandbox.socketPath)).toBe(false);
  });
});
