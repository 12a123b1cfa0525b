/**
 * Sessions as the protocol reports them: summaries computed from the index (never from the
 * transcripts), cached until ingest changes a session, and `session.updated` /
 * `session.thresholdCrossed` published at most once per session per throttle interval.
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { EventTopic } from '../../shared/protocol/events.js';
import type {
  SessionFigures,
  SessionList,
  SessionMemoryState,
  SessionSummary,
  ThresholdState,
} from '../../shared/protocol/sessions.js';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log/logger.js';
import { type IndexPager, type IndexRow, type ListFilter, listPage, pageable, pagedList } from './list.js';
import type { SessionReports } from './reports.js';
import type { SessionWindows } from './windows.js';

/** DESIGN/issue 3: at most one session.updated per session per this interval. */
export const SESSION_UPDATE_THROTTLE_MS = 250;

/**
 * A change that no commit made (an extraction finished) is shown with the session's next update,
 * or after this long without one: published on its own at once, it would hold the next append's
 * update back for the rest of the throttle interval.
 */
export const BACKGROUND_UPDATE_DELAY_MS = 1_000;

/**
 * Summaries kept: a summary is one aggregate row away, so the cache only spares repeated reads of
 * the sessions in use; bounded, so that paging through 50,000 sessions does not keep them all.
 */
export const MAX_CACHED_SUMMARIES = 1_000;

export interface SessionService {
  /** `stated`: the window Claude Code stated for the session (windows.ts); it is kept and used from now on. */
  get(sessionId: string, stated?: number | null): SessionSummary;
  /** The session's title as its summary has it; null when untitled or unknown (search hits, archive listings). */
  title(sessionId: string): string | null;
  /** A window Claude Code stated without asking for the summary (the SessionStart hook's `model`): kept, and used from now on. */
  stateWindow(sessionId: string, window: number): void;
  list(filter: ListFilter): SessionList;
  /** Called by ingest after each commit that touched these sessions. */
  onSessionsChanged(sessionIds: readonly string[]): void;
  /** Something besides ingest changed the session's summary (an extraction): see BACKGROUND_UPDATE_DELAY_MS. */
  onBackgroundChange(sessionId: string): void;
  /** Forgets every cached summary: the database was rebuilt and is being read again. */
  forgetAll(): void;
  /** `archive.forget`: the session's pending updates are cancelled and what is kept of it goes (no late publish names it). */
  forgetSession(sessionId: string): void;
  close(): void;
}

