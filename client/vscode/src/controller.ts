/**
 * The extension without VS Code: one link to memd, the sessions view's model, the workspace's
 * current session for the status bar, the notices of threshold crossings, and the commands. The
 * adapter (adapter.ts) renders what this holds and forwards VS Code's clicks to it; the tests
 * drive it against a real memd.
 */
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { SessionSummary } from '../../../shared/protocol/sessions.js';
import * as commands from './commands.js';
import { SessionDetail } from './detail.js';
import type { MemdDocument } from './documents.js';
import { ForecastStore } from './forecasts.js';
import { DaemonLink, describeError, type LinkOptions, type LinkState } from './link.js';
import { type Notice, noticeFor, wanted } from './notices.js';
import type { Settings } from './settings.js';
import { runStartCommand, type Starter, type StartOutcome } from './start.js';
import { type StatusView, samePath, statusView } from './status.js';
import { SessionsModel, type TreeNode } from './tree.js';
import { parseSession, parseSessionList, parseSessionUpdated, parseThresholdCrossed } from './validate.js';

/** How often the status line is made again without an event: its memory age counts in minutes. */
export const STATUS_REFRESH_MS = 15_000;

export type Change = 'status' | 'tree';

/** Listeners of one kind of news; `on` returns the function that removes the listener. */
class Signal<T> {
  private readonly listeners = new Set<(value: T) => void>();
  on(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  clear(): void {
    this.listeners.clear();
  }
}

export interface ControllerOptions {
  settings: Settings;
  /** The workspace folders' paths. */
  folders: readonly string[];
  env: NodeJS.ProcessEnv;
  now?: () => number;
  log?: (line: string) => void;
  /** Defaults to running settings.startCommand. */
  starter?: Starter;
  /** Retry and watch periods (the tests shorten them). */
  timing?: Pick<LinkOptions, 'retryFirstMs' | 'retryMaxMs' | 'watchMs'>;
}

export class Controller {
  readonly link: DaemonLink;
  readonly sessions = new SessionsModel();
  private current: SessionSummary | null = null;
  private folders: string[];
  private settings: Settings;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly changes = new Signal<Change>();
  private readonly notices = new Signal<Notice>();
  private loadedGeneration = 0;
  private shownStatus = '';
  private statusTimer: NodeJS.Timeout | undefined;
  /**
   * Updates that arrived while a reload was in flight. An event that follows an answer in the same
   * read is handled before the answer's continuation, so the answer may be older than the event:
   * such updates are applied again once the reload is done, when their activity is newer.
   */
  private missed: SessionSummary[] | null = null;
  private reloads = 0;
  private readonly detail: SessionDetail;
  readonly forecasts: ForecastStore;

  constructor(options: ControllerOptions) {
    this.settings = options.settings;
    this.folders = [...options.folders];
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    const { settings, env } = options;
    this.link = new DaemonLink({
      client: { env, ...(settings.socketPath === null ? {} : { socketPath: settings.socketPath }) },
      starter: options.starter ?? (() => runStartCommand(settings.startCommand, env)),
      autostart: settings.autostart,
      log: this.log,
      ...options.timing,
    });
    this.detail = new SessionDetail({
      client: () => this.link.client,
      sessionId: () => (this.link.current.kind === 'connected' ? (this.current?.sessionId ?? null) : null),
      changed: () => this.changed('status'),
      log: this.log,
    });
    this.forecasts = new ForecastStore(
      () => this.link.client,
      () => this.changed('tree'),
      this.log,
    );
    this.link.listen({
      state: (state) => this.onLinkState(state),
      sessionUpdated: (payload) => this.onSessionUpdated(payload),
      thresholdCrossed: (payload) => void this.onThresholdCrossed(payload),
    });
  }

  onDidChange(listener: (change: Change) => void): () => void {
    return this.changes.on(listener);
  }

  onNotice(listener: (notice: Notice) => void): () => void {
    return this.notices.on(listener);
  }

  /** Connects; resolves after the first attempt, connected or not (it retries on its own). */
  start(): Promise<void> {
    this.statusTimer ??= setInterval(() => {
      // Claude Code's reports reach memd after the response the session's update was for: asked again here.
      void this.refreshDetail();
      this.changed('status');
    }, STATUS_REFRESH_MS);
    this.statusTimer.unref();
    return this.link.start();
  }

  get linkState(): LinkState {
    return this.link.current;
  }

