/**
 * The part of VS Code's API the adapter uses, as plain types: the adapter is written against
 * these, the unit tests hand it a mock of them, and extension.ts hands it the real `vscode`
 * module. Its own type check (client/vscode/tsconfig.json, with @types/vscode) proves the real
 * API fits these types, so a mock cannot drift from what VS Code offers.
 *
 * Members are methods (not function-typed properties) so that VS Code's enums may stand where
 * these take numbers.
 */

export interface Disposable {
  dispose(): unknown;
}

export type Event<T> = (listener: (value: T) => unknown) => Disposable;

export interface EventEmitterLike<T> {
  readonly event: Event<T>;
  fire(value: T): void;
  dispose(): void;
}

export interface UriLike {
  readonly scheme: string;
  readonly path: string;
  readonly fsPath: string;
  toString(): string;
}

export interface ThemeIconLike {
  readonly id: string;
}

/** Opaque: VS Code resolves the colour's id against the theme. */
export type ThemeColorLike = object;

export interface CommandLike {
  command: string;
  title: string;
  arguments?: unknown[];
}

export interface StatusBarItemLike {
  name: string | undefined;
  text: string;
  tooltip: string | object | undefined;
  command: string | CommandLike | undefined;
  backgroundColor: ThemeColorLike | undefined;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** Made with the API's own TreeItem class (VS Code's tree reads its fields; an instance leaves no doubt). */
export interface TreeItemLike {
  id?: string;
  label?: string | object;
  description?: string | boolean;
  tooltip?: string | object | undefined;
  iconPath?: string | object;
  contextValue?: string;
  command?: CommandLike;
  collapsibleState?: number | undefined;
}

export interface TreeDataProviderLike<T, I extends TreeItemLike = TreeItemLike> {
  onDidChangeTreeData?: Event<T | undefined>;
  getTreeItem(element: T): I;
  getChildren(element?: T): T[];
}

export interface TreeViewLike {
  message?: string | undefined;
  description?: string;
  dispose(): unknown;
}

export interface TextDocumentLike<U extends UriLike = UriLike> {
  readonly uri: U;
}

export interface QuickPickItemLike {
  label: string;
  description?: string;
  detail?: string;
}

export interface OutputChannelLike {
  appendLine(value: string): void;
  dispose(): void;
}

export interface ConfigurationLike {
  get(key: string): unknown;
}

export interface TextDocumentContentProviderLike<U extends UriLike> {
  onDidChange?: Event<U>;
  provideTextDocumentContent(uri: U): string | undefined;
}

/** `U` and `I`: the API's own Uri and TreeItem classes (VS Code's, or the mock's). */
export interface VscodeApi<U extends UriLike = UriLike, I extends TreeItemLike = TreeItemLike> {
  window: {
    createStatusBarItem(id: string, alignment?: number, priority?: number): StatusBarItemLike;
    createTreeView<T>(viewId: string, options: { treeDataProvider: TreeDataProviderLike<T, I> }): TreeViewLike;
    createOutputChannel(name: string): OutputChannelLike;
    showInformationMessage(message: string, ...items: string[]): PromiseLike<string | undefined>;
    showWarningMessage(message: string, ...items: string[]): PromiseLike<string | undefined>;
    showErrorMessage(message: string, ...items: string[]): PromiseLike<string | undefined>;
    showQuickPick<T extends QuickPickItemLike>(
      items: readonly T[],
      options?: { placeHolder?: string },
    ): PromiseLike<T | undefined>;
    showTextDocument(document: TextDocumentLike<U>, options?: { preview?: boolean }): PromiseLike<unknown>;
    withProgress<R>(options: { location: number; title: string }, task: () => PromiseLike<R>): PromiseLike<R>;
  };
  commands: {
    registerCommand(command: string, callback: (...args: unknown[]) => unknown): Disposable;
    executeCommand(command: string, ...rest: unknown[]): PromiseLike<unknown>;
  };
  workspace: {
    readonly workspaceFolders: readonly { readonly uri: { readonly fsPath: string } }[] | undefined;
    getConfiguration(section: string): ConfigurationLike;
    onDidChangeConfiguration(
      listener: (event: { affectsConfiguration(section: string): boolean }) => unknown,
    ): Disposable;
    onDidChangeWorkspaceFolders(listener: (event: unknown) => unknown): Disposable;
    registerTextDocumentContentProvider(scheme: string, provider: TextDocumentContentProviderLike<U>): Disposable;
    openTextDocument(uri: U): PromiseLike<TextDocumentLike<U>>;
  };
  Uri: {
    parse(value: string): U;
    file(path: string): U;
  };
  EventEmitter: new <T>() => EventEmitterLike<T>;
  TreeItem: new (label: string, collapsibleState?: number) => I;
  ThemeIcon: new (id: string) => ThemeIconLike;
  ThemeColor: new (id: string) => ThemeColorLike;
  StatusBarAlignment: { readonly Left: number };
  TreeItemCollapsibleState: { readonly None: number; readonly Collapsed: number };
  ProgressLocation: { readonly Notification: number };
}

export interface ExtensionContextLike {
  readonly subscriptions: Disposable[];
}
