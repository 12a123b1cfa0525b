/**
 * Compactions that would do nothing useful (issue 28, item 3), over a real daemon: a conversation
 * too small for a summary to shrink is refused with Claude Code's words instead of growing, and a
 * transcript whose parent chain breaks (a line lost from the middle, a trimmed head) never gives
 * an empty `messages`. The transcripts are written here in Claude Code's shapes.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { toolsArePaired } from '../../daemon/transcripts/messages.js';
import type { CompactionResult } from '../../shared/protocol/compaction.js';
import { NOT_ENOUGH_MESSAGES, RpcError } from '../../shared/protocol/errors.js';
import { createClient } from '../helpers/client.js';
import { mainPath, type ResponseUsage, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/shop';
const TINY = '28c0a5e1-0000-4000-8000-000000000001';
const TRIMMED = '28c0a5e1-0000-4000-8000-000000000002';
const HEADLESS = '28c0a5e1-0000-4000-8000-000000000003';
const REPLY_ONLY = '28c0a5e1-0000-4000-8000-000000000004';

/** A request that is mostly system prompt and tools, as the 487-token conversation at 25,580. */
const usage = (n: number): ResponseUsage => ({ input: 3, cacheWrite: 300 + n * 40, cacheRead: 25_000, output: 120 });

const writer = (sessionId: string) =>
  new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.197', model: 'claude-opus-4-8' });

/** One prompt, one Read, one answer: a few hundred tokens of messages. */
function tiny(): TranscriptWriter {
  const main = writer(TINY);
  main.prompt('Add a retry to charge() in src/pay.ts');
  main.toolRound(
    'Read',
    { file_path: `${CWD}/src/pay.ts` },
    'export function charge(cents: number) {\n  return gateway.charge(cents);\n}\n',
    usage(1),
  );
  main.response([{ type: 'text', text: 'Done: charge() retries twice on a 503.' }], usage(2));
  return main;
}

/** Three rounds, then the tool_use entry that the newest tool result answers is gone from the file. */
function trimmedMiddle(): string {
  const main = writer(TRIMMED);
  main.prompt('Find why the refund test fails');
  for (let n = 1; n <= 3; n++)
    main.toolRound(
      'Bash',
      { command: `npm test -- refund ${n}` },
      `FAILED refund_${n}: expected 200, got 409\n`.repeat(5),
      usage(n),
    );
  const lost = main.lines.length - 2; // the last round's tool_use entry
  main.response([{ type: 'text', text: 'The refund test fails on a 409 from the ledger.' }], usage(4));
  return `${main.lines
    .filter((_, index) => index !== lost)
    .map((line) => JSON.stringify(line))
    .join('\n')}\n`;
}

/**
 * The first lines (the prompt and the first call) were cut off: the head's parent is gone and its
 * tool result answers nothing; the prompt typed later opens what can be sent.
 */
function trimmedHead(): string {
  const main = writer(HEADLESS);
  main.prompt('Rename ledger to journal everywhere');
  main.toolRound('Grep', { pattern: 'ledger' }, 'src/ledger_1.ts:1: ledger\n', usage(1));
  main.prompt('Also in the tests');
  main.toolRound('Grep', { pattern: 'ledger', path: 'test' }, 'test/ledger_2.test.ts:1: ledger\n', usage(2));
  main.response([{ type: 'text', text: 'Renamed in two files.' }], usage(3));
  return `${main.lines
    .slice(3)
    .map((line) => JSON.stringify(line))
    .join('\n')}\n`;
}

/** A partly written file: one reply, no prompt anywhere. */
function replyOnly(): TranscriptWriter {
  const main = writer(REPLY_ONLY);
  main.response([{ type: 'text', text: 'Starting on the migration.' }], usage(1));
  return main;
}

function expectSendable(result: CompactionResult): void {
  expect(result.messages.length).toBeGreaterThan(0);
  expect(result.messages[0]?.role).toBe('user');
  for (let index = 1; index < result.messages.length; index++)
    expect(result.messages[index]?.role).not.toBe(result.messages[index - 1]?.role);
  expect(toolsArePaired(result.messages)).toBe(true);
}

