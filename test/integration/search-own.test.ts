/**
 * memd's own traffic is not what a search finds first (issue 28, item 6): its MCP calls and their
 * results and the context its SessionStart hook gave are indexed as kind `memd`, which searches
 * leave out unless asked for; a search never returns the turn in flight of the session it is asked
 * from (memctl and the MCP server read Claude Code's CLAUDE_CODE_SESSION_ID), nor of a session whose
 * turn the hooks hold open. An index built before (migration 21) is rebuilt so.
 */
import { appendFileSync } from 'node:fs';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { SearchQueryResult } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, type Line, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
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

const CWD = '/home/user/src/exporter';
/** A past session: memd's context, a prompt, memd's search call and its result, a memctl Bash call. */
const OWN = '5ea2c4f0-0000-4000-8000-00000000a028';
/** A session asking now: its last prompt is the turn in flight. */
const ASKING = '5ea2c4f0-0000-4000-8000-00000000b028';
/** A session whose turn the hooks hold open. */
const OPEN = '5ea2c4f0-0000-4000-8000-00000000c028';
const MEMD_CALL = 'toolu_memdquokka0001';
const BASH_CALL = 'toolu_bashquokka0001';
const MEMD_CONTEXT =
  'memd: context for this session after "startup" (id 0a1b2c3d).\n\n## Handoff\nThe quokka exporter work is half done: rows with empty ids still drop.';

interface OwnSession {
  writer: TranscriptWriter;
  context: string;
  prompt: string;
  call: string;
  bash: string;
  answer: string;
}

function ownSession(): OwnSession {
  const writer = new TranscriptWriter({ sessionId: OWN, cwd: CWD, version: '2.1.197' });
  const at = '2026-03-02T08:59:00.000Z';
  const context = writer.raw({
    parentUuid: null,
    isSidechain: false,
    attachment: {
      type: 'hook_additional_context',
      content: [MEMD_CONTEXT],
      hookName: 'SessionStart',
      toolUseID: 'SessionStart',
      hookEvent: 'SessionStart',
    },
    type: 'attachment',
    uuid: '5ea2c4f0-0000-4000-8000-0000000a0001',
    timestamp: at,
    cwd: CWD,
    sessionId: OWN,
    version: '2.1.197',
  }).uuid as string;
  const prompt = writer.prompt('Why does the quokka exporter drop rows?').uuid as string;
  const call = writer.response(
    [
      { type: 'text', text: 'Let me look in past sessions.' },
      { type: 'tool_use', id: MEMD_CALL, name: 'mcp__memd__search_sessions', input: { query: 'quokka exporter' } },
    ],
    growingUsage(0),
  ).entries[1]?.uuid as string;
  return { writer, context, prompt, call, bash: '', answer: '' };
}

/** The lines written after the daemon read the first ones: the result of memd's call comes in a later pass. */
function ownSessionRest(session: OwnSession): Line[] {
  const { writer } = session;
  const from = writer.lines.length;
  writer.toolResult(
    MEMD_CALL,
    '1 hit for "quokka exporter": the quokka exporter skips rows whose id is empty (session 1f2e…)',
  );
  session.bash = writer.response(
    [
      { type: 'text', text: 'And with memctl.' },
      { type: 'tool_use', id: BASH_CALL, name: 'Bash', input: { command: 'memctl search quokka' } },
    ],
    growingUsage(1),
  ).entries[1]?.uuid as string;
  writer.toolResult(BASH_CALL, 'no hits');
  session.answer = writer.response(
    [{ type: 'text', text: 'The quokka exporter drops rows with empty ids.' }],
    growingUsage(2),
  ).entries[0]?.uuid as string;
  return writer.lines.slice(from);
}

