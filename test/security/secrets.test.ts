/**
 * Secrets in transcripts (issue 27): a session whose prompts, replies, tool calls and outputs hold
 * a fake secret of every shape memd redacts, read by a real daemon; then every channel through
 * which memd hands text out (RPC answers, MCP tools, hooks and their no-daemon fallback, the
 * handoff file in the repo, exports, the CLI, the status line) is checked to show none of the
 * values and to show the `[redacted …]` marker, and a search for each value finds nothing.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { ExportFormat } from '../../shared/protocol/export.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  MEMCTL_MAIN,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';
import { ALL_SECRETS, SECRET_SAMPLES } from '../helpers/secrets.js';

const SESSION_ID = '5ec2e7a1-0000-4000-8000-000000000027';
const MARKER = '[redacted ';

/** Names the secret values an output shows; [] when it shows none. */
function leaked(text: string): string[] {
  return ALL_SECRETS.filter((secret) => text.includes(secret));
}

/** An output shows no secret value, and shows that something was redacted. */
function expectRedacted(channel: string, text: string, marker = MARKER): void {
  expect(leaked(text), `${channel} shows secret values`).toEqual([]);
  expect(text, `${channel} shows the redaction marker`).toContain(marker);
}

/** The session: a first prompt (its title) with secrets, then each sample typed as a rule, run, printed and quoted back. */
function writeSession(projectsDir: string, cwd: string): string {
  const writer = new TranscriptWriter({ sessionId: SESSION_ID, cwd, version: '2.1.38' });
  writer.prompt(
    `Deploy with PGPASSWORD=pgHunter2pass and GITHUB_TOKEN=ghp_FakeToken0123456789abcdefghijklmnopq then check sk_live_FakeStripeLive0123456789`,
  );
  SECRET_SAMPLES.forEach((sample, n) => {
    writer.prompt(`Always use this setting: ${sample.text}`);
    writer.toolRound(
      'Bash',
      { command: `echo '${sample.text}'`, description: `check ${sample.shape}` },
      `config:\n${sample.text}\ndone`,
      growingUsage(n),
      `I will use ${sample.text} as you said.`,
    );
  });
  writer.response(
    [{ type: 'text', text: `All set. For the record:\n${SECRET_SAMPLES.map((sample) => sample.text).join('\n')}` }],
    growingUsage(SECRET_SAMPLES.length),
  );
  const path = mainPath(projectsDir, cwd, SESSION_ID);
  writeTranscript(path, writer);
  return path;
}

