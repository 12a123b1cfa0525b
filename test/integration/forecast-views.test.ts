/**
 * usage.status's forecasts where users and the agent look (issue 31), against the real daemon:
 * `memctl status SESSION` (its lines, `-v`'s bases, `--json`'s usageStatus) and the MCP tool
 * usage_status (the session it defaults to, the suggestion once the 5-hour limit is near). The
 * session's six turns come four minutes apart and each grows the context by 5,000 tokens.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { OUTPUT_BUDGET_CHARS } from '../../client/memctl/mcp/budget.js';
import { createClient } from '../helpers/client.js';
import { serveMcp } from '../helpers/mcp-stdio.js';
import { mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SESSION = '5e55a7e0-0000-4000-8000-000000000032';
const MINUTE_MS = 60_000;
const TURNS = 6;
const GROWTH = 5_000;

function writeSession(projectsDir: string, cwd: string, startMs: number): void {
  const writer = new TranscriptWriter({ sessionId: SESSION, cwd, version: '2.1.197' });
  for (let turn = 0; turn < TURNS; turn++) {
    const from = writer.lines.length;
    writer.prompt(`step ${turn}: go on with the parser`);
    const usage = { input: 10, cacheWrite: 1_000, cacheRead: 20_000 + turn * GROWTH - 2_000, output: 150 };
    writer.toolRound('Read', { file_path: `/src/p${turn}.ts` }, 'export const x = 1;', usage);
    writer.response([{ type: 'text', text: 'Done.' }], { ...usage, cacheRead: 20_000 + turn * GROWTH, output: 200 });
    writer.lines.slice(from).forEach((line, index) => {
      line.timestamp = new Date(startMs + turn * 4 * MINUTE_MS + index * 1_000).toISOString();
    });
  }
  writeTranscript(mainPath(projectsDir, cwd, SESSION), writer);
}

const open: McpClient[] = [];
afterEach(async () => {
  for (const mcp of open.splice(0)) await mcp.close();
});

async function usageStatus(
  sandbox: Sandbox,
  cwd: string,
  args: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ text: string; isError: boolean }> {
  const mcp = await serveMcp(sandbox, cwd, { CLAUDE_CODE_SESSION_ID: '', ...env });
  open.push(mcp);
  const result = await mcp.callTool({ name: 'usage_status', arguments: args });
  const text = (result.content as { text?: string }[]).map((block) => block.text ?? '').join('');
  expect(text.length).toBeLessThanOrEqual(OUTPUT_BUDGET_CHARS);
  return { text, isError: result.isError === true };
}

describe('the forecasts in memctl status SESSION and the MCP tool usage_status', () => {
  let sandbox: Sandbox;
  let client: Client;
  let cwd: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    cwd = join(sandbox.root, 'forecast');
    mkdirSync(cwd);
    writeSession(sandbox.projectsDir, cwd, Date.now() - 30 * MINUTE_MS);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the session to be indexed');
    return () => client.close();
  });

  it('memctl status SESSION shows each forecast with its provenance; -v its basis; --json the whole answer', async () => {
    const run = await runMemctl(sandbox, ['status', SESSION.slice(0, 8)]);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('  forecast  at ');
    expect(run.stdout).toMatch(
      /\n {2}compact {3}auto-compact in \d+ turns \(~(\d+ min|\d+h(\d+m)?)\): \+5K tokens and 4 min a turn over 6 turns, .* \(estimated\)\n/,
    );
    expect(run.stdout).toContain('  5h limit  not reported (Claude Code sends rate_limits');
    expect(run.stdout).toMatch(
      /\n {2}rebuild {3}idling past \d\d:\d\dZ \(in \d+m\) costs \$0\.\d\d to rebuild \(46K tokens, 1h TTL\) {2}\(estimated\)\n/,
    );
    expect(run.stdout).not.toContain('basis:');
    // Under the plan and cache lines it builds on, above the memory line.
    expect(run.stdout.indexOf('  cache     ')).toBeLessThan(run.stdout.indexOf('  forecast  '));
    expect(run.stdout.indexOf('  forecast  ')).toBeLessThan(run.stdout.indexOf('  memory    '));

    const verbose = await runMemctl(sandbox, ['status', SESSION, '-v']);
    expect(verbose.stdout).toContain('            basis: ');
    expect(verbose.stdout).toContain('6 complete turns since the last compaction');

    const json = JSON.parse((await runMemctl(sandbox, ['status', SESSION, '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({
      sessionId: SESSION,
      usageStatus: { sessionId: SESSION, autoCompact: { growthPerTurn: GROWTH, provenance: 'estimated' } },
    });
  });

  it('usage_status answers for the project’s latest session by default, each figure with whose it is and its basis', async () => {
    const answer = await usageStatus(sandbox, cwd, {});
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.text).toContain(`Usage status of session ${SESSION}`);
    expect(answer.text).toMatch(
      /- compact: auto-compact in \d+ turns .* \[estimated\]\n {2}basis: .*6 complete turns since the last compaction/,
    );
    expect(answer.text).toContain('- 5h limit: not reported');
    expect(answer.text).toContain('- plan not reported');
    expect(answer.text).toContain('No limit is near.');
    // The session Claude Code started the server for wins; an unknown one is an error the agent can act on.
    const asked = await usageStatus(
      sandbox,
      cwd,
      {},
      { CLAUDE_CODE_SESSION_ID: '00000000-0000-4000-8000-00000000dead' },
    );
    expect(asked.isError).toBe(true);
    expect(asked.text).toContain('Not found');
    expect(asked.text).toContain('list_sessions');
  });

  it('usage_status suggests handing off once the 5-hour limit is near at this pace', async () => {
    const now = Date.now();
    await client.sessionsReport({
      sessionId: SESSION,
      rateLimits: { fiveHour: { usedPercent: 97, resetsAt: now + 3 * 60 * MINUTE_MS } },
    });
    let answer = await usageStatus(sandbox, cwd, { sessionId: SESSION.slice(0, 8) });
    await eventually(async () => {
      answer = await usageStatus(sandbox, cwd, { sessionId: SESSION.slice(0, 8) });
      return answer.text.includes('- 5h limit: reached at');
    }, 'the forecast of the 5-hour limit');
    expect(answer.text).toContain('[estimated; used and reset official]');
    expect(answer.text).toContain('- plan 5h 97% used');
    expect(answer.text).toContain('Suggestion: the 5-hour plan limit is near');
  });
});
