/**
 * The survival score of memd's own compactions (issue 32, item 2), over a real daemon: every
 * `compact.*` result says which of the session's facts (files changed, errors, rules, todos,
 * decisions) the messages it returns still carry, and `memctl compact` prints it. The transcript
 * is written here in Claude Code's shapes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { compactionResultSchema } from '../../shared/protocol/compaction.js';
import { createClient } from '../helpers/client.js';
import { mainPath, type ResponseUsage, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/shop';
const SESSION = '32a0b1c2-0000-4000-8000-000000000001';
const usage = (n: number): ResponseUsage => ({ input: 3, cacheWrite: 2_000 + n * 900, cacheRead: 20_000, output: 150 });

/** A session with two files changed, a failed test run, a rule, a pending todo and a decision. */
function session(): TranscriptWriter {
  const main = new TranscriptWriter({ sessionId: SESSION, cwd: CWD, version: '2.1.197', model: 'claude-opus-4-8' });
  main.prompt('Fix the rounding in src/cart.ts. Never touch package.json.');
  main.toolRound(
    'Read',
    { file_path: `${CWD}/src/cart.ts` },
    'export const total = (xs) => xs.reduce(...)\n'.repeat(80),
    usage(1),
  );
  main.response([{ type: 'text', text: 'We will use integer cents instead of floats.' }], usage(2));
  main.toolRound(
    'Edit',
    { file_path: `${CWD}/src/cart.ts`, old_string: 'xs.reduce', new_string: 'cents(xs)' },
    'The file has been updated.',
    usage(3),
  );
  const failed = 'toolu_32failedrun000000000001';
  main.response([{ type: 'tool_use', id: failed, name: 'Bash', input: { command: 'npm test' } }], usage(4));
  main.toolResult(
    failed,
    `Exit code 1\n${'  at cart.test.ts:12\n'.repeat(60)}AssertionError: expected 30 to equal 31`,
    true,
  );
  main.toolRound(
    'TodoWrite',
    { todos: [{ content: 'Cover discounts in cart tests', status: 'pending', activeForm: 'Covering discounts' }] },
    'Todos have been modified successfully.',
    usage(5),
  );
  main.toolRound('Bash', { command: 'npm run lint' }, 'lint ok\n'.repeat(200), usage(6));
  main.response([{ type: 'text', text: 'The total is now computed in cents.' }], usage(7));
  return main;
}

describe('the survival score of memd compactions', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION), session());
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files >= 1;
    }, 'ingest to catch up');
  });

  it('every method says which facts survived; micro keeps them all', async () => {
    const micro = await client.compactMicro({ sessionId: SESSION });
    compactionResultSchema.parse(micro, 'result');
    expect(micro.survival).toMatchObject({ lost: 0 });
    expect(new Set(micro.survival.items.map((item) => item.kind))).toEqual(
      new Set(['file', 'error', 'rule', 'todo', 'decision']),
    );
    expect(micro.survival.items).toContainEqual({ kind: 'rule', text: 'Never touch package.json.', kept: true });
    expect(micro.survival.items).toContainEqual({ kind: 'file', text: 'src/cart.ts (modified)', kept: true });
    const reactive = await client.compactReactive({ sessionId: SESSION });
    expect(reactive.survival.kept + reactive.survival.lost).toBe(micro.survival.kept);
  });

  it('memctl compact prints the score, and --json carries the items', async () => {
    const run = await runMemctl(sandbox, ['compact', SESSION, '--method', 'micro']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/survival \d+\/\d+ facts kept/);
    const json = await runMemctl(sandbox, ['compact', SESSION, '--method', 'micro', '--json']);
    expect(JSON.parse(json.stdout).survival.items.length).toBeGreaterThan(0);
  });
});
