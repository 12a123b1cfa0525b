/**
 * The VS Code extension's logic against a real memd (no VS Code): the status line of the
 * workspace's session, the sessions view's pages, each command's output, and the warning on a
 * threshold crossing. The tests run in order against one daemon; the last ones change the
 * workspace session's transcript, and the very last report plan limits (they are the account's:
 * every later line would show them). The workspace session runs claude-opus-4-8: 1M by default in
 * Claude Code 2.1.197, with no auto-compact window, so it compacts only when the API refuses, at
 * the window (reactive mode; "N% context used", issue 28).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { Controller } from '../../client/vscode/src/controller.js';
import type { Notice } from '../../client/vscode/src/notices.js';
import { STATUS_ICON } from '../../client/vscode/src/status.js';
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';
import { Methods } from '../../shared/protocol/methods.js';
import { forecastLines } from '../../shared/statusline/forecast.js';
import { createClient, scoreCompactions } from '../helpers/client.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import {
  appendResponse,
  caughtUp,
  controllerFor,
  installFixtures,
  type Workspace,
} from '../unit/client/vscode/sandbox-fixture.js';

let sandbox: Sandbox;
let workspace: Workspace;
let client: Client;
const controllers: Controller[] = [];

beforeAll(async () => {
  sandbox = makeSandbox();
  workspace = installFixtures(sandbox);
  const daemon = await startDaemon(sandbox);
  keepForFile(sandbox, daemon);
  await caughtUp(sandbox);
  client = createClient({ env: sandbox.env, autostart: false });
  await scoreCompactions(client);
});

afterAll(() => {
  for (const controller of controllers) controller.dispose();
  client?.close();
});

async function started(folders: string[], settings: Parameters<typeof controllerFor>[2] = {}): Promise<Controller> {
  const controller = controllerFor(sandbox, folders, settings);
  controllers.push(controller);
  await controller.start();
  await eventually(() => controller.sessions.all.length > 0, 'the first page of sessions');
  return controller;
}

describe('the status bar', () => {
  it('shows the workspace session’s context line, the same line memctl statusline prints', async () => {
    const controller = await started([workspace.folder]);
    expect(controller.currentSession?.sessionId).toBe(workspace.sessionId);
    const view = controller.status();
    expect(view.text).toMatch(
      /^\$\(pulse\) ▕[█░]{8}▏ \d+% context used · \d+K left · 0 compactions · mem - · \$\d+\.\d\d$/,
    );
    expect(view.command).toEqual({ id: 'memd.openSession', args: [workspace.sessionId] });
    // memctl statusline gives memd 150 ms; on a busy machine a try may fall back to its own figures ("no memd").
    let line = '';
    await eventually(async () => {
      const result = await runMemctl(
        sandbox,
        ['statusline'],
        { COLUMNS: '78' },
        JSON.stringify({ session_id: workspace.sessionId }),
      );
      line = result.stdout.trim();
      return !line.includes('no memd');
    }, 'memctl statusline with memd’s figures');
    expect(view.text).toBe(`${STATUS_ICON} ${line}`);
  });

  it('says when the folder has no session, and follows a change of folders', async () => {
    const elsewhere = join(sandbox.root, 'elsewhere');
    const controller = await started([elsewhere]);
    expect(controller.currentSession).toBeNull();
    expect(controller.status().text).toBe(`${STATUS_ICON} memd: no session`);
    await controller.setFolders([elsewhere, workspace.folder]);
    expect(controller.currentSession?.sessionId).toBe(workspace.sessionId);
  });
});

describe('the sessions view', () => {
  it('lists every session in pages, most recent first, each with its context bar', async () => {
    const { sessions: all } = await client.sessionsList();
    const controller = await started([workspace.folder], { pageSize: 3 });
    expect(controller.treeNodes().map((node) => node.kind)).toEqual(['session', 'session', 'session', 'more']);
    while (controller.sessions.hasMore) await controller.loadMore();
    const nodes = controller.treeNodes();
    expect(nodes.map((node) => node.kind === 'session' && node.sessionId)).toEqual(
      all.map((session) => session.sessionId),
    );
    for (const node of nodes) {
      expect(node.kind).toBe('session');
      if (node.kind === 'session') expect(node.description).toMatch(/^▕[█░]{8}▏ \d+% context used · \d+K left$/);
    }
  });

  it('starts over from the first page when memd no longer knows the cursor (a restart)', async () => {
    const controller = await started([workspace.folder], { pageSize: 2 });
    const first = controller.sessions.all.map((session) => session.sessionId);
    controller.sessions.reset({
      sessions: [...controller.sessions.all],
      total: null,
      hidden: 0,
      nextCursor: 'a-cursor-of-another-daemon',
    });
    await controller.loadMore();
    expect(controller.sessions.all.map((session) => session.sessionId)).toEqual(first);
    expect(controller.sessions.cursor).not.toBe('a-cursor-of-another-daemon');
    expect(controller.sessions.hasMore).toBe(true);
  });
});

describe('the commands', () => {
  it('open a session’s details', async () => {
    const controller = await started([workspace.folder]);
    const document = await controller.openSession(workspace.sessionId.slice(0, 8));
    expect(document.path).toBe(`/session/${workspace.sessionId}.md`);
    expect(document.content).toContain(`| cwd | ${workspace.folder} |`);
    expect(document.content).toContain('| entries | 49 |');
    await expect(controller.openSession('ffffffff')).rejects.toThrow(/^memd could not read session ffffffff: /);
  });

  it('show the session memory: none yet, then what an extraction wrote', async () => {
    const controller = await started([workspace.folder]);
    const before = await controller.showSummary(workspace.sessionId);
    expect(before.content).toContain(`# No session memory yet for ${workspace.sessionId}`);
    const extracted = await runMemctl(sandbox, ['memory', 'extract', workspace.sessionId]);
    expect(extracted.code, extracted.stderr).toBe(0);
    const after = await controller.showSummary(workspace.sessionId);
    const { text, path } = await client.memorySummary({ sessionId: workspace.sessionId });
    expect(text).not.toBeNull();
    expect(after.content.endsWith(`${text}${text?.endsWith('\n') ? '' : '\n'}`)).toBe(true);
    expect(after.content.split('\n')[0]).toContain(`by the offline summarizer; ${path} -->`);
  });

  it('preview a compaction as memctl compact prints it, asking first below the threshold', async () => {
    const controller = await started([workspace.folder]);
    const below = await controller.previewCompaction(workspace.sessionId, false);
    expect(below).toEqual({
      kind: 'below-threshold',
      message: expect.stringMatching(
        /^Session 4be41908 is below its window \([\d,]+ of 1,000,000 tokens\): Claude Code compacts it only when the API refuses the request\. Preview a compaction anyway\?$/,
      ),
    });
    const preview = await controller.previewCompaction(workspace.sessionId, true);
    const printed = await runMemctl(sandbox, ['compact', workspace.sessionId, '--force']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(preview.kind === 'document' && preview.document.content).toBe(printed.stdout);
    // coding-loop's session memory would keep the whole short conversation and add itself (issue 28).
    expect(printed.stdout).toMatch(/^summary compaction of 4be41908/);
  });

  it('write a handoff into the session’s folder', async () => {
    const controller = await started([workspace.folder]);
    const outcome = await controller.writeHandoff(workspace.sessionId);
    const path = join(workspace.folder, 'docs', 'handoff-context.md');
    expect(outcome.path).toBe(path);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('## Next Steps');
    expect(outcome.message).toMatch(
      new RegExp(
        `^A handoff by the offline summarizer was written to ${path} \\(added to \\.gitignore\\): \\d+ files touched`,
      ),
    );
  });
});

describe('a threshold crossing', () => {
  it('warns about the workspace session, and updates the status bar and the view', async () => {
    const mine = await started([workspace.folder]);
    const everyone = await started([join(sandbox.root, 'elsewhere')], { notifications: 'all' });
    const mutedElsewhere = await started([join(sandbox.root, 'elsewhere')]);
    const notices = new Map<Controller, Notice[]>(
      [mine, everyone, mutedElsewhere].map((controller) => [controller, []]),
    );
    for (const [controller, list] of notices) controller.onNotice((notice) => list.push(notice));

    // Into the meter's error band (947K of 1M): Claude Code still compacts only when the API refuses.
    appendResponse(workspace, 'cross-1', 990_000);
    await eventually(() => (notices.get(mine)?.length ?? 0) > 0, 'the notice');
    expect(notices.get(mine)?.[0]).toMatchObject({
      sessionId: workspace.sessionId,
      // The extraction above gave the session its title: the start of its first prompt.
      message: expect.stringMatching(
        /^memd: Claude Code session Customers are being overcharged [^(]*… \(4be41908\) has used 99% of its context \(10K tokens left\); Claude Code compacts it when the API refuses the request\.$/,
      ),
      actions: [
        { command: 'memd.previewCompaction' },
        { command: 'memd.writeHandoff' },
        { command: 'memd.openSession' },
      ],
    });
    await eventually(() => mine.status().severity === 'warning', 'the status colour in the error band');
    // At the window: the API refuses the next request, and Claude Code compacts then.
    appendResponse(workspace, 'cross-2', 1_000_000);
    await eventually(() => (notices.get(mine)?.length ?? 0) > 1, 'the notice at the window');
    expect(notices.get(mine)?.[1]?.message).toMatch(
      /\(4be41908\) is at its window \(1\.0M of 1\.0M tokens\): the API refuses its next request and Claude Code compacts it then; /,
    );
    await eventually(() => (notices.get(everyone)?.length ?? 0) > 0, 'the notice for every session');
    await eventually(() => mine.status().severity === 'error', 'the status colour');
    expect(mine.status().text).toMatch(/^\$\(pulse\) ▕████████▏ 100% context used · 0 left · /);
    const node = mine.treeNodes()[0];
    expect(node).toMatchObject({ kind: 'session', sessionId: workspace.sessionId, icon: 'error' });
    expect(notices.get(mutedElsewhere)).toEqual([]);
  });
});

describe('issue 31: Claude Code’s reports and memd’s forecasts', () => {
  it('shows the 5h window and the cache Claude Code reported, the line memctl statusline prints, each tooltip line saying whose', async () => {
    const now = Date.now();
    await client.call(Methods.sessionsReport, {
      sessionId: workspace.sessionId,
      rateLimits: { fiveHour: { usedPercent: 42, resetsAt: now + 90 * 60_000 } },
      promptCache: { ttl: '1h', warm: false, lastMissCauses: ['tools_changed'] },
    });
    const controller = await started([workspace.folder], { statusBarColumns: 200 });
    await eventually(() => controller.status().text.includes('5h 42%'), 'the reports in the status bar');
    const view = controller.status();
    expect(view.text).toMatch(/ · 5h 42% ↻1h\d+m · .* · cache cold: tools · /);
    expect(view.tooltip).toMatch(
      /^5h window 42% used, resets in 1h\d+m \(official: Claude Code reported it \d+s ago\)$/m,
    );
    expect(view.tooltip).toMatch(/^prompt cache cold, last miss: tools_changed \(official: /m);
    let line = '';
    await eventually(async () => {
      const result = await runMemctl(
        sandbox,
        ['statusline'],
        { COLUMNS: '198' },
        JSON.stringify({ session_id: workspace.sessionId }),
      );
      line = result.stdout.trim();
      return !line.includes('no memd');
    }, 'memctl statusline with memd’s figures');
    // The reset's minutes and the memory's age may tick between the two (seconds apart on a loaded machine): compared without them.
    const minutesOff = (text: string) => text.replace(/↻\S+/, '↻').replace(/mem \d+[smhd]/, 'mem');
    expect(minutesOff(controller.status().text)).toBe(minutesOff(`${STATUS_ICON} ${line}`));
  });

  it('expands a session to usage.status’s forecasts, each with its provenance, its basis in the tooltip', async () => {
    const controller = await started([workspace.folder]);
    const node = controller
      .treeNodes()
      .find((found) => found.kind === 'session' && found.sessionId === workspace.sessionId);
    expect(node).toMatchObject({ kind: 'session', expandable: true });
    if (node === undefined) throw new Error('no node of the workspace session');
    expect(controller.childNodes(node)).toMatchObject([{ kind: 'message', label: 'asking memd for the forecasts…' }]);
    await eventually(() => controller.childNodes(node).length === 3, 'the forecasts');
    const answer = (await client.call(Methods.usageStatus, { sessionId: workspace.sessionId })) as UsageStatusResult;
    const children = controller.childNodes(node);
    expect(children.map((child) => child.kind === 'forecast' && child.tooltip.split('\n')[1])).toEqual([
      `${answer.autoCompact.provenance}: ${answer.autoCompact.basis}`,
      `${answer.limit.provenance}: ${answer.limit.basis}`,
      `${answer.cacheRebuild.provenance}: ${answer.cacheRebuild.basis}`,
    ]);
    expect(children.map((child) => child.label)).toEqual(
      forecastLines(answer, Date.now()).map((line) => (line.kind === 'limit' ? children[1]?.label : line.text)),
    );
    expect(children[1]?.label).toMatch(/^5h /);
  });
});
