/**
 * The whole extension as VS Code would drive it, minus VS Code: the adapter on the hand-written
 * API (test/unit/client/vscode/mock-vscode.ts) against a real memd. What the status bar item,
 * the tree and the documents show, what each command does when clicked, the warning's buttons,
 * and the item following memd down and back up.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Activation, activateWith, VIEW_ID } from '../../client/vscode/src/adapter.js';
import { createClient } from '../helpers/client.js';
import {
  type DaemonProcess,
  eventually,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';
import { type MockVscode, mockVscode } from '../unit/client/vscode/mock-vscode.js';
import {
  appendResponse,
  caughtUp,
  installFixtures,
  TEST_TIMING,
  type Workspace,
} from '../unit/client/vscode/sandbox-fixture.js';

const activations: Activation[] = [];

afterEach(() => {
  for (const activation of activations.splice(0)) activation.dispose();
});

interface Running {
  sandbox: Sandbox;
  workspace: Workspace;
  daemon: DaemonProcess;
  vscode: MockVscode;
  activation: Activation;
}

async function running(
  config: Record<string, unknown> = {},
  folders?: (workspace: Workspace) => string[],
  daemonEnv: NodeJS.ProcessEnv = {},
): Promise<Running> {
  const sandbox = makeSandbox();
  const workspace = installFixtures(sandbox);
  const daemon = await startDaemon(sandbox, undefined, daemonEnv);
  await caughtUp(sandbox);
  const vscode = mockVscode(config, folders?.(workspace) ?? [workspace.folder]);
  const activation = activateWith(
    vscode.api,
    { subscriptions: [] },
    { env: sandbox.env, controller: { timing: TEST_TIMING } },
  );
  activations.push(activation);
  await activation.ready;
  await eventually(() => vscode.treeItems(VIEW_ID).length > 0, 'the sessions view to fill');
  return { sandbox, workspace, daemon, vscode, activation };
}

const status = (vscode: MockVscode) => vscode.statusItems[0];

describe('the status bar item and the sessions view', () => {
  it('show the workspace session’s line and every session with its bar, paged', async () => {
    const { vscode, workspace } = await running({ pageSize: 4 });
    await eventually(() => status(vscode)?.text.startsWith('$(pulse) ▕') === true, 'the status line');
    expect(status(vscode)).toMatchObject({
      visible: true,
      command: { command: 'memd.openSession', arguments: [workspace.sessionId] },
      background: undefined,
    });
    // claude-opus-4-8 at 1M with no auto-compact window: Claude Code's "context used" (reactive mode, issue 28).
    expect(status(vscode)?.text).toMatch(
      /^\$\(pulse\) ▕[█░]{8}▏ \d+% context used · \d+K left · 0 compactions · mem - · \$\d+\.\d\d$/,
    );

    const items = vscode.treeItems(VIEW_ID);
    expect(items).toHaveLength(5);
    expect(
      items
        .slice(0, 4)
        .every(
          (item) => item.contextValue === 'memd.session' && /^▕[█░]{8}▏ \d+% context used/.test(item.description ?? ''),
        ),
    ).toBe(true);
    expect(items[4]).toMatchObject({ label: 'Load more sessions…', command: { command: 'memd.loadMore' } });
    const changes = vscode.treeViews.get(VIEW_ID)?.changes ?? 0;
    await vscode.run('memd.loadMore');
    expect(vscode.treeItems(VIEW_ID)).toHaveLength(7);
    expect(vscode.treeViews.get(VIEW_ID)?.changes).toBeGreaterThan(changes);
  });

  it('follow the workspace folders', async () => {
    const { vscode, workspace } = await running({}, () => []);
    expect(status(vscode)?.text).toBe('$(pulse) memd');
    vscode.setFolders([workspace.folder]);
    await eventually(
      () => status(vscode)?.text.startsWith('$(pulse) ▕') === true,
      'the session of the folder just opened',
    );
  });

  it('follow memd down and back up', async () => {
    const { vscode, sandbox, daemon } = await running();
    const stopper = createClient({ env: sandbox.env, autostart: false });
    await stopper.daemonShutdown({ reason: 'test' });
    stopper.close();
    await daemon.exited;
    await eventually(() => status(vscode)?.text === '$(debug-disconnect) memd', 'the item to say memd is gone');
    expect(vscode.treeItems(VIEW_ID)).toEqual([]);
    expect(vscode.treeViews.get(VIEW_ID)?.message).toMatch(/^memd is not answering: /);
    await startDaemon(sandbox);
    await eventually(() => status(vscode)?.text.startsWith('$(pulse) ▕') === true, 'the line to come back');
    expect(vscode.treeViews.get(VIEW_ID)?.message).toBeUndefined();
    expect(vscode.treeItems(VIEW_ID).length).toBeGreaterThan(1);
  });
});

describe('the forecasts (issue 31)', () => {
  it('are a session’s children in the tree: collapsed until expanded, then each with its provenance and basis', async () => {
    const { vscode, workspace } = await running();
    const provider = vscode.treeViews.get(VIEW_ID)?.provider;
    const node = provider
      ?.getChildren()
      .find((candidate) => (candidate as { sessionId?: string }).sessionId === workspace.sessionId);
    if (provider === undefined || node === undefined) throw new Error('no node of the workspace session');
    expect(provider.getTreeItem(node).collapsibleState).toBe(vscode.api.TreeItemCollapsibleState.Collapsed);
    await eventually(() => provider.getChildren(node).length === 3, 'the forecasts');
    const items = provider.getChildren(node).map((child) => provider.getTreeItem(child));
    expect(items.map((item) => item.label)).toEqual([
      expect.stringMatching(/^(auto-compact|blocking)/),
      expect.stringMatching(/^5h /),
      expect.stringMatching(/^cache /),
    ]);
    for (const item of items) {
      expect(item.description).toMatch(/^(official|estimated)$/);
      expect(item.tooltip).toMatch(/\n(official|estimated): \S/);
      expect(item.collapsibleState).toBe(vscode.api.TreeItemCollapsibleState.None);
      expect(item.command).toBeUndefined();
    }
  });
});

describe('the commands, clicked', () => {
  it('open a session from the tree as a read-only document', async () => {
    const { vscode, workspace } = await running();
    const node = vscode.treeViews
      .get(VIEW_ID)
      ?.provider.getChildren()
      .find((candidate) => (candidate as { sessionId?: string }).sessionId === workspace.sessionId);
    await vscode.run('memd.openSession', node);
    expect(vscode.shown.at(-1)).toMatchObject({
      uri: `memd:/session/${workspace.sessionId}.md`,
      text: expect.stringContaining(`| cwd | ${workspace.folder} |`),
    });
  });

  it('use the status bar’s session when given none, and ask for one when there is none', async () => {
    const { vscode, workspace } = await running({}, () => []);
    vscode.pick = (items) => items.find((item) => (item as { sessionId?: string }).sessionId === workspace.sessionId);
    await vscode.run('memd.showSummary');
    expect(vscode.shown.at(-1)).toMatchObject({
      uri: `memd:/summary/${workspace.sessionId}.md`,
      text: expect.stringContaining('No session memory yet'),
    });
    vscode.setFolders([workspace.folder]);
    await eventually(() => status(vscode)?.text.startsWith('$(pulse) ▕') === true, 'the workspace session');
    vscode.pick = () => {
      throw new Error('no pick expected: the status bar’s session is the one');
    };
    await vscode.run('memd.openSession');
    expect(vscode.shown.at(-1)?.uri).toBe(`memd:/session/${workspace.sessionId}.md`);
  });

  it('preview a compaction only after asking, below the threshold', async () => {
    const { vscode, workspace, sandbox } = await running();
    await vscode.run('memd.previewCompaction', workspace.sessionId);
    // Reactive mode (claude-opus-4-8, no auto-compact window): below the window, where the API refuses.
    expect(vscode.messages.at(-1)).toMatchObject({
      level: 'info',
      items: ['Preview Anyway'],
      message: expect.stringContaining('below its window ('),
    });
    expect(vscode.shown).toEqual([]);
    vscode.answer = (message) => (message.items.includes('Preview Anyway') ? 'Preview Anyway' : undefined);
    await vscode.run('memd.previewCompaction', workspace.sessionId);
    const printed = await runMemctl(sandbox, ['compact', workspace.sessionId, '--force']);
    expect(vscode.shown.at(-1)).toEqual({ uri: `memd:/compaction/${workspace.sessionId}.txt`, text: printed.stdout });
  });

  it('write a handoff and open it', async () => {
    const { vscode, workspace } = await running();
    await vscode.run('memd.writeHandoff');
    const path = join(workspace.folder, 'docs', 'handoff-context.md');
    expect(vscode.shown.at(-1)).toMatchObject({ uri: `file:${path}`, text: expect.stringContaining('## Next Steps') });
    expect(vscode.messages.at(-1)).toMatchObject({
      level: 'info',
      message: expect.stringContaining(`was written to ${path}`),
    });
    expect(vscode.progress).toEqual(['memd: writing the handoff…']);
  });

  it('warn on a threshold crossing, whose button runs the command for that session', async () => {
    // A 1M auto-compact window set: claude-opus-4-8 (1M by default) compacts ahead at 967K (threshold mode).
    const { vscode, workspace } = await running({}, undefined, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '1000000' });
    vscode.answer = (message) => (message.level === 'warning' ? 'Preview Compaction' : undefined);
    appendResponse(workspace, 'cross', 970_000); // past 967K
    await eventually(
      () => vscode.shown.some((document) => document.uri === `memd:/compaction/${workspace.sessionId}.txt`),
      'the preview the button asked for',
    );
    const warning = vscode.messages.find((message) => message.level === 'warning');
    expect(warning).toMatchObject({
      items: ['Preview Compaction', 'Write Handoff', 'Open Session'],
      message: expect.stringContaining('reached its auto-compact threshold'),
    });
    // Above the threshold the preview needs no confirmation.
    expect(vscode.messages.filter((message) => message.items.includes('Preview Anyway'))).toEqual([]);
    expect(status(vscode)?.background).toBe('statusBarItem.errorBackground');
  });
});
