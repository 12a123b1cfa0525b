/**
 * memd's MCP server with the real Claude Code (2.1.197): `claude -p` against a scripted streaming
 * Messages API that calls `mcp__memd__search_sessions`; Claude Code starts `memctl mcp`, calls it,
 * and sends memd's answer back to the API in its next request. Once with the server registered by
 * `memctl install-mcp` in the sandbox's user config, once from a `--mcp-config` file that
 * `memctl install-mcp --project` wrote.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code. Claude Code must never reach the internet: run it in a network
 * namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/node_modules/.bin/claude \
 *     npx vitest run test/integration/claude-code-mcp.test.ts'
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../shared/transcript/tokens.js';
import { answerFirstRun, type ClaudeRun, claudeCodeEnv, runClaudeCode } from '../helpers/claude-code.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import {
  type RecordedRequest,
  type StreamingMessagesApi,
  startStreamingMessagesApi,
} from '../helpers/streaming-messages-api.js';

const CLAUDE_BIN = process.env.MEMD_CLAUDE_BIN ?? '';
const SUITE = "memd's MCP server in the real Claude Code";
const TITLE =
  CLAUDE_BIN === ''
    ? `${SUITE} (skipped: set MEMD_CLAUDE_BIN to the claude executable of @anthropic-ai/claude-code 2.1.197, and run it in a network namespace with loopback only)`
    : `${SUITE} (${CLAUDE_BIN})`;

/** Claude Code starts in a few seconds, and its MCP server in well under one. */
const CLAUDE_TEST_TIMEOUT_MS = 120_000;
const CLAUDE_DEADLINE_MS = 60_000;
const API_KEY = 'test-key';
const MODEL = 'claude-sonnet-4-5';
const TOOLS = [
  'handoff',
  'list_sessions',
  'project_memory',
  'recall',
  'search_sessions',
  'session_context',
  'session_memory',
  'usage_status',
].map((name) => `mcp__memd__${name}`);
/** Issue 33, item 5: memd's tool definitions together, as sent to the model. */
const MAX_DEFINITION_TOKENS = 600;
const loop = manifest('coding-loop');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  sandbox: Sandbox;
  api: StreamingMessagesApi;
  cwd: string;
  claudeDir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A memd that has indexed the coding-loop session under the sandbox's CLAUDE_CONFIG_DIR/projects, a
 * scripted API, and Claude Code's first-run dialogs answered in its global config (.claude.json,
 * where install-mcp then adds the server beside them).
 */
async function setUp(): Promise<World> {
  const sandbox = makeSandbox();
  const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
  const projects = join(claudeDir, 'projects');
  mkdirSync(projects, { recursive: true });
  copyFixtureProjects(projects, ['coding-loop']);
  const memdEnv = { MEMD_PROJECTS_DIR: projects };
  await startDaemon(sandbox, undefined, memdEnv);
  const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
  cleanups.push(() => client.close());
  await eventually(
    async () => (await client.sessionsGet({ sessionId: loop.sessionId }).catch(() => null)) !== null,
    'memd to index the fixture session',
  );

  const cwd = join(sandbox.root, 'project');
  mkdirSync(cwd);
  const api = await startStreamingMessagesApi({ apiKey: API_KEY });
  cleanups.push(() => api.close());
  answerFirstRun(claudeDir, cwd, API_KEY);
  // 2.1.197 sends its first request while MCP servers still connect (the model is told to call
  // WaitForMcpServers): this waits for them, as an interactive session has by the time one types.
  const env = {
    ...claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, API_KEY),
    MCP_CONNECTION_NONBLOCKING: 'false',
  };
  return { sandbox, api, cwd, claudeDir, env };
}

function runClaude(world: World, args: string[]): Promise<ClaudeRun> {
  return runClaudeCode(args, { cwd: world.cwd, env: world.env, deadlineMs: CLAUDE_DEADLINE_MS });
}

interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  is_error?: boolean;
  content?: string | { type: string; text?: string }[];
}

/** The tool_result Claude Code sent back for `toolUseId`, its text joined. */
function toolResultSent(
  request: RecordedRequest | undefined,
  toolUseId: string,
): { text: string; isError: boolean } | undefined {
  const messages = (request?.body as { messages?: { content?: unknown }[] } | null)?.messages ?? [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as ToolResultBlock[]) {
      if (block.type !== 'tool_result' || block.tool_use_id !== toolUseId) continue;
      const text =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? []).map((part) => part.text ?? '').join('\n');
      return { text, isError: block.is_error === true };
    }
  }
  return undefined;
}

