/**
 * What the search index holds (issue 28, item 6) over a real daemon: a typed prompt's words past
 * the old 8,000-character cap, what a Write or Edit wrote (kind `write`, found by a function's
 * name and by `test_refund retry`), and the model's thinking (kind `thinking`); the hits' snippets
 * show the match, and `memctl search --context` and MCP session_context show it too.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { SearchHit, SearchKind, SearchQueryResult } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  eventually,
  keepForFile,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

const SESSION_ID = '5ea2c4f0-0000-4000-8000-00000000f028';
const CWD = '/home/user/src/shop';
/** Where the word is in the typed prompt: the report. */
const WORD_AT = 14_425;

function longPrompt(): string {
  const filler = 'the checkout flow keeps its cart in the session store and ';
  const head = filler.repeat(Math.ceil(WORD_AT / filler.length)).slice(0, WORD_AT - 1);
  const prompt = `${head} quetzalcoatl ${filler.repeat(100)}`;
  expect(prompt.indexOf('quetzalcoatl')).toBe(WORD_AT);
  return prompt;
}

/** A pasted log of 100,000 characters (a line past 64 KB, whose long strings ingest stands in for) with a word in its head and one at its end. */
function paste(): string {
  const line = 'INFO worker heartbeat ok\n';
  return `${line.repeat(1_200)}ERROR axolotl queue stalled\n${line.repeat(2_800)}what does the narwhal error mean?`;
}

/** A pytest file whose retry case comes after many others, as a Write writes it. */
function refundTests(): string {
  const cases = Array.from(
    { length: 60 },
    (_, n) => `def test_refund_case_${n}(client):\n    assert client.refund(${n}).ok\n`,
  ).join('\n');
  return `import pytest\n\n${cases}\n# the retry case: the gateway times out twice\ndef test_refund_retries_after_gateway_timeout(client, gateway):\n    gateway.fail_times(2)\n    assert client.refund(7, retry=3).ok\n`;
}

function session(): TranscriptWriter {
  const writer = new TranscriptWriter({ sessionId: SESSION_ID, cwd: CWD, version: '2.1.197' });
  let n = 0;
  writer.prompt(longPrompt());
  writer.response([{ type: 'text', text: 'Noted.' }], growingUsage(n++));
  writer.prompt(paste());
  writer.response(
    [
      {
        type: 'thinking',
        thinking: 'The user wants the marmoset rounding rule kept for refunds; the ledger rounds half up.',
        signature: 'c2ln',
      },
      { type: 'text', text: 'I will write the refund tests first.' },
    ],
    growingUsage(n++),
  );
  writer.toolRound(
    'Write',
    { file_path: '/home/user/src/shop/tests/test_refund.py', content: refundTests() },
    'File created successfully',
    growingUsage(n++),
  );
  writer.toolRound(
    'Edit',
    {
      file_path: '/home/user/src/shop/refund.py',
      old_string: 'return gateway.refund(amount)',
      new_string: 'return with_backoff(gateway.refund, amount, attempts=3)',
    },
    'The file has been updated.',
    growingUsage(n++),
  );
  writer.response([{ type: 'text', text: 'Done.' }], growingUsage(n++));
  return writer;
}

describe('what the search index holds (issue 28)', () => {
  let sandbox: Sandbox;
  let client: Client;
  let mcp: McpClient;

  /**
   * A phrase (a function's name is one) is checked on the lines' text within 30 ms; on a loaded
   * machine that can run out (`partial`, no hits), and asking again is what a user does.
   */
  const hits = async (query: string, kinds?: SearchKind[]): Promise<SearchHit[]> => {
    let result: SearchQueryResult | undefined;
    await eventually(async () => {
      result = await client.searchQuery({ query, sessionId: SESSION_ID, ...(kinds === undefined ? {} : { kinds }) });
      return result.partial !== true;
    }, `a whole answer to ${query}`);
    return result?.hits ?? [];
  };

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION_ID), session());
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
    }, 'ingest to catch up');
    const env = Object.fromEntries(
      Object.entries(sandbox.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    mcp = new McpClient({ name: 'memd-test', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MEMCTL_MAIN, 'mcp'],
        env,
        cwd: sandbox.root,
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await mcp?.close();
    client?.close();
  });

  it('finds a word at character 14,425 of a typed prompt, its snippet around it', async () => {
    const [hit] = await hits('quetzalcoatl');
    expect(hit).toMatchObject({ kind: 'prompt', sessionId: SESSION_ID });
    expect(hit?.snippet).toContain('«quetzalcoatl»');
  });

  it('finds the head and the tail of a 100,000-character paste (a line past 64 KB)', async () => {
    expect(paste().length).toBeGreaterThan(100_000);
    expect((await hits('axolotl'))[0]?.snippet).toContain('«axolotl» queue stalled');
    expect((await hits('narwhal'))[0]?.snippet).toContain('«narwhal» error');
  });

  it("finds the session that wrote test_refund.py's retry case, by the function's name and by path and word", async () => {
    const [byName] = await hits('test_refund_retries_after_gateway_timeout');
    expect(byName).toMatchObject({ kind: 'write', sessionId: SESSION_ID });
    expect(byName?.snippet).toContain('«test»_«refund»_«retries»_«after»_«gateway»_«timeout»');
    const [byWords] = await hits('test_refund retry', ['write']);
    expect(byWords?.kind).toBe('write');
    expect(byWords?.snippet).toContain('«retry»');
    // An Edit's new text, not the text it replaced.
    expect((await hits('with_backoff'))[0]?.kind).toBe('write');
    expect(await hits('"return gateway.refund"', ['write'])).toEqual([]);
    // memctl takes the kind, and the hit line says it.
    let stdout = '';
    await eventually(async () => {
      const run = await runMemctl(sandbox, ['search', 'gateway_timeout', '--kind', 'write'], { NO_COLOR: '1' });
      expect(run.code, run.stderr).toBe(0);
      stdout = run.stdout;
      return !stdout.includes('ran out of time');
    }, 'memctl search to check the phrase in time');
    expect(stdout).toContain('test_refund_retries_after_gateway_timeout');
  });

  it("finds the model's thinking as kind thinking, and its context shows it", async () => {
    const [hit] = await hits('marmoset');
    expect(hit).toMatchObject({ kind: 'thinking', sessionId: SESSION_ID });
    expect(hit?.snippet).toContain('«marmoset» rounding rule');
    const run = await runMemctl(
      sandbox,
      ['search', '--context', `${SESSION_ID}:${hit?.uuid}`, '--near', 'marmoset', '--before', '0', '--after', '0'],
      { NO_COLOR: '1' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('marmoset rounding rule');
    const answer = await mcp.callTool({
      name: 'session_context',
      arguments: { session: SESSION_ID, uuid: hit?.uuid, before: 0, after: 0, query: 'marmoset' },
    });
    const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(answer.isError, text).not.toBe(true);
    expect(text).toContain('marmoset rounding rule');
  });

  it("MCP session_context shows a Write's content around the match", async () => {
    const [hit] = await hits('test_refund_retries_after_gateway_timeout');
    expect(refundTests().length).toBeGreaterThan(3_000);
    const query = 'test_refund_retries_after_gateway_timeout';
    const answer = await mcp.callTool({
      name: 'session_context',
      arguments: { session: SESSION_ID, uuid: hit?.uuid, before: 0, after: 0, query },
    });
    const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(text).toContain('test_refund_retries_after_gateway_timeout');
  });
});
