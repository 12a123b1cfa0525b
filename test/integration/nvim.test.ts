/**
 * The Neovim plugin (client/nvim) in a real headless Neovim against a real memd: the statusline
 * string, each command's buffer, :checkhealth memd and bad input. The session of the editor's
 * directory is a recorded transcript whose cwd is rewritten to a sandbox dir (nvim-session.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createOutput } from '../../client/memctl/output.js';
import { renderCompaction } from '../../client/memctl/views/compaction.js';
import { renderSessionDetail } from '../../client/memctl/views/session-detail.js';
import { renderSessionTable } from '../../client/memctl/views/sessions.js';
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';
import { Methods } from '../../shared/protocol/methods.js';
import { forecastLines } from '../../shared/statusline/forecast.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { createClient, scoreCompactions } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { bufferLines, NVIM_PATH, notes, statusline } from '../helpers/nvim.js';
import {
  caughtUp,
  connectionState,
  currentBuffer,
  editor,
  expectedLines,
  isRunning,
  LEVEL,
  lines,
  type Project,
  prepareProjects,
  title,
} from '../helpers/nvim-session.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const FORECAST_HEAD = '  forecast  ';

function usageStatus(client: Client, sessionId: string): Promise<UsageStatusResult> {
  return client.call(Methods.usageStatus, { sessionId }) as Promise<UsageStatusResult>;
}

/** The forecast lines the plugin ends a session with (forecast.lua's view_lines), from the shared words. */
function forecastView(result: UsageStatusResult): string[] {
  return forecastLines(result, Date.now()).flatMap((line, i) => [
    `${i === 0 ? FORECAST_HEAD : ' '.repeat(FORECAST_HEAD.length)}${line.text} [${line.provenance}]`,
    `              ${line.basis}`,
  ]);
}

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
    await scoreCompactions(client);
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
    const evaluated = await nvim.lua<string>(
      `return vim.api.nvim_eval_statusline("%{v:lua.require'memd'.statusline()}", { maxwidth = 300 }).str`,
    );
    const evaluatedNarrow = await nvim.lua<string>(
      `return vim.api.nvim_eval_statusline("%=%{v:lua.require'memd'.statusline(30)}", { maxwidth = 300 }).str`,
    );
    const after = Date.now();
    expect(expectedLines(session, 120, before, after)).toContain(line);
    expect(expectedLines(session, 30, before, after)).toContain(narrow);
    expect(evaluated).toBe(line);
    expect(evaluatedNarrow.trim()).toBe(narrow);
    // claude-opus-4-8 at 1M with no auto-compact window: Claude Code's "context used" (reactive mode, issue 28).
    expect(line).toMatch(
      /^▕[█░]{8}▏ \d+% context used · \d+K left · \d+ compactions? · last compaction kept \d+\/\d+ · mem - · \$\d+\.\d\d$/,
    );

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
    // The forecasts (usage.status, issue 31) come after the daemon's answer, under the session's line.
    const shown = await lines(
      nvim,
      'memd://status',
      (text) => text[0]?.startsWith('memd ') === true && text.some((line) => line.startsWith(FORECAST_HEAD)),
    );
    expect(shown[0]).toMatch(
      new RegExp(`^memd ${MEMD_VERSION.replaceAll('.', '\\.')} running \\(pid ${daemonPid}, up \\d`),
    );
    expect(shown).toContain(`  socket    ${sandbox.socketPath}`);
    expect(shown).toContain(`  projects  ${sandbox.projectsDir}`);
    expect(shown.find((line) => line.startsWith('  ingest '))).toMatch(
      /^ {2}ingest {4}3 sessions, 3 files, \d+ entries, [\d.]+ KiB read$/,
    );
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const head = `${project.sessionId.slice(0, 8)}  ${session.title}  `;
    const forecasts = shown.findIndex((line) => line.startsWith(FORECAST_HEAD));
    expect(shown.slice(forecasts)).toEqual(forecastView(await usageStatus(client, project.sessionId)));
    const last = shown[forecasts - 1] ?? '';
    expect(last.startsWith(head)).toBe(true);
    expect(expectedLines(session, 120, Date.now())).toContain(last.slice(head.length));
    expect(await currentBuffer(nvim)).toMatchObject({
      name: 'memd://status',
      filetype: 'memd',
      buftype: 'nofile',
      modifiable: false,
      windows: 2,
    });
  });

  it(':Memd sessions lists every session, and <CR> opens one in full', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await nvim.command('Memd sessions');
    const shown = await lines(nvim, 'memd://sessions', (text) => text[0]?.startsWith('SESSION') === true);
    const { sessions } = await client.sessionsList({});
    expect(shown.slice(1).map((line) => line.slice(0, 8))).toEqual(
      sessions.map((session) => session.sessionId.slice(0, 8)),
    );
    // The columns memctl sessions has, COST among them (issue 29).
    expect(shown[0]).toBe(renderSessionTable(sessions, createOutput({ NO_COLOR: '1' }))[0]?.replace(/ +$/, ''));
    for (const [i, session] of sessions.entries()) {
      const row = shown[i + 1] ?? '';
      expect(row).toContain(`${session.title?.slice(0, 27)}`);
      const cost = session.usage.total.costUsd === null ? '?' : `$${session.usage.total.costUsd.toFixed(2)}`;
      // No extraction ran: the line has no age in it, so it is the same at any clock.
      expect(row.endsWith(`${cost.padStart(7)}  ${expectedLines(session, 120, Date.now())[0] ?? '?'}`), row).toBe(true);
    }
    const row = shown.findIndex((line) => line.startsWith(project.sessionId.slice(0, 8))) + 1;
    expect(shown[row - 1]).toContain('payments-api');

    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${row}, 0 }) vim.cmd('execute "normal \\\\<CR>"')`);
    const name = `memd://session/${project.sessionId}`;
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const detail = await lines(
      nvim,
      name,
      (text) => text[0]?.startsWith(`${session.title}`) === true && text.some((line) => line.startsWith(FORECAST_HEAD)),
    );
    // The session's forecasts end the view, each with its provenance and its basis (issue 31).
    expect(detail.slice(detail.findIndex((line) => line.startsWith(FORECAST_HEAD)))).toEqual(
      forecastView(await usageStatus(client, project.sessionId)),
    );
    expect(detail[0]).toBe(`${session.title}  ${project.sessionId}`);
    expect(detail).toContain(`  project   ${project.cwd} (${session.gitBranch})`);
    expect(detail).toContain(`  model     ${project.model}`);
    expect(detail.find((line) => line.startsWith('  compacted '))).toMatch(
      new RegExp(`^ {2}compacted ${session.compactions.count}×`),
    );
    expect(detail.find((line) => line.startsWith('  line      '))).toBe(
      `  line      ${expectedLines(session, 120, Date.now())[0]}`,
    );
    // The context bar and the limits as memctl status prints them: claude-opus-4-8 with no
    // auto-compact window compacts when the API refuses, at the window (reactive mode, issue 28).
    const memctl = renderSessionDetail(session, createOutput({ NO_COLOR: '1' }));
    for (const head of ['  context   ', '  state     '])
      expect(detail.find((line) => line.startsWith(head))).toBe(memctl.find((line) => line.startsWith(head)));
    expect(detail.find((line) => line.startsWith('  context   '))).toMatch(/% context used · \d+K\/1\.0M, \d+K left$/);
    expect(detail.find((line) => line.startsWith('  state     '))).toMatch(
      / · compacts when the API refuses the request \(at the window\) · window 1\.0M$/,
    );
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
    const shown = await lines(
      nvim,
      `memd://summary/${project.sessionId}`,
      (text) => text[0] === `session memory of ${project.sessionId}`,
    );
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
    const none = await lines(
      nvim,
      `memd://summary/${other.slice(0, 8)}`,
      (text) => text[0]?.startsWith('no session memory yet') === true,
    );
    expect(none[0]).toContain(`no session memory yet for ${other}`);
    // The extraction reached the line through session.updated.
    await eventually(async () => /· mem \d+s ·/.test(await statusline(nvim)), 'the memory age in the line');
  });

  it(':Memd compact previews compact.auto: tokens before and after, and everything that would be lost', async () => {
    const nvim = await editor(sandbox, project.cwd);
    const transcriptBefore = readFileSync(project.transcript);
    await nvim.command('Memd compact');
    const shown = await lines(
      nvim,
      `memd://compact/${project.sessionId}`,
      (text) => text[0]?.includes(' compaction of ') === true,
    );
    const result = await client.compactAuto({ sessionId: project.sessionId, force: true });
    const memctl = renderCompaction(result, createOutput({ NO_COLOR: '1' }));
    expect(shown[0]).toBe(
      `${result.method} compaction of ${project.sessionId} (a preview: the transcript is not changed)`,
    );
    // The figures read as memctl compact prints them.
    expect(shown[1]).toBe(memctl[1]);
    expect(shown[2]).toBe(memctl[2]);
    expect(shown).toContain(memctl.find((line) => line.startsWith('  lost ')));
    const lost = [
      ...result.lost.userMessages,
      ...result.lost.filePaths,
      ...result.lost.identifiers,
      ...result.lost.errors,
    ];
    for (const item of lost) expect(shown).toContain(`      - ${item.replace(/[\r\n]+/g, ' ')}`);
    // The survival score (issue 32) and the lost facts named, as memctl compact prints them.
    const survival = memctl.slice(memctl.findIndex((line) => line.startsWith('  survival ')));
    expect(survival[0]).toMatch(/^ {2}survival \d+\/\d+ facts kept/);
    expect(
      shown.slice(shown.indexOf(survival[0] as string), shown.indexOf(survival[0] as string) + survival.length),
    ).toEqual(survival);
    if (result.summary !== null) expect(shown.slice(shown.indexOf('summary:') + 1)).toEqual(result.summary.split('\n'));
    expect(readFileSync(project.transcript).equals(transcriptBefore)).toBe(true);
  });

  it("shows the survival score of Claude Code's last compaction in the session view and the line (issue 32)", async () => {
    const nvim = await editor(sandbox, project.cwd);
    const session = {
      ...(await client.sessionsGet({ sessionId: project.sessionId })),
      lastCompaction: { kept: 41, lost: 2, recordedAt: '2026-12-05T12:00:00.000Z' },
    };
    const detail = await nvim.lua<string[]>(
      `
      local session = vim.json.decode(..., { luanil = { object = true, array = true } })
      local problem = require('memd.validate').problem('session', session)
      if problem ~= nil then return { problem } end
      return require('memd.views').session_detail(session, 0)
      `,
      JSON.stringify(session),
    );
    expect(detail).toContain("  survival  41/43 facts kept by the last compaction's summary");
    expect(detail.find((line) => line.startsWith('  line      '))).toContain('last compaction kept 41/43');
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
    await eventually(
      async () => (await notes(nvim)).filter((note) => note.message.includes('writing the handoff')).length === 2,
      'the second handoff',
    );
    await eventually(
      async () => (await currentBuffer(nvim)).lines.join('\n') === readFileSync(path, 'utf8').replace(/\n$/, ''),
      'the file read again',
    );
    expect((await currentBuffer(nvim)).windows).toBe(2);
  });

  it(':checkhealth memd reports the socket, the connection and the session', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await eventually(async () => (await statusline(nvim)) !== '', 'the line');
    await nvim.command('checkhealth memd');
    const report = (await currentBuffer(nvim)).lines.join('\n');
    expect(report).toContain(`socket ${sandbox.socketPath} (from $XDG_RUNTIME_DIR)`);
    expect(report).toMatch(
      new RegExp(`OK:? connected to memd ${MEMD_VERSION.replaceAll('.', '\\.')} \\(protocol 1, \\d+ capabilities\\)`),
    );
    expect(report).toContain(`session ${project.sessionId.slice(0, 8)} of ${project.cwd}: ▕`);
    expect(report).not.toMatch(/ERROR|WARNING/);
  });

  it('answers bad input with a clear message, never a Lua error', async () => {
    const nvim = await editor(sandbox, project.cwd);
    for (const command of [
      'Memd',
      'Memd bogus',
      'Memd status extra',
      'Memd summary ../etc/passwd',
      'Memd compact a b',
      'Memd search invoices',
    ])
      await nvim.command(command);
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

    const setupError = (options: string) =>
      nvim.lua<string>(`local ok, err = pcall(require('memd').setup, ${options}) return ok and 'ok' or err`);
    expect(await setupError('{ bogus = 1 }')).toBe('memd: unknown option bogus (see :help memd-options)');
    expect(await setupError("{ notify = 'loud' }")).toBe(`memd: option notify takes 'cwd', 'all' or false, not "loud"`);
    expect(await setupError('{ backoff_initial_ms = -1 }')).toBe(
      'memd: option backoff_initial_ms takes a number of milliseconds (1 or more), not -1',
    );
    expect(await setupError("'socket'")).toBe('memd: setup() takes a table of options');
    // Still connected, still answering.
    expect((await connectionState(nvim)).state).toBe('ready');
    expect(await statusline(nvim)).not.toBe('');
  });

  // Last: the plan window is the account's, every later line would show it.
  it('shows what Claude Code reported (5h window, cache) in the line, from sessions.get, as memctl statusline does', async () => {
    const nvim = await editor(sandbox, project.cwd);
    await eventually(async () => (await statusline(nvim)) !== '', 'the line');
    expect(await statusline(nvim)).not.toContain('5h ');
    await client.call(Methods.sessionsReport, {
      sessionId: project.sessionId,
      rateLimits: { fiveHour: { usedPercent: 42, resetsAt: null } },
      promptCache: { ttl: '5m', warm: false, lastMissCauses: ['model_changed'] },
    });
    // An update of the session (its transcript grew), the refresh timer or a change of directory asks again.
    await nvim.lua(`require('memd.tracker').refresh()`);
    await eventually(async () => (await statusline(nvim)).includes('5h 42%'), 'the reports in the line');
    const session = await client.sessionsGet({ sessionId: project.sessionId });
    const before = Date.now();
    const line = await statusline(nvim);
    expect(line).toContain(' · cache cold: model · ');
    expect(expectedLines(session, 120, before, Date.now())).toContain(line);
  });
});