function twoTurns(
  sessionId: string,
  word: string,
  startMs: number,
): { writer: TranscriptWriter; past: string[]; inFlight: string[] } {
  const writer = new TranscriptWriter({ sessionId, cwd: CWD, version: '2.1.197', startMs });
  const past = [writer.prompt(`The ${word} schema changed last week.`).uuid as string];
  past.push(
    writer.response([{ type: 'text', text: `Noted: the ${word} schema changed.` }], growingUsage(0)).entries[0]
      ?.uuid as string,
  );
  const inFlight = [writer.prompt(`Find what we said about the ${word} schema.`).uuid as string];
  inFlight.push(
    writer.response([{ type: 'text', text: `Searching for ${word} notes.` }], growingUsage(1)).entries[0]
      ?.uuid as string,
  );
  return { writer, past, inFlight };
}

const uuids = (result: SearchQueryResult) => result.hits.map((hit) => hit.uuid);

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe("memd's own traffic and the turn in flight", () => {
  let sandbox: Sandbox;
  let client: Client;
  let own: OwnSession;
  let asking: ReturnType<typeof twoTurns>;
  let open: ReturnType<typeof twoTurns>;
  let daemon: DaemonProcess;

  const ownHits = async (kinds?: ['memd']) =>
    client.searchQuery({ query: 'quokka', sessionId: OWN, ...(kinds === undefined ? {} : { kinds }) });

  beforeAll(async () => {
    sandbox = makeSandbox();
    own = ownSession();
    const ownPath = mainPath(sandbox.projectsDir, CWD, OWN);
    writeTranscript(ownPath, own.writer);
    asking = twoTurns(ASKING, 'narwhal', Date.parse('2026-03-03T09:00:00.000Z'));
    writeTranscript(mainPath(sandbox.projectsDir, CWD, ASKING), asking.writer);
    open = twoTurns(OPEN, 'ibex', Date.parse('2026-03-04T09:00:00.000Z'));
    writeTranscript(mainPath(sandbox.projectsDir, CWD, OPEN), open.writer);
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    // Committed with memd's call, which is on the same pass.
    await eventually(
      async () => (await ownHits()).hits.some((hit) => hit.uuid === own.prompt),
      'the first lines to be indexed',
    );
    // The result of memd's call is written after its call was read, as Claude Code writes it live.
    appendFileSync(
      ownPath,
      ownSessionRest(own)
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    await eventually(
      async () => (await ownHits()).hits.some((hit) => hit.uuid === own.answer),
      'the rest of the session to be indexed',
    );
  });
  afterAll(() => client?.close());

  it("leaves memd's calls, their results and its SessionStart context out of a default search", async () => {
    const result = await ownHits();
    expect(result.hits.every((hit) => hit.kind !== 'memd')).toBe(true);
    expect(uuids(result)).not.toContain(own.context);
    expect(uuids(result)).not.toContain(own.call);
    expect(JSON.stringify(result.hits)).not.toContain('mcp__memd__');
    expect(JSON.stringify(result.hits)).not.toContain('skips rows whose id is empty');
    // The user's own lines are found, a memctl command they ran included.
    expect(uuids(result)).toEqual(expect.arrayContaining([own.prompt, own.bash, own.answer]));
  });

  it('gives them to a search that asks for kind memd', async () => {
    const result = await ownHits(['memd']);
    expect(result.hits.every((hit) => hit.kind === 'memd')).toBe(true);
    expect(uuids(result)).toEqual(expect.arrayContaining([own.context, own.call]));
    expect(result.hits.map((hit) => hit.snippet).join('\n')).toContain('skips rows whose id is empty');
    expect(result.hits).toHaveLength(3);
    const run = await runMemctl(sandbox, ['search', 'quokka', '--session', OWN, '--kind', 'memd', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as SearchQueryResult).hits).toHaveLength(3);
    const plain = await runMemctl(sandbox, ['search', 'quokka', '--session', OWN, '--json']);
    expect((JSON.parse(plain.stdout) as SearchQueryResult).hits.every((hit) => hit.kind !== 'memd')).toBe(true);
  });

  it('never returns the turn in flight of the session a search is asked from', async () => {
    const all = await client.searchQuery({ query: 'narwhal' });
    expect(uuids(all)).toEqual(expect.arrayContaining([...asking.past, ...asking.inFlight]));
    const asked = await client.searchQuery({ query: 'narwhal', askingSession: ASKING });
    expect(uuids(asked).sort()).toEqual([...asking.past].sort());
    // memctl run by the session's Bash tool, which Claude Code gives CLAUDE_CODE_SESSION_ID.
    const run = await runMemctl(sandbox, ['search', 'narwhal', '--json'], { CLAUDE_CODE_SESSION_ID: ASKING });
    expect(run.code, run.stderr).toBe(0);
    expect(uuids(JSON.parse(run.stdout) as SearchQueryResult).sort()).toEqual([...asking.past].sort());
  });

  it('the MCP server leaves out the turn in flight of the session Claude Code started it for', async () => {
    const env = Object.fromEntries(
      Object.entries({ ...sandbox.env, CLAUDE_CODE_SESSION_ID: ASKING }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
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
      const answer = await mcp.callTool({ name: 'search_sessions', arguments: { query: 'narwhal' } });
      const text = JSON.stringify(answer.content);
      for (const uuid of asking.past) expect(text).toContain(uuid);
      for (const uuid of asking.inFlight) expect(text).not.toContain(uuid);
    } finally {
      await mcp.close();
    }
  });

  it('never returns the turn in flight of a session whose turn the hooks hold open', async () => {
    const transcript = mainPath(sandbox.projectsDir, CWD, OPEN);
    const hookInput = JSON.stringify({
      session_id: OPEN,
      transcript_path: transcript,
      hook_event_name: 'UserPromptSubmit',
      cwd: CWD,
    });
    const start = await runMemctl(sandbox, ['hook', 'turn-start'], {}, hookInput);
    expect(start.code, start.stderr).toBe(0);
    const during = await client.searchQuery({ query: 'ibex' });
    expect(uuids(during).sort()).toEqual([...open.past].sort());
    const end = await runMemctl(
      sandbox,
      ['hook', 'turn-end'],
      {},
      JSON.stringify({ session_id: OPEN, transcript_path: transcript, hook_event_name: 'Stop', cwd: CWD }),
    );
    expect(end.code, end.stderr).toBe(0);
    await eventually(
      async () => (await client.searchQuery({ query: 'ibex' })).hits.length === 4,
      'the ended turn to be found again',
    );
  });

  it("rebuilds an index made before memd's traffic had its kind (migration 21)", async () => {
    await client.daemonShutdown({ reason: 'test: an older index' });
    await daemon.exited;
    client.close();
    const db = new Database(sandbox.dbPath);
    try {
      db.transaction(() => {
        // As memd before issue 28 indexed them: memd's call as a tool call, its result as an output.
        const rowids = db
          .prepare(
            'SELECT e.rowid FROM entries e JOIN files f ON f.id = e.file_id WHERE f.session_id = ? AND e.uuid = ?',
          )
          .pluck();
        const call = rowids.get(OWN, own.call) as number;
        db.prepare('DELETE FROM search_fts WHERE rowid = ?').run(call * 8 + 5);
        db.prepare('INSERT INTO search_fts (rowid, text) VALUES (?, ?)').run(
          call * 8 + 2,
          'mcp__memd__search_sessions quokka exporter',
        );
        db.pragma('user_version = 20');
      })();
    } finally {
      db.close();
    }
    daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(
      async () => (await client.searchQuery({ query: 'quokka', sessionId: OWN })).index.state === 'ready',
      'the index to be rebuilt',
    );
    await eventually(async () => (await ownHits(['memd'])).hits.length === 3, "memd's traffic to be indexed again");
    const result = await ownHits();
    expect(uuids(result)).not.toContain(own.call);
    expect(uuids(result)).toEqual(expect.arrayContaining([own.prompt, own.bash, own.answer]));
  });
});