async function exported(client: Client, format: ExportFormat, redact?: boolean): Promise<string> {
  const pieces: Buffer[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.exportSession({
      sessionId: SESSION_ID,
      format,
      ...(redact === undefined ? {} : { redact }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    pieces.push(Buffer.from(page.content, page.encoding === 'base64' ? 'base64' : 'utf8'));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return Buffer.concat(pieces).toString('utf8');
}

function hookStdin(event: 'PreCompact' | 'SessionStart', cwd: string, transcript: string): string {
  const common = { session_id: SESSION_ID, transcript_path: transcript, cwd, hook_event_name: event };
  return JSON.stringify(
    event === 'PreCompact'
      ? { ...common, trigger: 'manual', custom_instructions: '' }
      : { ...common, source: 'compact' },
  );
}

describe('secrets in a transcript reach no output (issue 27)', () => {
  let sandbox: Sandbox;
  let daemon: DaemonProcess;
  let client: Client;
  let cwd: string;
  let transcript: string;
  let mcp: McpClient;

  beforeAll(async () => {
    sandbox = makeSandbox();
    cwd = join(sandbox.root, 'app');
    mkdirSync(cwd);
    transcript = writeSession(sandbox.projectsDir, cwd);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const status = await client.daemonStatus();
      return (
        status.ingest.progress.state === 'live' &&
        status.ingest.progress.filesPending === 0 &&
        status.ingest.stats.files >= 1
      );
    }, 'the session to be indexed');
    await eventually(
      async () => (await client.searchQuery({ query: 'redacted' })).hits.length > 0,
      'the search index to hold the session',
      20_000,
    );
    await client.memoryExtract({ sessionId: SESSION_ID });
    await client.memdirWrite({
      project: cwd,
      name: 'deploy',
      type: 'project',
      description: 'how to deploy',
      content: `Deploy with ${SECRET_SAMPLES[3]?.text ?? ''}`,
      ifMatch: null,
    });
    const env = Object.fromEntries(
      Object.entries(sandbox.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    mcp = new McpClient({ name: 'memd-secrets-test', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({ command: process.execPath, args: [MEMCTL_MAIN, 'mcp'], env, cwd, stderr: 'pipe' }),
    );
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    client?.close();
  });

  /** The MCP tool's text answer (an error fails the test). */
  async function tool(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await mcp.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('\n');
    expect(result.isError === true, text).toBe(false);
    return text;
  }

  it('the fixture holds every shape, unredacted, in the transcript itself', () => {
    const raw = readFileSync(transcript, 'utf8');
    // Escaped as JSON strings: the private key's line breaks are `\n` there.
    for (const secret of ALL_SECRETS)
      expect(raw.includes(secret) || raw.includes(JSON.stringify(secret).slice(1, -1)), secret).toBe(true);
  });

  it('titles: sessions.list, sessions.get, search hits', async () => {
    const list = await client.sessionsList({});
    const session = list.sessions.find((candidate) => candidate.sessionId === SESSION_ID);
    expectRedacted('sessions.list title', session?.title ?? '');
    expectRedacted('sessions.get', JSON.stringify(await client.sessionsGet({ sessionId: SESSION_ID })));
    const hits = await client.searchQuery({ query: 'deploy' });
    expect(hits.hits.length).toBeGreaterThan(0);
    expectRedacted('search.query hits', JSON.stringify(hits));
  });

  it('search: no secret value finds a line, and snippets and search.context show none', async () => {
    for (const secret of ALL_SECRETS) {
      const phrase = await client.searchQuery({ query: `"${secret.replaceAll('"', '')}"` });
      expect(phrase.hits, `a search for ${secret}`).toEqual([]);
    }
    const hits = await client.searchQuery({ query: 'redacted', limit: 50 });
    expectRedacted('search.query snippets', hits.hits.map((hit) => hit.snippet ?? '').join('\n'), '[«redacted» ');
    const hit = hits.hits.find((candidate) => candidate.uuid !== null);
    const context = await client.searchContext({ sessionId: SESSION_ID, uuid: hit?.uuid ?? '', before: 50, after: 50 });
    expectRedacted('search.context', JSON.stringify(context));
  });

  it('the handoff: the file in the repo, its answer (text, pinned, facts), handoff.read, SessionStart context', async () => {
    const generated = await client.handoffGenerate({ sessionId: SESSION_ID, cwd });
    expectRedacted('handoff.generate', JSON.stringify(generated));
    expect(generated.pinned).not.toBe('');
    expectRedacted('handoff.generate pinned', generated.pinned);
    expectRedacted('the handoff file', readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8'));
    expectRedacted('handoff.read', JSON.stringify(await client.handoffRead({ cwd })));
    const start = await client.handoffSessionStart({ sessionId: SESSION_ID, cwd, source: 'compact' });
    expectRedacted('handoff.sessionStart', start.additionalContext ?? '');
  });

  it('the hooks: pre-compact prints the pinned rules, session-start the context', async () => {
    const pre = await runMemctl(sandbox, ['hook', 'pre-compact'], {}, hookStdin('PreCompact', cwd, transcript));
    expect(pre.code).toBe(0);
    expectRedacted('hook pre-compact stdout', pre.stdout);
    expectRedacted('the handoff file after the hook', readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8'));
    const start = await runMemctl(sandbox, ['hook', 'session-start'], {}, hookStdin('SessionStart', cwd, transcript));
    expectRedacted('hook session-start stdout', start.stdout);
  });

  it('every MCP tool', async () => {
    expectRedacted('MCP search_sessions', await tool('search_sessions', { query: 'redacted', limit: 30 }));
    const hit = (await client.searchQuery({ query: 'redacted' })).hits.find((candidate) => candidate.uuid !== null);
    expectRedacted(
      'MCP session_context',
      await tool('session_context', { session: SESSION_ID, uuid: hit?.uuid ?? '', before: 10, after: 10 }),
    );
    expectRedacted('MCP list_sessions', await tool('list_sessions', {}));
    expectRedacted('MCP handoff', await tool('handoff', { cwd }));
    expectRedacted('MCP session_memory', await tool('session_memory', { session: SESSION_ID }));
    expectRedacted('MCP project_memory', await tool('project_memory', { action: 'read', name: 'deploy' }));
  });

  it('exports: md and html redacted by default and unredacted on request; jsonl byte for byte', async () => {
    for (const format of ['md', 'html'] as const) {
      expectRedacted(`export ${format}`, await exported(client, format));
      // The switch works: the same report without redaction holds the values.
      expect(leaked(await exported(client, format, false)).length, `export ${format} redact: false`).toBeGreaterThan(0);
    }
    expect(await exported(client, 'jsonl')).toBe(readFileSync(transcript, 'utf8'));
    // A page of a redacted export is never stitched to pages of an unredacted one.
    const first = await client.exportSession({ sessionId: SESSION_ID, format: 'md', maxBytes: 1024 });
    await expect(
      client.exportSession({
        sessionId: SESSION_ID,
        format: 'md',
        maxBytes: 1024,
        cursor: first.nextCursor ?? '',
        redact: false,
      }),
    ).rejects.toMatchObject({ kind: 'BadCursor' });
    const out = join(sandbox.root, 'export.md');
    expect((await runMemctl(sandbox, ['export', SESSION_ID, '--out', out])).code).toBe(0);
    expectRedacted('memctl export', readFileSync(out, 'utf8'));
    expect((await runMemctl(sandbox, ['export', SESSION_ID, '--no-redact', '--out', out])).code).toBe(0);
    expect(leaked(readFileSync(out, 'utf8')).length, 'memctl export --no-redact').toBeGreaterThan(0);
  });

  it('the CLI and the status line', async () => {
    const search = await runMemctl(sandbox, ['search', 'deploy']);
    expectRedacted('memctl search', search.stdout);
    // The table cuts titles to its column; --json has them whole.
    expect(leaked((await runMemctl(sandbox, ['sessions'])).stdout), 'memctl sessions').toEqual([]);
    expectRedacted('memctl sessions --json', (await runMemctl(sandbox, ['sessions', '--json'])).stdout);
    const status = await runMemctl(sandbox, ['status']);
    expect(leaked(status.stdout), 'memctl status').toEqual([]);
    const line = await runMemctl(
      sandbox,
      ['statusline'],
      {},
      JSON.stringify({ session_id: SESSION_ID, model: { id: 'claude-sonnet-4-5-20250929' } }),
    );
    expect(line.code).toBe(0);
    expect(leaked(line.stdout), 'memctl statusline').toEqual([]);
  });

  it('the hooks without a daemon: the fallback handoff and its SessionStart context', async () => {
    const alone = join(sandbox.root, 'alone');
    mkdirSync(alone);
    const env = { MEMD_SOCKET: join(sandbox.root, 'nothing-here.sock') };
    const pre = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'pre-compact'],
      env,
      hookStdin('PreCompact', alone, transcript),
    );
    expect(pre.code).toBe(0);
    const file = readFileSync(join(alone, 'docs', 'handoff-context.md'), 'utf8');
    expect(file).toContain('HANDOFF_AUTO_PARTIAL');
    expectRedacted('the fallback handoff file', file);
    const start = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'session-start'],
      env,
      hookStdin('SessionStart', alone, transcript),
    );
    expectRedacted('the fallback session-start', start.stdout);
    rmSync(alone, { recursive: true, force: true });
  });
});
