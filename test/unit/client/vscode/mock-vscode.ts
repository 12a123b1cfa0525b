/**
 * A hand-written stand-in for the few VS Code APIs the adapter uses (client/vscode/src/vscode-api.ts),
 * recording what the extension shows and letting a test answer what a user would click. The
 * real API's fit to the same types is checked by client/vscode's own tsc run.
 */
import { readFileSync } from 'node:fs';
import type {
  CommandLike,
  Disposable,
  Event,
  EventEmitterLike,
  QuickPickItemLike,
  StatusBarItemLike,
  TextDocumentContentProviderLike,
  TextDocumentLike,
  ThemeColorLike,
  TreeDataProviderLike,
  TreeItemLike,
  TreeViewLike,
  UriLike,
  VscodeApi,
} from '../../../../client/vscode/src/vscode-api.js';

export class MockUri implements UriLike {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.path}`;
  }
}

class MockEventEmitter<T> implements EventEmitterLike<T> {
  readonly listeners = new Set<(value: T) => unknown>();
  disposed = false;
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

export class MockTreeItem implements TreeItemLike {
  id?: string;
  description?: string;
  tooltip?: string;
  iconPath?: MockThemeIcon;
  contextValue?: string;
  command?: CommandLike;
  constructor(
    readonly label: string,
    readonly collapsibleState?: number,
  ) {}
}

class MockThemeIcon {
  constructor(readonly id: string) {}
}

class MockThemeColor {
  constructor(readonly id: string) {}
}

export class MockStatusBarItem implements StatusBarItemLike {
  name: string | undefined;
  text = '';
  tooltip: string | object | undefined;
  command: string | CommandLike | undefined;
  backgroundColor: ThemeColorLike | undefined;
  visible = false;
  disposed = false;
  constructor(readonly id: string) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.disposed = true;
  }
  /** The theme colour's id, or undefined. */
  get background(): string | undefined {
    return (this.backgroundColor as MockThemeColor | undefined)?.id;
  }
}

export interface MockTreeView extends TreeViewLike {
  provider: TreeDataProviderLike<unknown, MockTreeItem>;
  disposed: boolean;
  /** How often the provider said its data changed. */
  changes: number;
}

export interface Message {
  level: 'info' | 'warning' | 'error';
  message: string;
  items: string[];
}

export interface ShownDocument {
  uri: string;
  text: string;
}

export interface MockVscode {
  api: VscodeApi<MockUri, MockTreeItem>;
  statusItems: MockStatusBarItem[];
  treeViews: Map<string, MockTreeView>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** Commands executed that the extension did not register (VS Code's own, such as a view's focus). */
  executed: { command: string; args: unknown[] }[];
  messages: Message[];
  shown: ShownDocument[];
  progress: string[];
  output: string[];
  config: Record<string, unknown>;
  /** What the user clicks on a message with items (undefined: dismisses it). */
  answer: (message: Message) => string | undefined;
  /** What the user picks in a quick pick (undefined: escapes). */
  pick: (items: readonly QuickPickItemLike[]) => QuickPickItemLike | undefined;
  setConfig(values: Record<string, unknown>): void;
  setFolders(paths: string[]): void;
  /** Runs a registered command as VS Code would, and waits for it. */
  run(command: string, ...args: unknown[]): Promise<unknown>;
  /** The tree's items as VS Code would ask for them. */
  treeItems(viewId: string): MockTreeItem[];
  /** Registrations and emitters not disposed yet. */
  live(): number;
}

export function mockVscode(config: Record<string, unknown> = {}, folders: string[] = []): MockVscode {
  const disposables = new Set<{ disposed: boolean }>();
  const track = (dispose?: () => void): Disposable => {
    const handle = { disposed: false };
    disposables.add(handle);
    return {
      dispose: () => {
        handle.disposed = true;
        dispose?.();
      },
    };
  };
  const configListeners = new Set<(event: { affectsConfiguration(section: string): boolean }) => unknown>();
  const folderListeners = new Set<(event: unknown) => unknown>();
  const providers = new Map<string, TextDocumentContentProviderLike<MockUri>>();
  let workspaceFolders = folders.map((path) => ({ uri: { fsPath: path } }));

  const mock: MockVscode = {
    statusItems: [],
    treeViews: new Map(),
    commands: new Map(),
    executed: [],
    messages: [],
    shown: [],
    progress: [],
    output: [],
    config: { ...config },
    answer: () => undefined,
    pick: () => undefined,
    setConfig(values) {
      const changed = Object.keys(values);
      Object.assign(mock.config, values);
      for (const listener of configListeners)
        listener({ affectsConfiguration: (section) => changed.some((key) => `memd.${key}`.startsWith(section)) });
    },
    setFolders(paths) {
      workspaceFolders = paths.map((path) => ({ uri: { fsPath: path } }));
      for (const listener of folderListeners) listener({});
    },
    async run(command, ...args) {
      const handler = mock.commands.get(command);
      if (handler === undefined) throw new Error(`command ${command} is not registered`);
      return handler(...args);
    },
    treeItems(viewId) {
      const view = mock.treeViews.get(viewId);
      if (view === undefined) throw new Error(`no tree view ${viewId}`);
      return view.provider.getChildren().map((node) => view.provider.getTreeItem(node));
    },
    live: () => [...disposables].filter((handle) => !handle.disposed).length,
    api: undefined as unknown as VscodeApi<MockUri, MockTreeItem>,
  };

  const message =
    (level: Message['level']) =>
    (text: string, ...items: string[]) => {
      const entry = { level, message: text, items };
      mock.messages.push(entry);
      return Promise.resolve(items.length === 0 ? undefined : mock.answer(entry));
    };

  mock.api = {
    window: {
      createStatusBarItem(id) {
        const item = new MockStatusBarItem(id);
        mock.statusItems.push(item);
        return item;
      },
      createTreeView<T>(viewId: string, options: { treeDataProvider: TreeDataProviderLike<T, MockTreeItem> }) {
        const registration = track(() => mock.treeViews.delete(viewId));
        const view: MockTreeView = {
          provider: options.treeDataProvider as TreeDataProviderLike<unknown, MockTreeItem>,
          changes: 0,
          disposed: false,
          dispose: () => {
            view.disposed = true;
            registration.dispose();
          },
        };
        options.treeDataProvider.onDidChangeTreeData?.(() => view.changes++);
        mock.treeViews.set(viewId, view);
        return view;
      },
      createOutputChannel: () => ({ appendLine: (line) => void mock.output.push(line), dispose: () => {} }),
      showInformationMessage: message('info'),
      showWarningMessage: message('warning'),
      showErrorMessage: message('error'),
      showQuickPick: <T extends QuickPickItemLike>(items: readonly T[]) =>
        Promise.resolve(mock.pick(items) as T | undefined),
      async showTextDocument(document: TextDocumentLike<MockUri>) {
        const { uri } = document;
        const text =
          uri.scheme === 'file'
            ? readFileSync(uri.path, 'utf8')
            : (providers.get(uri.scheme)?.provideTextDocumentContent(uri) ?? '');
        mock.shown.push({ uri: uri.toString(), text });
        return undefined;
      },
      async withProgress(options, task) {
        mock.progress.push(options.title);
        return task();
      },
    },
    commands: {
      registerCommand(command, callback) {
        if (mock.commands.has(command)) throw new Error(`command ${command} already exists`);
        mock.commands.set(command, callback);
        return track(() => mock.commands.delete(command));
      },
      async executeCommand(command, ...args) {
        const handler = mock.commands.get(command);
        if (handler !== undefined) return handler(...args);
        mock.executed.push({ command, args });
        return undefined;
      },
    },
    workspace: {
      get workspaceFolders() {
        return workspaceFolders.length === 0 ? undefined : workspaceFolders;
      },
      getConfiguration: (section) => ({ get: (key) => mock.config[section === 'memd' ? key : `${section}.${key}`] }),
      onDidChangeConfiguration(listener) {
        configListeners.add(listener);
        return track(() => configListeners.delete(listener));
      },
      onDidChangeWorkspaceFolders(listener) {
        folderListeners.add(listener);
        return track(() => folderListeners.delete(listener));
      },
      registerTextDocumentContentProvider(scheme, provider) {
        providers.set(scheme, provider);
        return track(() => providers.delete(scheme));
      },
      openTextDocument: async (uri) => ({ uri }),
    },
    Uri: {
      parse(value) {
        const colon = value.indexOf(':');
        return new MockUri(value.slice(0, colon), value.slice(colon + 1));
      },
      file: (path) => new MockUri('file', path),
    },
    EventEmitter: MockEventEmitter,
    TreeItem: MockTreeItem,
    ThemeIcon: MockThemeIcon,
    ThemeColor: MockThemeColor,
    StatusBarAlignment: { Left: 1 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1 },
    ProgressLocation: { Notification: 15 },
  };
  return mock;
}