  /** The folders' most recent session, as the status bar shows it (with sessions.get's reports once asked). */
  get currentSession(): SessionSummary | null {
    return this.current === null ? null : this.detail.merged(this.current);
  }

  status(): StatusView {
    return statusView({
      link: this.link.current,
      folders: this.folders,
      session: this.currentSession,
      columns: this.settings.statusBarColumns,
      now: this.now(),
    });
  }

  treeNodes(): TreeNode[] {
    return this.sessions.nodes(this.now(), this.forecasts.available);
  }

  /** A session's children: its forecasts (asked of memd the first time, and after its activity changes). */
  childNodes(node: TreeNode): TreeNode[] {
    if (node.kind !== 'session') return [];
    return this.forecasts.nodes(node.sessionId, this.sessions.find(node.sessionId)?.lastActivity ?? null, this.now());
  }

  /** Asks memd again for the current session's reports and deletions. */
  refreshDetail(): Promise<void> {
    return this.detail.refresh();
  }

  /** Shown above the tree when there is nothing to list: why. */
  treeMessage(): string | undefined {
    const state = this.link.current;
    if (state.kind === 'disconnected') return `memd is not answering: ${state.reason}`;
    if (state.kind === 'connecting') return 'Connecting to memd…';
    return undefined;
  }

  async setFolders(folders: readonly string[]): Promise<void> {
    this.folders = [...folders];
    try {
      await this.reloading(() => this.reloadCurrent());
    } catch (error) {
      this.log(`could not find the folders' session: ${describeError(error)}`);
      this.link.suspect(error);
    }
  }

  /** Settings that need no new connection (the adapter makes a new controller for the others). */
  setSettings(settings: Settings): void {
    const pageChanged = settings.pageSize !== this.settings.pageSize;
    this.settings = settings;
    this.changed('status');
    if (pageChanged) void this.reload();
  }

  /** memd: Refresh: reconnect at once if memd was away, then load everything again. */
  async refresh(): Promise<void> {
    const before = this.loadedGeneration;
    await this.link.retryNow();
    // A new connection reloads by itself; an unchanged one is reloaded here.
    if (this.link.current.kind === 'connected' && this.loadedGeneration === before) await this.reload();
  }

  async loadMore(): Promise<void> {
    const cursor = this.sessions.cursor;
    if (cursor === null) return;
    try {
      const { list } = parseSessionList(await this.link.client.sessionsList({ limit: this.settings.pageSize, cursor }));
      this.sessions.append(list);
      this.changed('tree');
    } catch (error) {
      // A cursor of a daemon that restarted since: start over from the first page.
      if (error instanceof RpcError && error.code === ErrorCode.InvalidParams && error.kind === 'BadCursor')
        return this.reload();
      this.link.suspect(error);
      throw new commands.CommandError(`memd could not list more sessions: ${describeError(error)}`, error);
    }
  }

  startDaemon(): Promise<StartOutcome> {
    return this.link.startDaemon();
  }

  /** The session a command is about: the one it names, else the status bar's. */
  sessionIdFrom(argument: unknown): string | null {
    if (typeof argument === 'string' && argument !== '') return argument;
    if (
      typeof argument === 'object' &&
      argument !== null &&
      typeof (argument as { sessionId?: unknown }).sessionId === 'string'
    )
      return (argument as { sessionId: string }).sessionId;
    return this.current?.sessionId ?? null;
  }

  openSession(sessionId: string): Promise<MemdDocument> {
    return this.guarded(() => commands.openSession(this.link.client, sessionId, this.now()));
  }

  showSummary(sessionId: string): Promise<MemdDocument> {
    return this.guarded(() => commands.showSummary(this.link.client, sessionId, this.now()));
  }

  previewCompaction(sessionId: string, force: boolean): Promise<commands.CompactionPreview> {
    return this.guarded(() => commands.previewCompaction(this.link.client, sessionId, force));
  }

  writeHandoff(sessionId: string): Promise<commands.HandoffOutcome> {
    return this.guarded(async () => {
      const known = this.sessions.find(sessionId) ?? (this.current?.sessionId === sessionId ? this.current : undefined);
      const session = known ?? parseSession(await this.link.client.sessionsGet({ sessionId }));
      return commands.writeHandoff(this.link.client, session, this.folders);
    });
  }

  dispose(): void {
    clearInterval(this.statusTimer);
    this.changes.clear();
    this.notices.clear();
    this.link.dispose();
  }