export interface SessionServiceDeps {
  /** Every session the index knows, with its project folder, newest entry timestamp and counts. */
  sessionIndex(): IndexRow[];
  /** Pages of the index from the database, for the filters it decides (pagedList); else sessionIndex. */
  page?: IndexPager;
  /** The figures of one session, computed from the index; undefined when unknown. */
  summarize(sessionId: string): SessionFigures | undefined;
  /**
   * The session's memory state (lock holder, last extraction, spend), read at every answer and
   * event rather than cached: a lock comes and goes (and lapses) without any commit.
   */
  sessionMemory(sessionId: string): SessionMemoryState;
  /** Whether memd's archive holds the session's main transcript. */
  archived(sessionId: string): boolean;
  /** The machines holding the session when another machine's copy is indexed (sync), else undefined. */
  devices?(sessionId: string): string[] | undefined;
  bus: Bus;
  log: Logger;
  /** Whether any client listens to a topic: events nobody wants are not computed. */
  wanted(topic: EventTopic): boolean;
  /**
   * Whether threshold states are wanted whatever the clients want (auto-compaction's trigger
   * takes them from onState): changed sessions are then summarized and their state reported.
   */
  statesWanted?(): boolean;
  /** The windows Claude Code stated per session (summarize reads them too). */
  windows?: SessionWindows;
  /** What the status lines reported (reports.ts): forgotten with the session. */
  reports?: Pick<SessionReports, 'forget'>;
  clock?: () => number;
  throttleMs?: number;
  /**
   * Each threshold state computed for a changed session, with the one before it (undefined the
   * first time this process sees the session): auto-compaction starts from here.
   */
  onState?(sessionId: string, state: ThresholdState, previous: ThresholdState | undefined): void;
}

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const clock = deps.clock ?? Date.now;
  const throttleMs = deps.throttleMs ?? SESSION_UPDATE_THROTTLE_MS;
  const cache = new Map<string, SessionFigures>();
  const lastPublished = new Map<string, number>();
  const pending = new Map<string, NodeJS.Timeout>();
  const background = new Map<string, NodeJS.Timeout>();
  const lastState = new Map<string, ThresholdState>();

  const figures = (sessionId: string): SessionFigures | undefined => {
    const cached = cache.get(sessionId);
    if (cached) return cached;
    const fresh = deps.summarize(sessionId);
    if (fresh) {
      cache.set(sessionId, fresh);
      // Map order is insertion order: the first key is the one cached longest ago.
      if (cache.size > MAX_CACHED_SUMMARIES) cache.delete(cache.keys().next().value as string);
    }
    return fresh;
  };

  const summary = (sessionId: string): SessionSummary | undefined => {
    const found = figures(sessionId);
    if (found === undefined) return undefined;
    const devices = deps.devices?.(sessionId);
    return {
      ...found,
      sessionMemory: deps.sessionMemory(sessionId),
      archived: deps.archived(sessionId),
      ...(devices === undefined ? {} : { devices }),
    };
  };

  const publish = (sessionId: string) => {
    pending.delete(sessionId);
    // This update shows any background change too.
    clearTimeout(background.get(sessionId));
    background.delete(sessionId);
    lastPublished.set(sessionId, clock());
    const wantsUpdates = deps.wanted('session.updated');
    const wantsCrossings = deps.wanted('session.thresholdCrossed');
    if (!wantsUpdates && !wantsCrossings && deps.statesWanted?.() !== true) return;
    const current = summary(sessionId);
    if (!current) return;
    if (wantsUpdates) deps.bus.publish('session.updated', current);
    const previous = lastState.get(sessionId);
    lastState.set(sessionId, current.threshold.state);
    deps.onState?.(sessionId, current.threshold.state, previous);
    if (wantsCrossings && previous !== undefined && previous !== current.threshold.state) {
      deps.bus.publish('session.thresholdCrossed', {
        sessionId,
        from: previous,
        to: current.threshold.state,
        contextTokens: current.contextTokens,
        threshold: current.threshold,
      });
    }
  };

  const api: SessionService = {
    get(sessionId, stated) {
      // A new statement changes the thresholds: the summary is computed again with it.
      if (stated != null && deps.windows?.state(sessionId, stated) === true) cache.delete(sessionId);
      const found = summary(sessionId);
      if (!found)
        throw new RpcError(
          ErrorCode.NotFound,
          'NotFound',
          `no session ${sessionId} in the index; memctl sessions lists them`,
          { sessionId },
        );
      return found;
    },
    // Only the figures: every search hit asks, and a whole summary reads the session's memory too.
    title(sessionId) {
      try {
        return figures(sessionId)?.title ?? null;
      } catch {
        return null;
      }
    },
    stateWindow(sessionId, window) {
      if (deps.windows?.state(sessionId, window) === true) cache.delete(sessionId);
    },
    list(filter) {
      if (deps.page !== undefined && pageable(filter)) return pagedList(deps.page, filter, summary);
      return listPage(deps.sessionIndex(), filter, summary, clock());
    },
    onSessionsChanged(sessionIds) {
      // Nobody wants events now (no subscriber; states off during the backfill): only forget the
      // cached summaries. Scheduling would compute them later for sessions nobody asked about.
      const wanted =
        deps.wanted('session.updated') || deps.wanted('session.thresholdCrossed') || deps.statesWanted?.() === true;
      for (const sessionId of new Set(sessionIds)) {
        if (!wanted) {
          const stale = cache.get(sessionId);
          if (stale && !lastState.has(sessionId)) lastState.set(sessionId, stale.threshold.state);
          cache.delete(sessionId);
          continue;
        }
        // The state a client last saw is the baseline of the next crossing.
        const stale = cache.get(sessionId);
        if (stale && !lastState.has(sessionId)) lastState.set(sessionId, stale.threshold.state);
        cache.delete(sessionId);
        if (pending.has(sessionId)) continue;
        const wait = (lastPublished.get(sessionId) ?? -Infinity) + throttleMs - clock();
        if (wait <= 0) {
          publish(sessionId);
          continue;
        }
        const timer = setTimeout(() => {
          try {
            publish(sessionId);
          } catch (error) {
            deps.log.error('publishing a session update failed', { sessionId, error });
          }
        }, wait);
        timer.unref();
        pending.set(sessionId, timer);
      }
    },
    onBackgroundChange(sessionId) {
      // Read at once with the change; published with the next update.
      const stale = cache.get(sessionId);
      if (stale && !lastState.has(sessionId)) lastState.set(sessionId, stale.threshold.state);
      cache.delete(sessionId);
      if (background.has(sessionId) || pending.has(sessionId)) return;
      const timer = setTimeout(() => {
        background.delete(sessionId);
        api.onSessionsChanged([sessionId]);
      }, BACKGROUND_UPDATE_DELAY_MS);
      timer.unref();
      background.set(sessionId, timer);
    },
    forgetAll() {
      cache.clear();
    },
    forgetSession(sessionId) {
      for (const timers of [pending, background]) {
        const timer = timers.get(sessionId);
        if (timer !== undefined) clearTimeout(timer);
        timers.delete(sessionId);
      }
      cache.delete(sessionId);
      deps.windows?.forget(sessionId);
      deps.reports?.forget(sessionId);
      lastPublished.delete(sessionId);
      lastState.delete(sessionId);
    },
    close() {
      for (const timer of [...pending.values(), ...background.values()]) clearTimeout(timer);
      pending.clear();
      background.clear();
    },
  };
  return api;
}
