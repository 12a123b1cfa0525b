/**
 * Claude Code's newer hook events (issue 31), through the hook commands Claude Code runs:
 * StopFailure → `memctl hook turn-failed` lets the turn's lock go at once and records why;
 * InstructionsLoaded → `memctl hook instructions-loaded` records the instruction files in context,
 * so that memd says which did not come back after a compaction. Every one exits 0 and prints
 * nothing, memd up or down (fail open).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TURN_OWNER } from '../../client/memctl/quick/turn.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects, FIXTURES } from '../helpers/ingest.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
const HOOK_EVENTS = join(FIXTURES, '..', 'hook-events');

function input(name: string, transcript: string): string {
  const stdin = JSON.parse(readFileSync(join(HOOK_EVENTS, name), 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...stdin, transcript_path: transcript });
}

async function setUp() {
  const sandbox = makeSandbox();
  copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
  await startDaemon(sandbox);
  const client = createClient({ env: sandbox.env, autostart: false });
  await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the fixture to be indexed');
  const transcript = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
  return { sandbox, client, transcript };
}

const quiet = { code: 0, stdout: '', stderr: '' };
const hook = (sandbox: Sandbox, name: string, stdin: string) => runMemctl(sandbox, ['hook', name], {}, stdin);

describe("Claude Code's newer hook events", () => {
  it('StopFailure releases the turn lock at once and records the error', async () => {
    const { sandbox, client, transcript } = await setUp();
    expect(await hook(sandbox, 'turn-start', input('Stop-old.json', transcript))).toEqual(quiet);
    const lock = async () => (await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.lock;
    expect(await lock()).toMatchObject({ owner: TURN_OWNER });
    expect(await hook(sandbox, 'turn-failed', input('StopFailure-rate-limit.json', transcript))).toEqual(quiet);
    expect(await lock()).toBeNull();
    const status = await client.handoffStatus({ sessionId: loop.sessionId });
    expect(status.turnFailures).toEqual([
      { at: expect.any(String), error: 'rate_limit', details: expect.stringContaining('429 rate_limit_error') },
    ]);
    expect((await runMemctl(sandbox, ['status', loop.sessionId])).stdout).toMatch(
      /failed +turn ended by an API error at .* \(rate_limit: 429 rate_limit_error/,
    );
    client.close();
  });

  it('InstructionsLoaded: after a compaction memd says which files did not come back', async () => {
    const { sandbox, client, transcript } = await setUp();
    for (const name of ['user', 'project', 'rule', 'compact-user', 'compact-project'])
      expect(await hook(sandbox, 'instructions-loaded', input(`InstructionsLoaded-${name}.json`, transcript))).toEqual(
        quiet,
      );
    const { instructions } = await client.handoffStatus({ sessionId: loop.sessionId });
    expect(instructions?.loaded.map((file) => file.path)).toHaveLength(3);
    expect(instructions?.compactedAt).not.toBeNull();
    expect(instructions?.notBack).toEqual(['/home/user/src/invoice-service/.claude/rules/money.md']);
    const shown = (await runMemctl(sandbox, ['status', loop.sessionId])).stdout;
    expect(shown).toMatch(/rules +3 instruction files in context; not back after the compaction at .*money\.md/);
    client.close();
  });

  it('a compaction is recorded from the transcript, without PostCompact (interactive /compact fires none), and once with it', async () => {
    const { sandbox, client, transcript } = await setUp();
    const now = new Date().toISOString();
    const boundary = '71000000-0000-4000-8000-000000000001';
    const lines = [
      {
        parentUuid: null,
        logicalParentUuid: null,
        isSidechain: false,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        timestamp: now,
        uuid: boundary,
        sessionId: loop.sessionId,
        compactMetadata: { trigger: 'manual', preTokens: 19_000 },
      },
      {
        parentUuid: boundary,
        isSidechain: false,
        type: 'user',
        isCompactSummary: true,
        message: { role: 'user', content: 'This session is being continued. Summary: computeTotal was fixed.' },
        uuid: '71000000-0000-4000-8000-000000000002',
        timestamp: now,
        sessionId: loop.sessionId,
      },
    ];
    appendFileSync(transcript, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    await eventually(
      async () => (await client.handoffStatus({ sessionId: loop.sessionId })).compactions.length === 1,
      'the compaction to be recorded from the transcript',
    );
    const [record] = (await client.handoffStatus({ sessionId: loop.sessionId })).compactions;
    expect(record).toMatchObject({ trigger: 'manual', summaryChars: lines[1]?.message?.content.length });
    // Print mode's PostCompact for the same compaction: recorded once, and the hook prints nothing.
    expect(await hook(sandbox, 'post-compact', input('PostCompact.json', transcript))).toEqual(quiet);
    expect((await client.handoffStatus({ sessionId: loop.sessionId })).compactions).toEqual([record]);
    client.close();
  });

  it('the new hooks fail open with memd down: exit 0, nothing printed', async () => {
    const sandbox = makeSandbox();
    for (const [name, file] of [
      ['turn-failed', 'StopFailure-413.json'],
      ['instructions-loaded', 'InstructionsLoaded-user.json'],
      ['turn-end', 'Stop-old.json'],
    ] as const)
      expect(await hook(sandbox, name, input(file, '/nowhere.jsonl'))).toEqual(quiet);
    expect(await hook(sandbox, 'turn-failed', 'not json')).toEqual(quiet);
  });
});
