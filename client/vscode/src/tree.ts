/**
 * The sessions view's model: the pages loaded so far (most recent first), kept current by
 * `session.updated`, and the nodes VS Code's tree shows for them (a session with its context
 * bar, "Load more" while pages remain, or a line saying why there is nothing). Pure.
 */

import type { SessionList, SessionSummary, ThresholdState } from '../../../shared/protocol/sessions.js';
import { formatStatusLine } from '../../../shared/statusline/format.js';
import { contextLine, OPEN_SESSION_COMMAND, sessionName } from './status.js';

/** A context bar as a description: wide enough that the bar, the percentage and tokens left always fit. */
const DESCRIPTION_COLUMNS = 200;
/** The contextValue that the manifest's item menus match (`viewItem == memd.session`). */
export const SESSION_CONTEXT = 'memd.session';
export const LOAD_MORE_COMMAND = 'memd.loadMore';

/** Codicons by threshold state. */
const ICON_BY_STATE: Record<ThresholdState, string> = {
  ok: 'comment-discussion',
  warning: 'warning',
  error: 'warning',
  autocompact: 'error',
  blocking: 'error',
};

export type TreeNode =
  | {
      kind: 'session';
      /** Stable across updates, so that VS Code keeps the selection and expansion. */
      id: string;
      sessionId: string;
      label: string;
      description: string;
      tooltip: string;
      icon: string;
      contextValue: typeof SESSION_CONTEXT;
      command: { id: string; title: string; args: unknown[] };
      /** Expands to its forecasts (forecasts.ts) when memd answers `usage.status`. */
      expandable: boolean;
    }
  | {
      /** One of a session's forecasts (issue 31): the figure, its provenance, its basis in the tooltip. */
      kind: 'forecast';
      id: string;
      label: string;
      description: string;
      tooltip: string;
      icon: string;
    }
  | {
      kind: 'more';
      id: 'memd.more';
      label: string;
      icon: string;
      command: { id: string; title: string; args: unknown[] };
    }
  | { kind: 'message'; id: string; label: string; icon: string };

/** The context bar alone: `▕██░░░░░░▏ 24% used of auto-compact · 131K left`. */
export function contextBar(session: SessionSummary, now: number): string {
  return formatStatusLine(
    { threshold: session.threshold, compactions: null, memoryAt: undefined, costUsd: null, note: null },
    { color: false, columns: DESCRIPTION_COLUMNS, now },
  );
}

function sessionTooltip(session: SessionSummary, now: number): string {
  const full = contextLine(session, DESCRIPTION_COLUMNS, now);
  const lines = [sessionName(session), full, `session ${session.sessionId}`];
  if (session.cwd !== null) lines.push(`cwd ${session.cwd}`);
  if (session.lastActivity !== null) lines.push(`last activity ${session.lastActivity}`);
  return lines.join('\n');
}

export function sessionNode(session: SessionSummary, now: number, expandable = false): TreeNode {
  return {
    kind: 'session',
    id: `memd.session.${session.sessionId}`,
    sessionId: session.sessionId,
    label: sessionName(session),
    description: contextBar(session, now),
    tooltip: sessionTooltip(session, now),
    icon: ICON_BY_STATE[session.threshold.state],
    contextValue: SESSION_CONTEXT,
    command: { id: OPEN_SESSION_COMMAND, title: 'Open Session Details', args: [session.sessionId] },
    expandable,
  };
}

function byRecency(a: SessionSummary, b: SessionSummary): number {
  // ISO timestamps order as strings; a session without activity goes last.
  const left = a.lastActivity ?? '';
  const right = b.lastActivity ?? '';
  return left === right ? 0 : left < right ? 1 : -1;
}

export class SessionsModel {
  private sessions: SessionSummary[] = [];
  private nextCursor: string | null = null;
  private loaded = false;

  get all(): readonly SessionSummary[] {
    return this.sessions;
  }

  get cursor(): string | null {
    return this.nextCursor;
  }

  get hasMore(): boolean {
    return this.nextCursor !== null;
  }

  find(sessionId: string): SessionSummary | undefined {
    return this.sessions.find((session) => session.sessionId === sessionId);
  }

  /** The first page, replacing whatever was loaded (after a reconnection, or memd: Refresh). */
  reset(page: SessionList): void {
    this.sessions = [...page.sessions];
    this.nextCursor = page.nextCursor;
    this.loaded = true;
  }

  /** The next page; sessions already shown (moved up by an update since) are not shown twice. */
  append(page: SessionList): void {
    const known = new Set(this.sessions.map((session) => session.sessionId));
    this.sessions.push(...page.sessions.filter((session) => !known.has(session.sessionId)));
    this.nextCursor = page.nextCursor;
  }

  /** Drops what was loaded (memd went away): the view says why instead. */
  clear(): void {
    this.sessions = [];
    this.nextCursor = null;
    this.loaded = false;
  }

  /**
   * A `session.updated`: replaces the session where it is, moving it up when its activity is
   * newer; a session not loaded yet is added only where the loaded pages cover its place (else
   * a later page brings it). Returns whether the view changed.
   */
  update(session: SessionSummary): boolean {
    if (!this.loaded) return false;
    const index = this.sessions.findIndex((known) => known.sessionId === session.sessionId);
    if (index >= 0) this.sessions[index] = session;
    else {
      const last = this.sessions.at(-1);
      if (this.nextCursor !== null && last !== undefined && byRecency(session, last) > 0) return false;
      this.sessions.push(session);
    }
    // Stable: sessions of equal activity keep the daemon's order.
    this.sessions.sort(byRecency);
    return true;
  }

  /** The view's top nodes; `expandable`: sessions open to their forecasts (memd answers `usage.status`). */
  nodes(now: number, expandable = false): TreeNode[] {
    if (!this.loaded) return [];
    if (this.sessions.length === 0)
      return [{ kind: 'message', id: 'memd.empty', label: 'memd knows no Claude Code session yet', icon: 'info' }];
    const nodes = this.sessions.map((session) => sessionNode(session, now, expandable));
    if (this.nextCursor !== null) {
      nodes.push({
        kind: 'more',
        id: 'memd.more',
        label: 'Load more sessions…',
        icon: 'ellipsis',
        command: { id: LOAD_MORE_COMMAND, title: 'Load More Sessions', args: [] },
      });
    }
    return nodes;
  }
}
