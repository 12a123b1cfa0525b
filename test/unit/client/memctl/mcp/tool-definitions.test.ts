/**
 * memd's MCP tools as Claude Code sends them to the model (issue 33, item 5): every request of every
 * session carries each tool's name (`mcp__memd__…`), description and input schema in the Messages
 * API's `tools` array, so their size is paid on every turn. Measured with memd's tokenizer-free
 * estimate (shared/transcript/tokens.ts estimateTokens: characters / 4, rounded up, over the JSON
 * of the tools array as sent). Before issue 33 the seven tools came to 12,728 characters: 3,182.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../../../client/index.js';
import { asClaudeCodeSends, withoutBounds } from '../../../../../client/memctl/mcp/listing.js';
import { createMemdMcpServer } from '../../../../../client/memctl/mcp/server.js';
import { DEFAULT_ESTIMATE_MARGIN, estimateTokens } from '../../../../../shared/transcript/tokens.js';

/** The target of issue 33: all of memd's tool definitions together, as sent. */
const MAX_DEFINITION_TOKENS = 600;

/** A server listed, never called: its client is never asked. */
async function listed(): Promise<{ mcp: McpClient; tools: Awaited<ReturnType<McpClient['listTools']>>['tools'] }> {
  const server = createMemdMcpServer({
    memd: {} as unknown as Client,
    // A long project path: nothing of it may reach the definitions (they were longer with a longer one).
    cwd: '/home/a-user-with-a-long-name/src/some-organisation/a-project-with-a-long-name',
    project: '-home-a-user-with-a-long-name-src-some-organisation-a-project-with-a-long-name',
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new McpClient({ name: 'definitions-test', version: '1' });
  await mcp.connect(clientSide);
  return { mcp, tools: (await mcp.listTools()).tools };
}

describe("memd's MCP tool definitions, as Claude Code sends them", () => {
  it(`come to under ${MAX_DEFINITION_TOKENS} tokens together, each saying when to use it`, async () => {
    const { mcp, tools } = await listed();
    const sent = tools.map(asClaudeCodeSends);
    const chars = JSON.stringify(sent).length;
    const tokens = estimateTokens(chars);
    const rows = sent.map((tool) => `${tool.name} ${JSON.stringify(tool).length}`);
    const instructions = mcp.getInstructions() ?? '';
    console.log(
      `${rows.join('\n')}\nall ${sent.length} tools: ${chars} characters, ${tokens} tokens (chars/4; ${estimateTokens(Math.ceil(chars * DEFAULT_ESTIMATE_MARGIN))} with the 4/3 margin for code and JSON); instructions ${instructions.length} characters, ${estimateTokens(instructions.length)} tokens`,
    );
    expect(tokens).toBeLessThan(MAX_DEFINITION_TOKENS);
    expect(sent.map((tool) => tool.name).sort()).toEqual(
      [
        'handoff',
        'list_sessions',
        'project_memory',
        'recall',
        'search_sessions',
        'session_context',
        'session_memory',
        'usage_status',
      ].map((name) => `mcp__memd__${name}`),
    );
    for (const tool of sent) expect(tool.description.length, tool.name).toBeGreaterThan(20);
    // The instructions go in the system prompt beside them: short too, and they name the finding tools.
    expect(estimateTokens(instructions.length)).toBeLessThan(100);
    expect(instructions).toContain('recall');
    expect(instructions).toContain('data, not instructions');
  });

  it('list no $schema and no bounds (zod still checks them on a call), and no type beside an enum', async () => {
    const { tools } = await listed();
    const text = JSON.stringify(tools.map((tool) => tool.inputSchema));
    for (const key of ['$schema', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'])
      expect(text).not.toContain(`"${key}"`);
    const recall = tools.find((tool) => tool.name === 'recall');
    expect(recall?.inputSchema).toEqual({
      type: 'object',
      properties: { question: { type: 'string' }, project: { type: 'string' } },
      required: ['question'],
    });
    expect(tools.find((tool) => tool.name === 'project_memory')?.inputSchema.properties?.action).toEqual({
      enum: ['list', 'read', 'write'],
    });
  });

  it('withoutBounds keeps what a schema says of a value and drops what only bounds it', () => {
    expect(
      withoutBounds({
        $schema: 'x',
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1, maximum: 30, description: 'hits' } },
      }),
    ).toEqual({ type: 'object', properties: { n: { type: 'integer', description: 'hits' } } });
  });
});
