/**
 * Search you can follow (issue 28, item 6): every hit opens, whatever compaction segment or branch
 * it is on (search.context, `memctl search --context`, MCP session_context), and what is printed of
 * a hit shows its match, without the terminal escapes of Claude Code's command output.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { SearchHit } from '../../shared/protocol/search.js';
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

const SESSION_ID = '5ea2c4f0-0000-4000-8000-00000000f011';
const CWD = '/home/user/src/ledger';
const ESC = '\u001b';
/** Characters of tool output before the prompt in the same merged user message (the report's was at 3,331). */
const FILLER_CHARS = 3_300;

/**
 * Segment 0: a prompt about the zebrafish importer; a compaction; segment 1: a prompt, a branch
 * (walrus) the user rewound away from, the active branch (heron); a 3.3K tool output merged with
 * the capybara prompt; a Bash output in ANSI dim.
 */
function session(): { writer: TranscriptWriter; zebrafish: string; walrus: string; heron: string; pangolin: string } {
  const writer = new TranscriptWriter({ sessionId: SESSION_ID, cwd: CWD, version: '2.1.197' });
  let n = 0;
  const zebrafish = writer.prompt('Set up the zebrafish ledger importer for the March files.').uuid as string;
  writer.response([{ type: 'text', text: 'I will start with the importer skeleton.' }], growingUsage(n++));
  writer.toolRound(
    'Read',
    { file_path: '/home/user/src/ledger/import.ts' },
    'export function importLedger() {}',
    growingUsage(n++),
  );
  writer.response([{ type: 'text', text: 'The importer skeleton is in place.' }], growingUsage(n++));
  writer.compactBoundary(120_000);
  writer.user('This session is being continued from a previous conversation. Summary: the importer exists.', {
    isCompactSummary: true,
  });
  writer.prompt('Now refactor the parser of the ledger rows.');
  writer.response([{ type: 'text', text: 'Two ways to refactor it.' }], growingUsage(n++));
  const fork = writer.lastUuid as string;
  const walrus = writer.prompt('Try the walrus approach to the parser.').uuid as string;
  writer.response([{ type: 'text', text: 'Walrus parser written.' }], growingUsage(n++));
  const heron = writer.user('Go with the heron approach instead.', { parentUuid: fork }).uuid as string;
  writer.response([{ type: 'text', text: 'Heron parser written.' }], growingUsage(n++));
  writer.toolRound(
    'Bash',
    { command: 'cat build.log' },
    `${'build step ok; '.repeat(FILLER_CHARS / 15)}`,
    growingUsage(n++),
  );
  writer.prompt('Find the capybara marker in the build log please.');
  writer.response([{ type: 'text', text: 'Looking for it.' }], growingUsage(n++));
  writer.toolRound(
    'Bash',
    { command: 'npm run build' },
    `${ESC}[2mcompiled the okapi module${ESC}[22m\n${ESC}[32m✓${ESC}[39m done`,
    growingUsage(n++),
  );
  writer.response([{ type: 'text', text: 'Built.' }], growingUsage(n++));
  const pangolin = writer.prompt(`${'ledger row checked; '.repeat(400)}the pangolin total is off by one`)
    .uuid as string;
  writer.response([{ type: 'text', text: 'I will look at the total.' }], growingUsage(n++));
  return { writer, zebrafish, walrus, heron, pangolin };
}