async function refusal(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('compactions that would do nothing useful', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, TINY), tiny());
    writeTranscript(mainPath(sandbox.projectsDir, CWD, TRIMMED), trimmedMiddle());
    writeTranscript(mainPath(sandbox.projectsDir, CWD, HEADLESS), trimmedHead());
    writeTranscript(mainPath(sandbox.projectsDir, CWD, REPLY_ONLY), replyOnly());
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files >= 4;
    }, 'ingest to catch up');
  });

  it('refuses to summarize a conversation smaller than its summary, in Claude Code words, with the figures', async () => {
    const error = await refusal(client.compactAuto({ sessionId: TINY, force: true }));
    expect(error.kind).toBe('NothingToCompact');
    expect(error.message.startsWith(NOT_ENOUGH_MESSAGES)).toBe(true);
    const data = error.data as Record<string, number>;
    expect(data.summaryTokens).toBeGreaterThanOrEqual(data.messageTokens as number);
    expect(data.postTokens).toBeGreaterThanOrEqual(data.preTokens as number);
    expect(data.messages).toBeGreaterThan(0);
    // Not a failed compaction: the breaker does not count it.
    const { compaction } = await client.daemonStatus();
    expect(compaction.failing.map((item) => item.sessionId)).not.toContain(TINY);
  });

  it('tries the summary when session memory would grow the conversation, and refuses when that grows it too', async () => {
    const dir = mainPath(sandbox.projectsDir, CWD, TINY).replace(/\.jsonl$/, '');
    mkdirSync(join(dir, 'session-memory'), { recursive: true });
    writeFileSync(
      join(dir, 'session-memory', 'summary.md'),
      '# Session Title\n_A short title_\n\nRetries for charge()\n\n# Current State\n_What is happening now_\n\nRetry added.\n',
    );
    const error = await refusal(client.compactAuto({ sessionId: TINY, force: true }));
    expect(error.kind).toBe('NothingToCompact');
    expect((error.data as Record<string, unknown>).method).toBe('summary');
    rmSync(join(dir, 'session-memory'), { recursive: true });
  });

  it('answers the other methods unchanged on that conversation, never larger', async () => {
    const { contextTokens } = await client.sessionsGet({ sessionId: TINY });
    for (const result of [
      await client.compactMicro({ sessionId: TINY }),
      await client.compactCacheEdits({ sessionId: TINY }),
      await client.compactReactive({ sessionId: TINY }),
    ]) {
      expect(result.preTokens).toBe(contextTokens);
      expect(result.postTokens).toBe(result.preTokens);
      expect(result.actions).toEqual([]);
      expectSendable(result);
    }
  });

  it('memctl compact says there is nothing to compact instead of "adds"', async () => {
    const auto = await runMemctl(sandbox, ['compact', TINY, '--force']);
    expect(auto.code).not.toBe(0);
    expect(auto.stderr).toContain(NOT_ENOUGH_MESSAGES);
    expect(auto.stdout + auto.stderr).not.toContain('adds');
    const micro = await runMemctl(sandbox, ['compact', TINY, '--method', 'micro']);
    expect(micro.code).toBe(0);
    expect(micro.stdout).toContain('nothing to compact');
    expect(micro.stdout).not.toContain('adds');
  });

  it('rebuilds a chain broken in the middle from file order: every method answers the whole conversation', async () => {
    const results = [
      await client.compactMicro({ sessionId: TRIMMED }),
      await client.compactReactive({ sessionId: TRIMMED }),
      await client.compactCacheEdits({ sessionId: TRIMMED }),
    ];
    for (const result of results) {
      expectSendable(result);
      expect(JSON.stringify(result.messages[0])).toContain('Find why the refund test fails');
      expect(JSON.stringify(result.messages)).toContain('got 409');
    }
  });

  it('answers a transcript whose head was cut off from what is left', async () => {
    const result = await client.compactMicro({ sessionId: HEADLESS });
    expectSendable(result);
    expect(JSON.stringify(result.messages[0])).toContain('Also in the tests');
    expect(JSON.stringify(result.messages)).toContain('test/ledger_2.test.ts');
    expectSendable(await client.compactReactive({ sessionId: HEADLESS }));
  });

  it('refuses every method on a transcript with no message to send, never answering messages: []', async () => {
    const calls = [
      client.compactMicro({ sessionId: REPLY_ONLY }),
      client.compactCacheEdits({ sessionId: REPLY_ONLY }),
      client.compactReactive({ sessionId: REPLY_ONLY }),
      client.compactAuto({ sessionId: REPLY_ONLY, force: true }),
    ];
    for (const call of calls) {
      const error = await refusal(call);
      expect(error.kind).toBe('NothingToCompact');
      expect(error.message.startsWith(NOT_ENOUGH_MESSAGES)).toBe(true);
      expect((error.data as Record<string, unknown>).messages).toBe(0);
    }
  });
});
