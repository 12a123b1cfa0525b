/**
 * The Neovim plugin (client/nvim) in a real headless Neovim against a real memd: the statusline
 * string, each command's buffer, :checkhealth memd, a threshold notification, reconnecting after
 * the daemon restarts (gracefully and after kill -9), and a socket that is not memd. The session
 * of the editor's directory is a recorded transcript whose cwd is rewritten to a sandbox dir.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client, type SessionSummary } from '../../client/index.js';
import { renderCompaction } from '../../client/memctl/commands/compact.js';
import { createOutput } from '../../client/memctl/output.js';
import { factsFromSummary } from '../../client/memctl/quick/statusline.js';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { formatStatusLine } from '../../shared/statusline/format.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects, FIXTURES } from '../helpers/ingest.js';
import { bufferLines, loadPlugin, notes, NVIM_PATH, NVIM_SKIP_REASON, startNvim, statusline, type Nvim } from '../helpers/nvim.js';
import { eventually, keepForFile, makeSandbox, runMemctl, startDaemon, type Sandbox } from '../helpers/sandbox.js';

/** The session of the editor's directory: it has compactions, so every segment of the line shows. */
const SCENARIO = 'compactions';
/** More recent sessions of other directories: the line must not take them. */
const OTHER_SCENARIOS = ['interactive', 'checkpoints'];
/** vim.log.levels. */
const LEVEL = { INFO: 2, WARN: 3, ERROR: 4 };
/** An editor that answers within this while a request hangs was not blocked by it. */
const RESPONSIVE_MS = 500;
/** Waits for the plugin: reconnects are at most this far apart in the restart tests. */
const FAST_BACKOFF = { backoff_initial_ms: 100, backoff_max_ms: 1000 };

interface Project {
  cwd: string;
  sessionId: string;
  model: string;
  transcript: string;
}

