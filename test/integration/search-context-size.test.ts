/**
 * search.context answers bounded by construction (issue 27, item 9): around messages of megabytes,
 * `before/after: 10` built 17 MB and failed with AnswerTooLarge; now each block is cut to
 * `maxBlockChars` and says so, and the MCP `session_context` tool, which asks for small blocks,
 * answers within its budget.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { OUTPUT_BUDGET_CHARS } from '../../client/memctl/mcp/budget.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, MEMCTL_MAIN, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SESSION_ID = '0b5e55ed-0000-4000-8000-00000000b16b';
const CWD = '/home/user/src/big-reads';
/** Twelve Reads of 2 MB around the prompt: 24 MB of context, past the 16 MiB frame. */
const ROUNDS_EACH_SIDE = 6;
const READ_CHARS = 2 * 1024 * 1024;

function bigSession(): { writer: TranscriptWriter; promptUuid: string } {
  const writer = new TranscriptWriter({ sessionId: SESSION_ID, cwd: CWD, version: '2.1.38' });
  writer.prompt('Read every data file and tell me which one has the broken row.');
  let n = 0;
  const round = () =>
    writer.toolRound(
      'Read',
      { file_path: `/data/part-${n}.csv` },
      `${n},${'row;'.repeat(READ_CHARS / 4)}`,
      growingUsage(n++),
    );
  for (let i = 0; i < ROUNDS_EACH_SIDE; i++) round();
  const promptUuid = writer.prompt('Keep going: the needle is in one of the later parts.').uuid as string;
  for (let i = 0; i < ROUNDS_EACH_SIDE; i++) round();
  return { writer, promptUuid };
}

describe('search.context around messages of megabytes', () => {
  let sandbox: Sandbox;
  let client: Client;
  let promptUuid: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    const session = bigSession();
    promptUuid = session.promptUuid;
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION_ID), session.writer);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false, timeoutMs: 60_000 });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
    }, 'ingest to catch up');
    return () => client.close();
  });

  it('answers before/after 10 with every block cut to the default, each cut block saying by how much', async () => {
    const result = await client.searchContext({ sessionId: SESSION_ID, uuid: promptUuid, before: 10, after: 10 });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(MAX_FRAME_BYTES / 4);
    expect(result.messages.length).toBeGreaterThanOrEqual(21);
    const results = result.messages
      .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
      .filter((block) => block.type === 'tool_result');
    expect(results.length).toBeGreaterThanOrEqual(10);
    for (const block of results) {
      expect(block).toMatchObject({ cutChars: expect.any(Number) });
      expect((block as unknown as { cutChars: number }).cutChars).toBeGreaterThan(READ_CHARS - 40_000);
      expect((block as unknown as { content: string }).content).toMatch(/ … \[memd cut [\d,]+ characters\]$/);
    }
    // The hit's own prompt is whole (after the last Read's result, in the same user message).
    expect(result.messages[result.hitIndex]?.content).toContainEqual({
      type: 'text',
      text: 'Keep going: the needle is in one of the later parts.',
    });
  });

  it('cuts to the maxBlockChars asked for', async () => {
    const result = await client.searchContext({
      sessionId: SESSION_ID,
      uuid: promptUuid,
      before: 10,
      after: 10,
      maxBlockChars: 500,
    });
    for (const message of result.messages) {
      for (const block of typeof message.content === 'string' ? [] : message.content)
        expect(JSON.stringify(block).length).toBeLessThan(700);
    }
  });

  it('MCP session_context answers within its budget, the hit marked', async () => {
    const env = Object.fromEntries(
      Object.entries(sandbox.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const mcp = new McpClient({ name: 'memd-test', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MEMCTL_MAIN, 'mcp'],
        env,
        cwd: sandbox.root,
        stderr: 'pipe',
      }),
    );
    try {
      const answer = await mcp.callTool({
        name: 'session_context',
        arguments: { session: SESSION_ID, uuid: promptUuid, before: 10, after: 10 },
      });
      const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(answer.isError, text).not.toBe(true);
      expect(text.length).toBeLessThanOrEqual(OUTPUT_BUDGET_CHARS);
      expect(text).toMatch(/▶ \[user\][^[]*Keep going: the needle is in one of the later parts\./);
    } finally {
      await mcp.close();
    }
  });
});