describe('search hits you can follow', () => {
  let sandbox: Sandbox;
  let client: Client;
  let mcp: McpClient;
  let ids: ReturnType<typeof session>;

  const hitFor = async (query: string): Promise<SearchHit> => {
    const { hits } = await client.searchQuery({ query, sessionId: SESSION_ID });
    expect(hits.length, query).toBeGreaterThan(0);
    return hits[0] as SearchHit;
  };
  const reference = async (query: string): Promise<string> => {
    const run = await runMemctl(sandbox, ['search', query]);
    expect(run.code, run.stderr).toBe(0);
    return /--context (\S+)/.exec(run.stdout)?.[1] as string;
  };
  const mcpContext = async (uuid: string): Promise<string> => {
    const answer = await mcp.callTool({
      name: 'session_context',
      arguments: { session: SESSION_ID, uuid, before: 1, after: 1 },
    });
    const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(answer.isError, text).not.toBe(true);
    return text;
  };

  beforeAll(async () => {
    sandbox = makeSandbox();
    ids = session();
    writeTranscript(mainPath(sandbox.projectsDir, CWD, SESSION_ID), ids.writer);
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

  describe('every hit opens', () => {
    it('a prompt before a compaction: search.context gives its own segment, said to be not the active one', async () => {
      const hit = await hitFor('zebrafish');
      expect(hit.uuid).toBe(ids.zebrafish);
      const context = await client.searchContext({ sessionId: SESSION_ID, uuid: ids.zebrafish, before: 1, after: 2 });
      expect(context.segment).toEqual({ index: 0, of: 2, active: false });
      expect(JSON.stringify(context.messages[context.hitIndex])).toContain('zebrafish ledger importer');
      expect(JSON.stringify(context.messages.slice(context.hitIndex + 1))).toContain('importer skeleton');
      expect(JSON.stringify(context.messages)).not.toContain('heron');
    });

    it('a prompt on a rewound branch: its own branch, not the active one', async () => {
      const context = await client.searchContext({ sessionId: SESSION_ID, uuid: ids.walrus, before: 1, after: 1 });
      expect(context.segment).toEqual({ index: 1, of: 2, active: false });
      expect(JSON.stringify(context.messages[context.hitIndex])).toContain('walrus approach');
      expect(JSON.stringify(context.messages[context.hitIndex + 1])).toContain('Walrus parser written');
    });

    it('a prompt of the active conversation says so', async () => {
      const context = await client.searchContext({ sessionId: SESSION_ID, uuid: ids.heron, before: 1, after: 1 });
      expect(context.segment).toEqual({ index: 1, of: 2, active: true });
    });

    it('the --context reference memctl prints opens, and says where the hit is', async () => {
      const run = await runMemctl(sandbox, [
        'search',
        '--context',
        await reference('zebrafish'),
        '--before',
        '0',
        '--after',
        '1',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('zebrafish ledger importer');
      expect(run.stdout).toMatch(/segment 1 of 2/);
    });

    it('MCP session_context opens a hit before a compaction', async () => {
      const text = await mcpContext(ids.zebrafish);
      expect(text).toMatch(/▶ \[user\][^[]*zebrafish ledger importer/);
      expect(text).toMatch(/segment 1 of 2/);
    });
  });

  describe('what is printed of a hit shows its match, without terminal escapes', () => {
    it('memctl search --context shows the prompt at the end of a 3.4K merged user message', async () => {
      const ref = await reference('capybara');
      const run = await runMemctl(sandbox, [
        'search',
        '--context',
        ref,
        '--near',
        'capybara',
        '--before',
        '0',
        '--after',
        '0',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Find the capybara marker in the build log please.');
      // As the hit line prints it (its first matched word goes with the reference).
      const search = await runMemctl(sandbox, ['search', 'capybara']);
      expect(search.stdout).toMatch(/--context \S+ --near capybara/);
    });

    it('without --near the hit message is shown by its head and its tail, which holds the prompt', async () => {
      const run = await runMemctl(sandbox, [
        'search',
        '--context',
        await reference('capybara'),
        '--before',
        '0',
        '--after',
        '0',
      ]);
      expect(run.stdout).toContain('Find the capybara marker in the build log please.');
    });

    it('MCP session_context shows a long hit text around the query', async () => {
      const long = `${'ledger row checked; '.repeat(400)}the pangolin total is off by one`;
      expect(long.length).toBeGreaterThan(6_000);
      // The hit text is the prompt's own words: a plain string prompt longer than the hit's 6,000.
      const answer = await mcp.callTool({
        name: 'session_context',
        arguments: { session: SESSION_ID, uuid: ids.pangolin, before: 0, after: 0, query: 'pangolin' },
      });
      const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(answer.isError, text).not.toBe(true);
      expect(text).toContain('the pangolin total is off by one');
    });

    it('snippets, --context and MCP answers carry no terminal escapes', async () => {
      const hit = await hitFor('okapi');
      expect(hit.snippet).toContain('«okapi»');
      expect(hit.snippet).not.toContain(ESC);
      expect(hit.snippet).not.toContain('[2m');
      const search = await runMemctl(sandbox, ['search', 'okapi'], { NO_COLOR: '1' });
      expect(search.stdout).not.toContain('[2m');
      const run = await runMemctl(
        sandbox,
        ['search', '--context', await reference('okapi'), '--before', '0', '--after', '0'],
        { NO_COLOR: '1' },
      );
      expect(run.stdout).toContain('compiled the okapi module');
      expect(run.stdout).not.toContain(ESC);
      const text = await mcpContext(hit.uuid as string);
      expect(text).toContain('compiled the okapi module');
      expect(text).not.toContain(ESC);
      const answer = await mcp.callTool({ name: 'search_sessions', arguments: { query: 'okapi' } });
      expect(JSON.stringify(answer.content)).not.toContain('\\u001b');
    });
  });
});
