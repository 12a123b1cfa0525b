/**
 * Claude Code's newer hook events (issue 31), through the hook commands Claude Code runs:
 * StopFailure → `memctl hook turn-failed` lets the turn's lock go at once and records why;
 * InstructionsLoaded → `memctl hook instructions-loaded` records the instruction files in context,
 * so that memd says which did not come back after a compaction. Every one exits 0 and prints
 * nothing, memd up or down (fail open).
 */
import { readFileSync } from 'node:fs';
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