function prepareProjects(sandbox: Sandbox): Project {
  const recorded = manifest(SCENARIO);
  const cwd = join(sandbox.root, 'work', 'payments-api');
  mkdirSync(cwd, { recursive: true });
  const dir = join(sandbox.projectsDir, sanitizeProjectDirName(cwd));
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${recorded.sessionId}.jsonl`);
  writeFileSync(transcript, readFileSync(join(FIXTURES, SCENARIO, recorded.transcript), 'utf8').replaceAll(recorded.cwd, cwd));
  copyFixtureProjects(sandbox.projectsDir, OTHER_SCENARIOS);
  return { cwd, sessionId: recorded.sessionId, model: recorded.model, transcript };
}

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.sessions === 1 + OTHER_SCENARIOS.length;
}

/** An assistant response whose usage puts the session's context at `tokens`. */
function appendResponse(project: Project, uuid: string, tokens: number): void {
  const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: tokens - 110, output_tokens: 100 };
  const line = {
    parentUuid: null,
    isSidechain: false,
    type: 'assistant',
    uuid,
    timestamp: new Date().toISOString(),
    sessionId: project.sessionId,
    requestId: `req_${uuid}`,
    message: { id: `msg_${uuid}`, role: 'assistant', model: project.model, content: [{ type: 'text', text: 'done' }], usage },
  };
  appendFileSync(project.transcript, `${JSON.stringify(line)}\n`);
}

/** The line memctl statusline prints for the session (no colour), at each of the given clocks. */
function expectedLines(session: SessionSummary, columns: number, ...clocks: number[]): string[] {
  const facts = factsFromSummary(session, null);
  if (facts === null) throw new Error('sessions.get gave no summary');
  return clocks.map((now) => formatStatusLine(facts, { color: false, columns, now }));
}

function connectionState(nvim: Nvim): Promise<{ state: string; socket: string; last_error?: string }> {
  return nvim.lua(`local s = require('memd').status() return { state = s.state, socket = s.socket, last_error = s.last_error }`);
}

/** Neovim in `cwd`, the plugin loaded as a user's config would, and connected. */
async function editor(sandbox: Sandbox, cwd: string, setup: Record<string, number | string | boolean> = {}): Promise<Nvim> {
  const nvim = startNvim({ cwd, env: sandbox.env });
  await loadPlugin(nvim, setup);
  await eventually(async () => (await connectionState(nvim)).state === 'ready', 'the plugin to connect');
  return nvim;
}

/** The buffer's lines once `ready` holds; a timeout names what was seen and every notification. */
async function lines(nvim: Nvim, name: string, ready: (lines: string[]) => boolean): Promise<string[]> {
  let seen: string[] | null = null;
  try {
    await eventually(async () => {
      seen = await bufferLines(nvim, name);
      return seen !== null && ready(seen);
    }, `the buffer ${name}`);
  } catch (error) {
    throw new Error(`${String(error)}; last seen ${JSON.stringify(seen)}; notifications ${JSON.stringify(await notes(nvim))}`);
  }
  return seen ?? [];
}

function currentBuffer(nvim: Nvim): Promise<{ name: string; filetype: string; buftype: string; modifiable: boolean; windows: number; lines: string[] }> {
  return nvim.lua(`
    return { name = vim.api.nvim_buf_get_name(0), filetype = vim.bo.filetype, buftype = vim.bo.buftype, modifiable = vim.bo.modifiable,
      windows = #vim.api.nvim_tabpage_list_wins(0), lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
  `);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const title = (what: string) => (NVIM_PATH ? what : `${what} (${NVIM_SKIP_REASON})`);

describe.skipIf(!NVIM_PATH)(title('the Neovim plugin against a real memd'), () => {
  let sandbox: Sandbox;
  let project: Project;
  let client: Client;
  let daemonPid: number;

  beforeAll(async () => {
    sandbox = makeSandbox();
    project = prepareProjects(sandbox);
    const daemon = await startDaemon(sandbox);
    daemonPid = daemon.pid;
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
  });

  afterAll(() => client?.close());

  it('shows the context line of the editor’s directory’s session, as memctl statusline does', async () => {
    const nvim = await editor(sandbox, project.cwd);
    expect((await connectionState(nvim)).socket).toBe(sandbox.socketPath);
    await eventually(async () => (await statusline(nvim)) !== '', 'the line');
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const before = Date.now();
    const line = await statusline(nvim);
    const narrow = await statusline(nvim, 30);
    // As :help memd-statusline puts it in 'statusline'.
    const evaluated = await nvim.lua<string>(`return vim.api.nvim_eval_statusline("%{v:lua.require'memd'.statusline()}", { maxwidth = 300 }).str`);
    const evaluatedNarrow = await nvim.lua<string>(`return vim.api.nvim_eval_statusline("%=%{v:lua.require'memd'.statusline(30)}", { maxwidth = 300 }).str`);
    const after = Date.now();
    expect(expectedLines(session, 120, before, after)).toContain(line);
    expect(expectedLines(session, 30, before, after)).toContain(narrow);
    expect(evaluated).toBe(line);
    expect(evaluatedNarrow.trim()).toBe(narrow);
    expect(line).toMatch(/^▕[█░]{8}▏ \d+% until auto-compact · \d+K left · \d+ compactions? · mem - · \$\d+\.\d\d$/);

    // A directory without a session: empty; back in the project's: the line again.
    const elsewhere = join(sandbox.root, 'work', 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    await nvim.command(`cd ${elsewhere}`);
    await eventually(async () => (await statusline(nvim)) === '', 'an empty line elsewhere');
    await nvim.command(`cd ${project.cwd}`);
    await eventually(async () => (await statusline(nvim)) === line, 'the line back');
    expect(await nvim.close()).toBe(0);
    expect(isRunning(nvim.pid)).toBe(false);
  });

  it(':Memd status shows the daemon and the editor’s session in a scratch buffer', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await nvim.command('Memd status');
    const shown = await lines(nvim, 'memd://status', (text) => text[0]?.startsWith('memd ') === true);
    expect(shown[0]).toMatch(new RegExp(`^memd ${MEMD_VERSION.replaceAll('.', '\\.')} running \\(pid ${daemonPid}, up \\d`));
    expect(shown).toContain(`  socket    ${sandbox.socketPath}`);
    expect(shown).toContain(`  projects  ${sandbox.projectsDir}`);
    expect(shown.find((line) => line.startsWith('  ingest '))).toMatch(/^ {2}ingest {4}3 sessions, 3 files, \d+ entries, [\d.]+ KiB read$/);
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const head = `${project.sessionId.slice(0, 8)}  ${session.title}  `;
    const last = shown.at(-1) ?? '';
    expect(last.startsWith(head)).toBe(true);
    expect(expectedLines(session, 120, Date.now())).toContain(last.slice(head.length));
    expect(await currentBuffer(nvim)).toMatchObject({ name: 'memd://status', filetype: 'memd', buftype: 'nofile', modifiable: false, windows: 2 });
  });

  it(':Memd sessions lists every session, and <CR> opens one in full', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await nvim.command('Memd sessions');
    const shown = await lines(nvim, 'memd://sessions', (text) => text[0]?.startsWith('SESSION') === true);
    const { sessions } = await client.sessionsList({});
    expect(shown.slice(1).map((line) => line.slice(0, 8))).toEqual(sessions.map((session) => session.sessionId.slice(0, 8)));
    for (const [i, session] of sessions.entries()) {
      const row = shown[i + 1] ?? '';
      expect(row).toContain(`${session.title?.slice(0, 27)}`);
      // No extraction ran: the line has no age in it, so it is the same at any clock.
      expect(row.endsWith(expectedLines(session, 120, Date.now())[0] ?? '?'), row).toBe(true);
    }
    const row = shown.findIndex((line) => line.startsWith(project.sessionId.slice(0, 8))) + 1;
    expect(shown[row - 1]).toContain('payments-api');

    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${row}, 0 }) vim.cmd('execute "normal \\\\<CR>"')`);
    const name = `memd://session/${project.sessionId}`;
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const detail = await lines(nvim, name, (text) => text[0]?.startsWith(`${session.title}`) === true);
    expect(detail[0]).toBe(`${session.title}  ${project.sessionId}`);
    expect(detail).toContain(`  project   ${project.cwd} (${session.gitBranch})`);
    expect(detail).toContain(`  model     ${project.model}`);
    expect(detail.find((line) => line.startsWith('  compacted '))).toMatch(new RegExp(`^ {2}compacted ${session.compactions.count}×`));
    expect(detail.find((line) => line.startsWith('  line      '))).toBe(`  line      ${expectedLines(session, 120, Date.now())[0]}`);
    expect(detail.find((line) => line.startsWith('  total     '))).toContain(
      `${session.usage.total.assistantMessages} responses · in ${session.usage.total.input} · out ${session.usage.total.output}`,
    );
    expect(detail).toContain('  memory    no extraction yet · extractions cost $0.0000');
    // <CR> opened it in the sessions window, not another split.
    expect(await currentBuffer(nvim)).toMatchObject({ name, filetype: 'memd', windows: 2 });
  });

  it(':Memd summary shows the session memory in a split; with SESSION, that session’s', async () => {
    const nvim = await editor(sandbox, project.cwd);
    const extracted = await client.memoryExtract({ sessionId: project.sessionId });
    expect(extracted.text).not.toBeNull();
    await nvim.command('Memd summary');
    const shown = await lines(nvim, `memd://summary/${project.sessionId}`, (text) => text[0] === `session memory of ${project.sessionId}`);
    expect(shown.slice(0, 5)).toEqual([
      `session memory of ${project.sessionId}`,
      `  file       ${extracted.path}`,
      `  extracted  ${extracted.extractedAt} by the ${extracted.summarizer} summarizer`,
      `  covers     up to ${extracted.lastUuid}`,
      '',
    ]);
    expect(shown.slice(5)).toEqual((extracted.text ?? '').trimEnd().split('\n'));
    expect(await currentBuffer(nvim)).toMatchObject({ filetype: 'memd', buftype: 'nofile', windows: 2 });

    // A session named by a prefix, with no memory yet.
    const other = manifest('interactive').sessionId;
    await nvim.command(`Memd summary ${other.slice(0, 8)}`);
    const none = await lines(nvim, `memd://summary/${other.slice(0, 8)}`, (text) => text[0]?.startsWith('no session memory yet') === true);
    expect(none[0]).toContain(`no session memory yet for ${other}`);
    // The extraction reached the line through session.updated.
    await eventually(async () => /· mem \d+s ·/.test(await statusline(nvim)), 'the memory age in the line');
  });

  it(':Memd compact previews compact.auto: tokens before and after, and everything that would be lost', async () => {
    const nvim = await editor(sandbox, project.cwd);
    const transcriptBefore = readFileSync(project.transcript);
    await nvim.command('Memd compact');
    const shown = await lines(nvim, `memd://compact/${project.sessionId}`, (text) => text[0]?.includes(' compaction of ') === true);
    const result = await client.compactAuto({ sessionId: project.sessionId, force: true });
    const memctl = renderCompaction(result, createOutput({ NO_COLOR: '1' }));
    expect(shown[0]).toBe(`${result.method} compaction of ${project.sessionId} (a preview: the transcript is not changed)`);
    // The figures read as memctl compact prints them.
    expect(shown[1]).toBe(memctl[1]);
    expect(shown[2]).toBe(memctl[2]);
    expect(shown).toContain(memctl.find((line) => line.startsWith('  lost ')));
    const lost = [...result.lost.userMessages, ...result.lost.filePaths, ...result.lost.identifiers, ...result.lost.errors];
    for (const item of lost) expect(shown).toContain(`      - ${item.replace(/[\r\n]+/g, ' ')}`);
    if (result.summary !== null) expect(shown.slice(shown.indexOf('summary:') + 1)).toEqual(result.summary.split('\n'));
    expect(readFileSync(project.transcript).equals(transcriptBefore)).toBe(true);
  });

  it(':Memd handoff writes docs/handoff-context.md in the editor’s directory and opens it', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await nvim.command('Memd handoff');
    const path = join(project.cwd, 'docs', 'handoff-context.md');
    await eventually(async () => (await currentBuffer(nvim)).name === path, 'the handoff file in a window');
    const shown = await currentBuffer(nvim);
    expect(shown.lines).toEqual(readFileSync(path, 'utf8').replace(/\n$/, '').split('\n'));
    expect(shown.lines.join('\n')).toContain(project.sessionId);
    expect(shown.windows).toBe(2);
    // Again: the same window, read again from disk.
    await nvim.command('Memd handoff');
    await eventually(async () => (await notes(nvim)).filter((note) => note.message.includes('writing the handoff')).length === 2, 'the second handoff');
    await eventually(async () => (await currentBuffer(nvim)).lines.join('\n') === readFileSync(path, 'utf8').replace(/\n$/, ''), 'the file read again');
    expect((await currentBuffer(nvim)).windows).toBe(2);
  });

  it(':checkhealth memd reports the socket, the connection and the session', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await eventually(async () => (await statusline(nvim)) !== '', 'the line');
    await nvim.command('checkhealth memd');
    const report = (await currentBuffer(nvim)).lines.join('\n');
    expect(report).toContain(`socket ${sandbox.socketPath} (from $XDG_RUNTIME_DIR)`);
    expect(report).toMatch(new RegExp(`OK:? connected to memd ${MEMD_VERSION.replaceAll('.', '\\.')} \\(protocol 1, \\d+ capabilities\\)`));
    expect(report).toContain(`session ${project.sessionId.slice(0, 8)} of ${project.cwd}: ▕`);
    expect(report).not.toMatch(/ERROR|WARNING/);
  });

  it('answers bad input with a clear message, never a Lua error', async () => {
    const nvim = await editor(sandbox, project.cwd);
    for (const command of ['Memd', 'Memd bogus', 'Memd status extra', 'Memd summary ../etc/passwd', 'Memd compact a b', 'Memd search invoices']) await nvim.command(command);
    await nvim.command('Memd summary 00000000-0000-0000-0000-000000000000');
    await eventually(async () => (await notes(nvim)).length === 7, 'seven messages');
    const messages = (await notes(nvim)).map((note) => `${note.level} ${note.message}`);
    expect(messages.slice(0, 6)).toEqual([
      `${LEVEL.ERROR} memd: use :Memd status, :Memd sessions, :Memd summary [SESSION], :Memd handoff [SESSION], :Memd compact [SESSION]`,
      `${LEVEL.ERROR} memd: unknown subcommand bogus; use :Memd status, :Memd sessions, :Memd summary [SESSION], :Memd handoff [SESSION], :Memd compact [SESSION]`,
      `${LEVEL.ERROR} memd: :Memd status takes no arguments`,
      `${LEVEL.ERROR} memd: not a session id: ../etc/passwd`,
      `${LEVEL.ERROR} memd: :Memd compact takes at most one SESSION`,
      `${LEVEL.ERROR} memd: search is not served by this memd yet (see :help memd-search)`,
    ]);
    expect(messages[6]).toMatch(/^4 memd: memory\.summary: .*00000000-0000-0000-0000-000000000000/);
    const failed = await bufferLines(nvim, 'memd://summary/00000000-0000-0000-0000-000000000000');
    expect(failed?.[0]).toMatch(/^memd: memory\.summary failed: /);

    const setupError = (options: string) => nvim.lua<string>(`local ok, err = pcall(require('memd').setup, ${options}) return ok and 'ok' or err`);
    expect(await setupError('{ bogus = 1 }')).toBe('memd: unknown option bogus (see :help memd-options)');
    expect(await setupError("{ notify = 'loud' }")).toBe(`memd: option notify takes 'cwd', 'all' or false, not "loud"`);
    expect(await setupError('{ backoff_initial_ms = -1 }')).toBe('memd: option backoff_initial_ms takes a number of milliseconds (1 or more), not -1');
    expect(await setupError("'socket'")).toBe('memd: setup() takes a table of options');
    // Still connected, still answering.
    expect((await connectionState(nvim)).state).toBe('ready');
    expect(await statusline(nvim)).not.toBe('');
  });
});

