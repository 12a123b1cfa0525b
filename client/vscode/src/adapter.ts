/**
 * The one place that speaks VS Code: it copies what the controller holds onto a status bar item,
 * a tree view and read-only documents, shows its notices, and hands VS Code's commands to it.
 * Everything it decides is decided elsewhere (controller.ts and the modules it uses); the API
 * comes in as a parameter (vscode-api.ts), so the unit tests give it a mock.
 */
import { Controller, type ControllerOptions } from './controller.js';
import { DOCUMENT_SCHEME, type MemdDocument } from './documents.js';
import { describeError } from './link.js';
import type { Notice } from './notices.js';
import { readSettings, type Settings } from './settings.js';
import { contextLine, sessionName } from './status.js';
import type { TreeNode } from './tree.js';
import type { Disposable, ExtensionContextLike, TreeItemLike, UriLike, VscodeApi } from './vscode-api.js';

export const VIEW_ID = 'memd.sessions';
export const STATUS_ITEM_ID = 'memd.status';
/** On the left, where the items about the work go; a higher priority sits further left. */
const STATUS_PRIORITY = 100;
const PREVIEW_ANYWAY = 'Preview Anyway';
/** A quick pick row has about this much room for the context line beside the session's name. */
const PICK_LINE_COLUMNS = 60;

/** The commands the manifest contributes, each registered here (the unit test checks both agree). */
export const COMMANDS = [
  'memd.refresh',
  'memd.openSession',
  'memd.showSummary',
  'memd.writeHandoff',
  'memd.previewCompaction',
  'memd.loadMore',
  'memd.startDaemon',
] as const;

/** Settings that change the connection: a change of one makes a new controller. */
const CONNECTION_SETTINGS = ['socketPath', 'autostart', 'startCommand'] as const;

export interface AdapterOptions {
  env?: NodeJS.ProcessEnv;
  /** Passed to every controller (the tests shorten the retry periods and give a starter). */
  controller?: Pick<ControllerOptions, 'timing' | 'starter' | 'now'>;
}

export interface Activation {
  readonly controller: Controller;
  /** Resolves when the current controller's first connection attempt is over. */
  readonly ready: Promise<void>;
  dispose(): void;
}

function treeItem<U extends UriLike, I extends TreeItemLike>(api: VscodeApi<U, I>, node: TreeNode): I {
  const expandable = node.kind === 'session' && node.expandable;
  const item = new api.TreeItem(
    node.label,
    expandable ? api.TreeItemCollapsibleState.Collapsed : api.TreeItemCollapsibleState.None,
  );
  item.id = node.id;
  item.iconPath = new api.ThemeIcon(node.icon);
  if (node.kind === 'session' || node.kind === 'forecast') {
    item.description = node.description;
    item.tooltip = node.tooltip;
  }
  if (node.kind === 'session') item.contextValue = node.contextValue;
  if (node.kind === 'session' || node.kind === 'more')
    item.command = { command: node.command.id, title: node.command.title, arguments: node.command.args };
  return item;
}

