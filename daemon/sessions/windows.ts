/**
 * The context window Claude Code stated for each session (migration 20): what its status line
 * says (`context_window.context_window_size`) or a `[1m]` model id, passed on by the status line
 * and hooks in `sessions.get`. It wins over memd's model table (shared/transcript/models.ts); a
 * model id without `[1m]` states nothing, since Claude Code runs some bare ids at 1M.
 */
import type Database from 'better-sqlite3';
import {
  DEFAULT_CONTEXT_WINDOW,
  EXTENDED_CONTEXT_WINDOW,
  hasOneMillionSuffix,
} from '../../shared/transcript/models.js';

export interface SessionWindows {
  /** The window stated for the session, or null when Claude Code never said. */
  get(sessionId: string): number | null;
  /**
   * The window for the session's thresholds: the stated one, else 1M when a main-thread request
   * of its transcript (input + cache writes + reads, from the usage book) ever passed 200K, which
   * only a larger window serves, even long after (a compaction brings the newest one down).
   */
  forSession(sessionId: string): number | null;
  /** Records a statement; true when it changed what was known (the summary must be computed again). */
  state(sessionId: string, window: number): boolean;
  /** `archive.forget`: what is kept in memory goes (the row goes with the session's tables). */
  forget(sessionId: string): void;
}

/** The window a client's `window` / `model` params state, or null when they state none. */
export function statedWindow(params: { window?: number; model?: string }): number | null {
  if (params.window !== undefined) return params.window;
  if (params.model !== undefined && hasOneMillionSuffix(params.model)) return EXTENDED_CONTEXT_WINDOW;
  return null;
}

export function createSessionWindows(db: Database.Database, clock: () => number): SessionWindows {
  const read = db.prepare('SELECT window FROM session_windows WHERE session_id = ?').pluck();
  const write = db.prepare(`
    INSERT INTO session_windows (session_id, window, stated_at) VALUES (?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET window = excluded.window, stated_at = excluded.stated_at`);
  // Statements come with every status line refresh: the known ones are answered from memory.
  const known = new Map<string, number | null>();
  const get = (sessionId: string): number | null => {
    if (!known.has(sessionId)) known.set(sessionId, (read.get(sessionId) as number | undefined) ?? null);
    return known.get(sessionId) ?? null;
  };
  const largestPrompt = db
    .prepare(
      "SELECT MAX(input + cache_creation + cache_read) FROM session_responses WHERE session_id = ? AND bucket = 'main'",
    )
    .pluck();
  return {
    get,
    forSession(sessionId) {
      const stated = get(sessionId);
      if (stated !== null) return stated;
      const largest = largestPrompt.get(sessionId) as number | null | undefined;
      return largest != null && largest > DEFAULT_CONTEXT_WINDOW ? EXTENDED_CONTEXT_WINDOW : null;
    },
    state(sessionId, window) {
      if (get(sessionId) === window) return false;
      write.run(sessionId, window, clock());
      known.set(sessionId, window);
      return true;
    },
    forget(sessionId) {
      known.delete(sessionId);
    },
  };
}
