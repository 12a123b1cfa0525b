/**
 * The adapter against a hand-written VS Code (mock-vscode.ts) with no memd to talk to: what it
 * registers matches the manifest, it says memd is not answering, its commands fail in words
 * and never throw into VS Code, settings reach the controller, and it cleans up.
 * With a real memd: test/integration/vscode-adapter.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Activation,
  activateWith,
  COMMANDS,
  STATUS_ITEM_ID,
  VIEW_ID,
} from '../../../../client/vscode/src/adapter.js';
import { FOCUS_SESSIONS_COMMAND } from '../../../../client/vscode/src/status.js';
import { SESSION_CONTEXT } from '../../../../client/vscode/src/tree.js';
import { type MockVscode, mockVscode } from './mock-vscode.js';

interface Manifest {
  main: string;
  type?: string;
  engines: { vscode: string };
  activationEvents: string[];
  devDependencies: Record<string, string>;
  contributes: {
    commands: { command: string; title: string }[];
    views: { explorer: { id: string }[] };
    menus: Record<string, { command: string; when: string }[]>;
  };
}
const manifest = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../../../client/vscode/package.json'), 'utf8'),
) as Manifest;

let dir = '';
let activations: Activation[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-vscode-adapter-'));
});

afterEach(() => {
  for (const activation of activations) activation.dispose();
  activations = [];
  rmSync(dir, { recursive: true, force: true });
});

async function activate(
  config: Record<string, unknown> = {},
  folders: string[] = ['/home/user/src/app'],
): Promise<{ vscode: MockVscode; activation: Activation; subscriptions: { dispose(): unknown }[] }> {
  const vscode = mockVscode(config, folders);
  const subscriptions: { dispose(): unknown }[] = [];
  const activation = activateWith(
    vscode.api,
    { subscriptions },
    {
      env: { MEMD_SOCKET: join(dir, 'memd.sock') },
      controller: { timing: { retryFirstMs: 5_000, retryMaxMs: 5_000 } },
    },
  );
  activations.push(activation);
  await activation.ready;
  return { vscode, activation, subscriptions };
}

describe('the manifest and the adapter agree', () => {
  it('registers every contributed command and no other', async () => {
    const { vscode } = await activate();
    const contributed = manifest.contributes.commands.map((command) => command.command).sort();
    expect([...vscode.commands.keys()].sort()).toEqual(contributed);
    expect([...COMMANDS].sort()).toEqual(contributed);
  });

  it('fills the contributed view, and the menus name contributed commands and the items’ context value', async () => {
    const { vscode } = await activate();
    expect(manifest.contributes.views.explorer.map((view) => view.id)).toEqual([VIEW_ID]);
    expect([...vscode.treeViews.keys()]).toEqual([VIEW_ID]);
    expect(FOCUS_SESSIONS_COMMAND).toBe(`${VIEW_ID}.focus`);
    const commands = new Set(manifest.contributes.commands.map((command) => command.command));
    for (const entries of Object.values(manifest.contributes.menus))
      for (const entry of entries) expect(commands.has(entry.command), entry.command).toBe(true);
    for (const entry of manifest.contributes.menus['view/item/context'] ?? [])
      expect(entry.when).toBe(`view == ${VIEW_ID} && viewItem == ${SESSION_CONTEXT}`);
  });

  it('loads as VS Code loads it: CommonJS main, activated at start-up, types no newer than the engine', () => {
    expect(manifest.main).toBe('./dist/extension.js');
    // dist/extension.js is CommonJS: a "type": "module" manifest would make it an ES module.
    expect(manifest.type).toBeUndefined();
    expect(manifest.activationEvents).toEqual(['onStartupFinished']);
    // vsce refuses @types/vscode newer than engines.vscode.
    expect(manifest.engines.vscode).toBe(`^${manifest.devDependencies['@types/vscode']}`);
  });
});

describe('without memd', () => {
  it('shows a status item and a tree that say memd is not answering', async () => {
    const { vscode } = await activate();
    const [status] = vscode.statusItems;
    expect(status).toMatchObject({
      id: STATUS_ITEM_ID,
      name: 'memd',
      text: '$(debug-disconnect) memd',
      visible: true,
      command: { command: FOCUS_SESSIONS_COMMAND },
    });
    expect(status?.tooltip).toMatch(
      /^memd is not answering: memd is not running \(nothing answers on .*memd\.sock\); start it with: memctl start\nRetrying in 5 s/,
    );
    expect(vscode.treeItems(VIEW_ID)).toEqual([]);
    expect(vscode.treeViews.get(VIEW_ID)?.message).toMatch(/^memd is not answering: memd is not running/);
  });

  it('answers a command without a session by saying so, and a failing one with memd’s words', async () => {
    const { vscode } = await activate();
    await vscode.run('memd.showSummary');
    expect(vscode.messages.at(-1)).toEqual({
      level: 'info',
      message: 'memd: no session to choose from; open the memd Sessions view once memd runs.',
      items: [],
    });
    await expect(vscode.run('memd.openSession', 'abcdef12')).resolves.toBeUndefined();
    expect(vscode.messages.at(-1)).toMatchObject({
      level: 'error',
      message: expect.stringMatching(/^memd could not read session abcdef12: memd is not running/),
    });
    await vscode.run('memd.previewCompaction', { sessionId: 'abcdef12' });
    expect(vscode.messages.at(-1)?.message).toMatch(/^memd could not compact abcdef12: memd is not running/);
    expect(vscode.progress).toEqual(['memd: compacting (a preview)…']);
    expect(vscode.output.some((line) => line.includes('memd.openSession: memd could not read session abcdef12'))).toBe(
      true,
    );
  });

  it('reports the start command’s failure in words', async () => {
    const { vscode } = await activate({ startCommand: [join(dir, 'no-memctl'), 'start'] });
    await vscode.run('memd.startDaemon');
    expect(vscode.messages.at(-1)).toMatchObject({
      level: 'error',
      message: expect.stringMatching(/^memd could not be started: .*no-memctl was not found/),
    });
  });
});

describe('settings', () => {
  it('keeps the connection for a display setting and makes a new one for a connection setting', async () => {
    const { vscode, activation } = await activate();
    const first = activation.controller;
    vscode.setConfig({ statusBarColumns: 40, notifications: 'off' });
    expect(activation.controller).toBe(first);
    vscode.setConfig({ socketPath: join(dir, 'other.sock') });
    expect(activation.controller).not.toBe(first);
    await activation.ready;
    expect(activation.controller.linkState.kind === 'disconnected' && activation.controller.linkState.reason).toContain(
      'other.sock',
    );
    expect(vscode.statusItems).toHaveLength(1);
    vscode.setConfig({ pageSize: 'many' });
    expect(vscode.output.some((line) => line.endsWith('memd.pageSize: "many" is not a valid value; using 50'))).toBe(
      true,
    );
  });
});

describe('disposal', () => {
  it('removes every registration and the status item, once', async () => {
    const { vscode, activation, subscriptions } = await activate();
    expect(subscriptions).toEqual([activation]);
    expect(vscode.live()).toBeGreaterThan(0);
    activation.dispose();
    activation.dispose();
    expect(vscode.live()).toBe(0);
    expect(vscode.commands.size).toBe(0);
    expect(vscode.statusItems[0]?.disposed).toBe(true);
  });
});
