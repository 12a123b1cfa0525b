/**
 * What Claude Code's status lines reported of the plan limits, the prompt cache and the session's
 * reasoning effort (`sessions.report`, issue 31): the latest per session, and the account's latest plan limits (the
 * windows are the account's; a memd serves one user, so the latest any session reported). Kept in
 * memory only: the figures are minutes old at best, and Claude Code reports them again after each
 * response, so a restarted memd shows none until the next refresh rather than stale ones.
 */
import type {
  EffortReport,
  PromptCacheReport,
  RateLimitsReport,
  Reported,
  ReportedState,
} from '../../shared/protocol/reports.js';

export interface SessionReports {
  /** Records what a status line reported; false when it held nothing. */
  report(
    sessionId: string,
    reports: { rateLimits?: RateLimitsReport; promptCache?: PromptCacheReport; effort?: EffortReport },
  ): boolean;
  get(sessionId: string): ReportedState;
  /** `archive.forget`: the session's reports go. */
  forget(sessionId: string): void;
}

/** Sessions kept: far above the sessions one user runs at once; the oldest report goes first. */
const MAX_SESSIONS = 1_000;

export function createSessionReports(clock: () => number): SessionReports {
  const limits = new Map<string, Reported<RateLimitsReport>>();
  const caches = new Map<string, Reported<PromptCacheReport>>();
  const efforts = new Map<string, Reported<EffortReport>>();
  let account: Reported<RateLimitsReport> | null = null;
  const keep = <T>(map: Map<string, T>, sessionId: string, value: T) => {
    // Re-inserted so that the map's order is the reports' order, oldest first.
    map.delete(sessionId);
    map.set(sessionId, value);
    const oldest = map.keys().next();
    if (map.size > MAX_SESSIONS && oldest.done !== true) map.delete(oldest.value);
  };
  return {
    report(sessionId, reports) {
      const reportedAt = new Date(clock()).toISOString();
      const stamp = <T>(value: T): Reported<T> => ({ value, provenance: 'official', sessionId, reportedAt });
      if (reports.rateLimits !== undefined) {
        account = stamp(reports.rateLimits);
        keep(limits, sessionId, account);
      }
      if (reports.promptCache !== undefined) keep(caches, sessionId, stamp(reports.promptCache));
      if (reports.effort !== undefined) keep(efforts, sessionId, stamp(reports.effort));
      return reports.rateLimits !== undefined || reports.promptCache !== undefined || reports.effort !== undefined;
    },
    get(sessionId) {
      return {
        rateLimits: limits.get(sessionId) ?? null,
        accountRateLimits: account,
        promptCache: caches.get(sessionId) ?? null,
        effort: efforts.get(sessionId) ?? null,
      };
    },
    forget(sessionId) {
      limits.delete(sessionId);
      caches.delete(sessionId);
      efforts.delete(sessionId);
      if (account?.sessionId === sessionId) account = null;
    },
  };
}
