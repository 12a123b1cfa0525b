/**
 * What Claude Code's newer hooks tell memd about a session (issue 31), kept in memory for the
 * daemon's life: the turns an API error ended (StopFailure: why, and when), and the instruction
 * files (CLAUDE.md, rules) InstructionsLoaded reported in context, so that after a compaction memd
 * can say which of them did not come back. Neither outlives a restart: both describe the live
 * session, which a restarted daemon hears about again from its next hooks.
 */
import type { InstructionsState, TurnFailure } from '../../shared/protocol/handoff.js';

/** Sessions remembered at once; the least recently heard of goes first. A user runs a handful at a time. */
const MAX_SESSIONS = 200;
/** Turn failures kept per session, newest: a rate-limited session can fail every turn. */
const MAX_FAILURES = 20;
/** Instruction files kept per session: a monorepo's nested CLAUDE.md and rules, far above any real count. */
const MAX_FILES = 500;
/** InstructionsLoaded's load_reason for the files Claude Code loads again after a compaction. */
const AFTER_COMPACT = 'compact';

interface LoadedFile {
  path: string;
  memoryType: string;
  loadReason: string;
  at: number;
}

interface SessionHooks {
  failures: TurnFailure[];
  loaded: Map<string, LoadedFile>;
  /** At the latest compaction: the files in context before it, and those loaded since. */
  compaction: { at: number; before: string[]; since: Set<string> } | null;
  lastLoadReason: string | null;
}

export function createHookMemory() {
  const sessions = new Map<string, SessionHooks>();

  const of = (sessionId: string): SessionHooks => {
    const found = sessions.get(sessionId);
    // Re-inserted: the map's order is the order sessions were last heard of.
    if (found !== undefined) sessions.delete(sessionId);
    const session = found ?? { failures: [], loaded: new Map(), compaction: null, lastLoadReason: null };
    sessions.set(sessionId, session);
    const oldest = sessions.keys().next().value;
    if (sessions.size > MAX_SESSIONS && oldest !== undefined) sessions.delete(oldest);
    return session;
  };

  return {
    turnFailed(sessionId: string, error: string, details: string | null, at: number): TurnFailure {
      const failure: TurnFailure = { at: new Date(at).toISOString(), error, details };
      const session = of(sessionId);
      session.failures = [failure, ...session.failures].slice(0, MAX_FAILURES);
      return failure;
    },

    instructionsLoaded(sessionId: string, file: LoadedFile): void {
      const session = of(sessionId);
      // The first of a run of `compact` loads is the compaction: what was in context before it is what should come back.
      if (file.loadReason === AFTER_COMPACT && session.lastLoadReason !== AFTER_COMPACT)
        session.compaction = { at: file.at, before: [...session.loaded.keys()], since: new Set() };
      session.lastLoadReason = file.loadReason;
      session.compaction?.since.add(file.path);
      session.loaded.delete(file.path);
      session.loaded.set(file.path, file);
      const oldest = session.loaded.keys().next().value;
      if (session.loaded.size > MAX_FILES && oldest !== undefined) session.loaded.delete(oldest);
    },

    /** Null when no hook told memd anything about the session. */
    status(sessionId: string): { turnFailures: TurnFailure[]; instructions: InstructionsState } | null {
      const session = sessions.get(sessionId);
      if (session === undefined) return null;
      const { compaction } = session;
      return {
        turnFailures: session.failures,
        instructions: {
          loaded: [...session.loaded.values()].map((file) => ({ ...file, at: new Date(file.at).toISOString() })),
          compactedAt: compaction === null ? null : new Date(compaction.at).toISOString(),
          notBack: compaction === null ? [] : compaction.before.filter((path) => !compaction.since.has(path)),
        },
      };
    },
  };
}

export type HookMemory = ReturnType<typeof createHookMemory>;