describe.skipIf(!NVIM_PATH)(title('the Neovim plugin when memd changes'), () => {
  it('notifies when the editor’s session crosses a threshold, and the line follows session.updated', async () => {
    const sandbox = makeSandbox();
    const project = prepareProjects(sandbox);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      // No timer refresh within the test: only events can change the line.
      const nvim = await editor(sandbox, project.cwd, { refresh_ms: 600_000 });
      await eventually(async () => (await statusline(nvim)) !== '', 'the line');
      expect(await statusline(nvim)).toContain('until auto-compact');
      appendResponse(project, 'nvim-threshold-1', 170_110);
      await eventually(async () => (await notes(nvim)).some((note) => note.message.includes('went from ok to autocompact')), 'the notification');
      const note = (await notes(nvim)).find((candidate) => candidate.message.includes('went from ok to autocompact'));
      const { title } = await client.sessionsGet({ sessionId: project.sessionId });
      expect(note?.level).toBe(LEVEL.ERROR);
      expect(note?.message).toBe(`memd: session ${project.sessionId.slice(0, 8)} (${title}) went from ok to autocompact: ▕████████▏ 0% until auto-compact · 0 left`);
      await eventually(async () => (await statusline(nvim)).includes('0% until auto-compact · 0 left'), 'the line to follow');
    } finally {
      client.close();
    }
  });

  it('is empty while memd is down and reconnects, and subscribes again, when it restarts (stopped or killed)', async () => {
    const sandbox = makeSandbox();
    const project = prepareProjects(sandbox);
    const nvim = startNvim({ cwd: project.cwd, env: sandbox.env });
    await loadPlugin(nvim, { ...FAST_BACKOFF, refresh_ms: 600_000 });
    await eventually(async () => (await connectionState(nvim)).state === 'waiting', 'a failed first attempt');
    expect(await statusline(nvim)).toBe('');
    expect((await connectionState(nvim)).last_error).toBe(`cannot connect to ${sandbox.socketPath}: ENOENT (memd is not running)`);

    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      let daemon = await startDaemon(sandbox);
      await eventually(() => caughtUp(client), 'ingest to catch up');
      await eventually(async () => (await statusline(nvim)) !== '', 'the line once memd runs');

      // A graceful stop: daemon.stopping, then the socket goes.
      expect((await runMemctl(sandbox, ['stop'])).code).toBe(0);
      await daemon.exited;
      await eventually(async () => (await statusline(nvim)) === '', 'an empty line after the stop');
      expect((await connectionState(nvim)).last_error).toMatch(/^memd is stopping|^cannot connect to .*\(memd is not running\)$/);
      daemon = await startDaemon(sandbox);
      await eventually(async () => (await statusline(nvim)) !== '', 'the line after a restart');
      // Subscribed again: an append reaches the line with no refresh.
      appendResponse(project, 'nvim-restart-1', 100_110);
      await eventually(async () => (await statusline(nvim)).includes('· 67K left ·'), `the line after an append (${await statusline(nvim)})`);

      // kill -9: no daemon.stopping, the socket just closes.
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      await eventually(async () => (await statusline(nvim)) === '', 'an empty line after kill -9');
      await startDaemon(sandbox);
      await eventually(async () => (await statusline(nvim)).includes('· 67K left ·'), 'the line after kill -9 and a restart');
    } finally {
      client.close();
    }
    expect(await nvim.close()).toBe(0);
    expect(isRunning(nvim.pid)).toBe(false);
  });

  it('treats a socket that is not memd as no memd, and never waits on it', async () => {
    const sandbox = makeSandbox();
    mkdirSync(sandbox.runtimeDir, { recursive: true, mode: 0o700 });
    // Each connection gets the next answer: not JSON, a version that is not memd's, an endless line, silence.
    const answers: ((socket: Socket, id: unknown) => void)[] = [
      (socket) => socket.write('hello\n'),
      (socket, id) => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: { name: 'other', version: '1', protocol: 1, capabilities: [] } })}\n`),
      (socket) => socket.write(Buffer.alloc(17 * 1024 * 1024, 0x61)),
      () => undefined,
    ];
    let connections = 0;
    const server: Server = createServer((socket) => {
      socket.on('error', () => undefined);
      // The first line is the plugin's daemon.version request.
      socket.once('data', (chunk: Buffer) => answers[Math.min(connections++, answers.length - 1)]?.(socket, (JSON.parse(chunk.toString().split('\n')[0] ?? '') as { id: unknown }).id));
    });
    await new Promise<void>((resolve) => server.listen(sandbox.socketPath, resolve));
    try {
      const nvim = startNvim({ cwd: sandbox.root, env: sandbox.env });
      await loadPlugin(nvim, { ...FAST_BACKOFF, request_timeout_ms: 300 });
      const errors = new Set<string>();
      await eventually(async () => {
        const { last_error: error } = await connectionState(nvim);
        if (error !== undefined) errors.add(error);
        return errors.size >= 4;
      }, 'four failures').catch((error) => {
        throw new Error(`${String(error)}: ${JSON.stringify([...errors])}`);
      });
      expect([...errors]).toEqual([
        'memd sent a line that is not JSON',
        'daemon.version failed: version.name should be one of memd, not other',
        'memd sent a message over 16 MiB',
        'daemon.version failed: no answer from memd within 0.3 s',
      ]);
      expect(await statusline(nvim)).toBe('');
      // A command while the socket is silent: the editor goes on answering until the request times out.
      await nvim.lua(`require('memd').setup({ request_timeout_ms = 1500 })`);
      await nvim.command('Memd status');
      await eventually(async () => (await connectionState(nvim)).state === 'connecting', 'a connection waiting on the silent socket');
      const asked = Date.now();
      expect(await nvim.lua('return 1 + 1')).toBe(2);
      expect(await statusline(nvim)).toBe('');
      expect(Date.now() - asked).toBeLessThan(RESPONSIVE_MS);
      expect((await connectionState(nvim)).state).toBe('connecting');
      await lines(nvim, 'memd://status', (text) => text[0] === 'memd: daemon.status failed: daemon.version failed: no answer from memd within 1.5 s');
    } finally {
      server.close();
    }
  });
});