  /** Tells the link about failures that mean memd is gone, and passes the error on. */
  private async guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      this.link.suspect(error instanceof commands.CommandError ? error.cause : error);
      throw error;
    }
  }

  /** Status changes are announced only when the text, tooltip or colour changed. */
  private changed(change: Change): void {
    if (change === 'status') {
      const view = this.status();
      const shown = `${view.text}\n${view.tooltip}\n${view.severity}`;
      if (shown === this.shownStatus) return;
      this.shownStatus = shown;
    }
    this.changes.fire(change);
  }

  private onLinkState(state: LinkState): void {
    if (state.kind === 'connected') {
      if (state.generation !== this.loadedGeneration) this.forecasts.reset();
      if (state.generation !== this.loadedGeneration) void this.reload(state.generation);
      return;
    }
    // What was loaded may be stale by the time memd is back: the view says why it is empty instead.
    this.sessions.clear();
    this.current = null;
    this.changed('tree');
    this.changed('status');
  }

  /** The first page of sessions and the folders' current session, from the connection of `generation`. */
  private async reload(generation = this.loadedGeneration): Promise<void> {
    this.loadedGeneration = generation;
    try {
      await this.reloading(async () => {
        const [{ list, invalid }] = await Promise.all([
          this.link.client.sessionsList({ limit: this.settings.pageSize }).then(parseSessionList),
          this.reloadCurrent(),
        ]);
        for (const problem of invalid) this.log(`left out of the sessions view: ${problem}`);
        this.sessions.reset(list);
        this.changed('tree');
      });
    } catch (error) {
      this.log(`could not load the sessions: ${describeError(error)}`);
      this.link.suspect(error);
    }
  }

  /** Runs a reload, then applies the updates that came meanwhile and are newer than what it loaded. */
  private async reloading(work: () => Promise<void>): Promise<void> {
    if (this.reloads++ === 0) this.missed = [];
    try {
      await work();
    } finally {
      if (--this.reloads === 0) {
        const missed = this.missed ?? [];
        this.missed = null;
        for (const session of missed) this.apply(session, true);
      }
    }
  }

  /** `sessions.list {project: <folder>, limit: 1}` per folder; the most recent answer wins. */
  private async reloadCurrent(): Promise<void> {
    let best: SessionSummary | null = null;
    if (this.link.current.kind === 'connected') {
      for (const folder of this.folders) {
        const { list } = parseSessionList(await this.link.client.sessionsList({ project: folder, limit: 1 }));
        const found = list.sessions[0];
        if (found !== undefined && (best === null || (found.lastActivity ?? '') > (best.lastActivity ?? '')))
          best = found;
      }
    }
    this.current = best;
    this.changed('status');
    void this.refreshDetail();
  }

  private onSessionUpdated(payload: unknown): void {
    let session: SessionSummary;
    try {
      session = parseSessionUpdated(payload);
    } catch (error) {
      this.log(`session.updated ignored: ${describeError(error)}`);
      return;
    }
    this.missed?.push(session);
    this.apply(session, false);
  }

  /** An update, as it comes, or `replayed` after a reload: then only when its activity is newer than what is shown. */
  private apply(session: SessionSummary, replayed: boolean): void {
    const newer = (shown: SessionSummary | null | undefined) =>
      shown === null || shown === undefined || (session.lastActivity ?? '') > (shown.lastActivity ?? '');
    if ((!replayed || newer(this.sessions.find(session.sessionId))) && this.sessions.update(session))
      this.changed('tree');
    const cwd = session.cwd;
    if (cwd === null || !this.folders.some((folder) => samePath(folder, cwd))) return;
    const current = this.current;
    const replaces = replayed
      ? newer(current)
      : current === null ||
        current.sessionId === session.sessionId ||
        (session.lastActivity ?? '') >= (current.lastActivity ?? '');
    if (replaces) {
      this.current = session;
      this.changed('status');
      void this.refreshDetail();
    }
  }

  private async onThresholdCrossed(payload: unknown): Promise<void> {
    try {
      const event = parseThresholdCrossed(payload);
      if (this.settings.notifications === 'off') return;
      const known =
        this.sessions.find(event.sessionId) ?? (this.current?.sessionId === event.sessionId ? this.current : undefined);
      const session = known ?? parseSession(await this.link.client.sessionsGet({ sessionId: event.sessionId }));
      if (!wanted(this.settings.notifications, session, this.folders)) return;
      const notice = noticeFor(event, session);
      if (notice !== null) this.notices.fire(notice);
    } catch (error) {
      this.log(`session.thresholdCrossed ignored: ${describeError(error)}`);
    }
  }
}