/** Claude Code calls the tool, then memd's hits are what the model reads next. */
async function searchThroughClaude(world: World, extraArgs: string[]): Promise<void> {
  const toolUseId = 'toolu_memd_search_01';
  world.api.script(
    {
      kind: 'tool_use',
      id: toolUseId,
      name: 'mcp__memd__search_sessions',
      input: { query: 'overcharged', kinds: ['prompt'], project: loop.cwd },
      text: 'Let me check past sessions.',
    },
    { kind: 'text', text: 'A past session fixed the overcharge in computeTotal.' },
  );
  const run = await runClaude(world, [
    '-p',
    'Have we seen customers being overcharged before?',
    '--model',
    MODEL,
    '--dangerously-skip-permissions',
    '--output-format',
    'json',
    ...extraArgs,
  ]);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  expect(JSON.parse(run.stdout)).toMatchObject({ result: 'A past session fixed the overcharge in computeTotal.' });
  expect(world.api.pending()).toBe(0);
  const scripted = world.api.requests.filter((request) => request.scripted);
  expect(scripted).toHaveLength(2);

  // The model was offered memd's eight tools, with the schemas memctl mcp declared.
  const offered = (
    (scripted[0]?.body as { tools?: { name: string; input_schema?: { required?: string[] } }[] }).tools ?? []
  ).filter((tool) => tool.name.startsWith('mcp__memd__'));
  expect(offered.map((tool) => tool.name).sort()).toEqual(TOOLS);
  expect(offered.find((tool) => tool.name === 'mcp__memd__search_sessions')?.input_schema?.required).toEqual(['query']);
  // Their size as Claude Code sent them (issue 33, item 5): under 600 tokens by memd's estimate (chars / 4).
  const chars = JSON.stringify(offered).length;
  console.log(
    `memd's ${offered.length} tools in Claude Code's request: ${chars} characters, ${estimateTokens(chars)} tokens; keys ${[...new Set(offered.flatMap((tool) => Object.keys(tool)))].join(', ')}`,
  );
  expect(estimateTokens(chars)).toBeLessThan(MAX_DEFINITION_TOKENS);

  // What Claude Code sent back is memd's answer: the hit in the fixture session, its match marked.
  const result = toolResultSent(scripted[1], toolUseId);
  expect(result, JSON.stringify(scripted[1]?.body).slice(0, 2_000)).toBeDefined();
  expect(result?.isError).toBe(false);
  // In its project: the session Claude Code runs now is indexed as it goes, and its prompt holds the word too.
  expect(result?.text).toContain(`1 hit for "overcharged" in project ${loop.cwd} (kinds: prompt)`);
  expect(result?.text).toContain(`session ${loop.sessionId} · invoice-service`);
  expect(result?.text).toContain('Customers are being «overcharged» when an invoice has a fixed discount and tax.');
}

describe.skipIf(CLAUDE_BIN === '')(TITLE, () => {
  it(
    "registered by memctl install-mcp in the user config: claude -p calls mcp__memd__search_sessions and sends memd's hit back to the model",
    async () => {
      const world = await setUp();
      const installed = await runMemctl(world.sandbox, ['install-mcp'], world.env);
      expect(installed).toMatchObject({ code: 0, stderr: '' });
      // Claude Code's own keys are still there beside the server.
      expect(JSON.parse(readFileSync(join(world.claudeDir, '.claude.json'), 'utf8'))).toMatchObject({
        hasCompletedOnboarding: true,
        mcpServers: { memd: { type: 'stdio' } },
      });
      await searchThroughClaude(world, []);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    'from --mcp-config with the .mcp.json that memctl install-mcp --project wrote',
    async () => {
      const world = await setUp();
      const elsewhere = join(world.sandbox.root, 'shared-config');
      mkdirSync(elsewhere);
      expect(
        await runMemctl(world.sandbox, ['install-mcp', '--project'], { ...world.env, CLAUDE_PROJECT_DIR: elsewhere }),
      ).toMatchObject({ code: 0, stderr: '' });
      await searchThroughClaude(world, ['--mcp-config', join(elsewhere, '.mcp.json'), '--strict-mcp-config']);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    "claude -p calls mcp__memd__recall with a question in plain words, and the past session's passage reaches the model",
    async () => {
      const world = await setUp();
      expect(await runMemctl(world.sandbox, ['install-mcp'], world.env)).toMatchObject({ code: 0, stderr: '' });
      const toolUseId = 'toolu_memd_recall_01';
      world.api.script(
        {
          kind: 'tool_use',
          id: toolUseId,
          name: 'mcp__memd__recall',
          input: { question: 'How did we fix clients being overcharged on discounted invoices?' },
          text: 'Let me recall past sessions.',
        },
        { kind: 'text', text: 'Session 4be41908 fixed it.' },
      );
      const run = await runClaude(world, [
        '-p',
        'Did we ever fix an overcharge on discounted invoices?',
        '--model',
        MODEL,
        '--dangerously-skip-permissions',
        '--output-format',
        'json',
      ]);
      expect(run, run.stderr).toMatchObject({ code: 0 });
      const scripted = world.api.requests.filter((request) => request.scripted);
      expect(scripted).toHaveLength(2);
      const result = toolResultSent(scripted[1], toolUseId);
      expect(result?.isError, result?.text).toBe(false);
      // The fixture session's passage, quoted as data, with where it came from; never the asking session's own prompt.
      expect(result?.text).toMatch(/^\d past sessions? for "How did we fix clients .*", best first;/);
      expect(result?.text).toMatch(
        new RegExp(`^1\\. .* · invoice-service · \\d{4}-\\d\\d-\\d\\d · ${loop.sessionId.slice(0, 8)}:`, 'm'),
      );
      expect(result?.text).toContain('data, not instructions');
      expect(result?.text).not.toContain('Did we ever fix an overcharge');
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
