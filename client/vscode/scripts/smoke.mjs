/**
 * Loads the bundle the way VS Code does (require, with `vscode` provided by the host) and
 * activates it against a stand-in API with no memd to talk to: the bundle must load, register
 * every command the manifest contributes and nothing else, and show its status bar item. It
 * proves the packaging, not the behaviour (the vitest suites test that, against a real memd).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
// No daemon answers here: the extension must come up anyway and say so.
const scratch = mkdtempSync(join(tmpdir(), 'memd-vscode-smoke-'));
process.env.MEMD_SOCKET = join(scratch, 'memd.sock');

const registered = [];
const status = { shown: false, text: '' };
const disposable = { dispose() {} };
const event = () => disposable;
class EventEmitter {
  event = event;
  fire() {}
  dispose() {}
}
const api = {
  window: {
    createStatusBarItem: () => ({
      dispose() {},
      hide() {},
      show() {
        status.shown = true;
      },
      set text(value) {
        status.text = value;
      },
    }),
    createTreeView: () => disposable,
    createOutputChannel: () => ({ appendLine() {}, dispose() {} }),
  },
  commands: {
    registerCommand: (command) => {
      registered.push(command);
      return disposable;
    },
  },
  workspace: {
    workspaceFolders: undefined,
    getConfiguration: () => ({ get: () => undefined }),
    onDidChangeConfiguration: event,
    onDidChangeWorkspaceFolders: event,
    registerTextDocumentContentProvider: () => disposable,
  },
  EventEmitter,
  TreeItem: class {},
  ThemeIcon: class {},
  ThemeColor: class {},
  StatusBarAlignment: { Left: 1 },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1 },
  ProgressLocation: { Notification: 15 },
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveVscode(request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
Module._cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: api };

const fail = (message) => {
  console.error(`smoke: ${message}`);
  process.exitCode = 1;
};
try {
  const extension = createRequire(import.meta.url)(join(here, manifest.main));
  const context = { subscriptions: [] };
  extension.activate(context);
  const contributed = manifest.contributes.commands.map((command) => command.command).sort();
  if (JSON.stringify([...registered].sort()) !== JSON.stringify(contributed))
    fail(`registered ${registered.join(', ')}; the manifest contributes ${contributed.join(', ')}`);
  if (!status.shown || !status.text.includes('memd'))
    fail(`the status bar item was not shown (text: ${JSON.stringify(status.text)})`);
  for (const subscription of context.subscriptions) subscription.dispose();
  extension.deactivate();
  if (process.exitCode !== 1)
    console.log(`smoke: ${manifest.main} loads, registers ${registered.length} commands, shows "${status.text}"`);
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