export function activateWith<U extends UriLike, I extends TreeItemLike>(
  api: VscodeApi<U, I>,
  context: ExtensionContextLike,
  options: AdapterOptions = {},
): Activation {
  const env = options.env ?? process.env;
  const disposables: Disposable[] = [];
  const own = <T extends Disposable>(disposable: T): T => {
    disposables.push(disposable);
    return disposable;
  };
  const output = own(api.window.createOutputChannel('memd'));
  const log = (line: string) => output.appendLine(`${new Date().toISOString()} ${line}`);
  const folders = () => (api.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  const loadSettings = (): Settings => {
    const { settings, problems } = readSettings((key) => api.workspace.getConfiguration('memd').get(key));
    for (const problem of problems) log(problem);
    return settings;
  };

  const status = own(api.window.createStatusBarItem(STATUS_ITEM_ID, api.StatusBarAlignment.Left, STATUS_PRIORITY));
  status.name = 'memd';
  const treeChanged = own(new api.EventEmitter<TreeNode | undefined>());
  const tree = own(
    api.window.createTreeView<TreeNode>(VIEW_ID, {
      treeDataProvider: {
        onDidChangeTreeData: treeChanged.event,
        getTreeItem: (node) => treeItem(api, node),
        getChildren: (node) => (node === undefined ? controller.treeNodes() : controller.childNodes(node)),
      },
    }),
  );

  const documents = new Map<string, string>();
  const documentChanged = own(new api.EventEmitter<U>());
  own(
    api.workspace.registerTextDocumentContentProvider(DOCUMENT_SCHEME, {
      onDidChange: documentChanged.event,
      provideTextDocumentContent: (uri) => documents.get(uri.path),
    }),
  );

  let settings = loadSettings();
  let controller: Controller;
  let detach: (() => void)[] = [];
  let ready: Promise<void> = Promise.resolve();

  const renderStatus = () => {
    const view = controller.status();
    status.text = view.text;
    status.tooltip = view.tooltip;
    status.command = { command: view.command.id, title: 'memd', arguments: view.command.args };
    status.backgroundColor =
      view.severity === 'none'
        ? undefined
        : new api.ThemeColor(
            view.severity === 'error' ? 'statusBarItem.errorBackground' : 'statusBarItem.warningBackground',
          );
    status.show();
  };
  const renderTree = () => {
    tree.message = controller.treeMessage();
    treeChanged.fire(undefined);
  };
  const showNotice = async (notice: Notice) => {
    const choice = await api.window.showWarningMessage(notice.message, ...notice.actions.map((action) => action.title));
    const action = notice.actions.find((candidate) => candidate.title === choice);
    if (action !== undefined) await api.commands.executeCommand(action.command, notice.sessionId);
  };

  const connect = () => {
    controller = new Controller({ settings, folders: folders(), env, log, ...options.controller });
    detach = [
      controller.onDidChange((change) => (change === 'status' ? renderStatus() : renderTree())),
      controller.onNotice(
        (notice) => void showNotice(notice).catch((error: unknown) => log(`notice: ${describeError(error)}`)),
      ),
    ];
    renderStatus();
    renderTree();
    ready = controller.start();
  };
  const disconnect = () => {
    for (const remove of detach) remove();
    controller.dispose();
  };
  connect();

  const showDocument = async (document: MemdDocument) => {
    const uri = api.Uri.parse(`${DOCUMENT_SCHEME}:${document.path}`);
    documents.set(uri.path, document.content);
    // A tab already showing this path reads it again.
    documentChanged.fire(uri);
    await api.window.showTextDocument(await api.workspace.openTextDocument(uri), { preview: true });
  };

  /** The session a command is for: its argument, the status bar's session, or the user's pick. */
  const sessionFor = async (argument: unknown): Promise<string | undefined> => {
    const named = controller.sessionIdFrom(argument);
    if (named !== null) return named;
    const now = Date.now();
    const choices = controller.sessions.all.map((session) => ({
      label: sessionName(session),
      description: contextLine(session, PICK_LINE_COLUMNS, now),
      sessionId: session.sessionId,
    }));
    if (choices.length === 0) {
      void api.window.showInformationMessage(
        'memd: no session to choose from; open the memd Sessions view once memd runs.',
      );
      return undefined;
    }
    return (await api.window.showQuickPick(choices, { placeHolder: 'Which Claude Code session?' }))?.sessionId;
  };
  const withProgress = <R>(title: string, task: () => Promise<R>) =>
    api.window.withProgress({ location: api.ProgressLocation.Notification, title }, task);

  const handlers: Record<(typeof COMMANDS)[number], (argument: unknown) => Promise<void>> = {
    'memd.refresh': () => controller.refresh(),
    'memd.loadMore': () => controller.loadMore(),
    'memd.startDaemon': async () => {
      const outcome = await withProgress('memd: starting the daemon…', () => controller.startDaemon());
      if (outcome.ok) void api.window.showInformationMessage(`memd: ${outcome.message}`);
      else void api.window.showErrorMessage(`memd could not be started: ${outcome.message}`);
    },
    'memd.openSession': async (argument) => {
      const sessionId = await sessionFor(argument);
      if (sessionId !== undefined) await showDocument(await controller.openSession(sessionId));
    },
    'memd.showSummary': async (argument) => {
      const sessionId = await sessionFor(argument);
      if (sessionId !== undefined) await showDocument(await controller.showSummary(sessionId));
    },
    'memd.previewCompaction': async (argument) => {
      const sessionId = await sessionFor(argument);
      if (sessionId === undefined) return;
      let preview = await withProgress('memd: compacting (a preview)…', () =>
        controller.previewCompaction(sessionId, false),
      );
      if (preview.kind === 'below-threshold') {
        if ((await api.window.showInformationMessage(preview.message, PREVIEW_ANYWAY)) !== PREVIEW_ANYWAY) return;
        preview = await withProgress('memd: compacting (a preview)…', () =>
          controller.previewCompaction(sessionId, true),
        );
      }
      if (preview.kind === 'document') await showDocument(preview.document);
    },
    'memd.writeHandoff': async (argument) => {
      const sessionId = await sessionFor(argument);
      if (sessionId === undefined) return;
      const outcome = await withProgress('memd: writing the handoff…', () => controller.writeHandoff(sessionId));
      await api.window.showTextDocument(await api.workspace.openTextDocument(api.Uri.file(outcome.path)), {
        preview: true,
      });
      void api.window.showInformationMessage(`memd: ${outcome.message}`);
    },
  };
  for (const command of COMMANDS) {
    own(
      api.commands.registerCommand(command, async (argument: unknown) => {
        try {
          await handlers[command](argument);
        } catch (error) {
          log(`${command}: ${describeError(error)}`);
          void api.window.showErrorMessage(describeError(error));
        }
      }),
    );
  }

  own(
    api.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('memd')) return;
      const next = loadSettings();
      const reconnect = CONNECTION_SETTINGS.some((key) => JSON.stringify(next[key]) !== JSON.stringify(settings[key]));
      settings = next;
      if (!reconnect) return controller.setSettings(next);
      disconnect();
      connect();
    }),
  );
  own(api.workspace.onDidChangeWorkspaceFolders(() => void controller.setFolders(folders())));

  let disposed = false;
  const activation: Activation = {
    get controller() {
      return controller;
    },
    get ready() {
      return ready;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      disconnect();
      for (const disposable of disposables.splice(0)) disposable.dispose();
    },
  };
  context.subscriptions.push(activation);
  return activation;
}
