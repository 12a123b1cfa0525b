/**
 * What recall injected in each session, so that a passage goes into a session's context once
 * (issue 33): Claude Code keeps it in the conversation, and a second copy only costs tokens. Kept
 * in memory, bounded: the sessions used most recently, and their newest passages. A daemon restart
 * forgets it (a passage may then come once more).
 */

/** Sessions remembered: far more than are open at once. */
const SESSIONS = 512;
/** Passages remembered per session: a long session's whole recall. */
const PASSAGES_PER_SESSION = 512;

export function createInjectedBook() {
  const sessions = new Map<string, Set<string>>();

  const of = (sessionId: string): Set<string> => {
    let keys = sessions.get(sessionId);
    if (keys === undefined) keys = new Set();
    // Most recently used last, so that the first is the one to drop.
    sessions.delete(sessionId);
    sessions.set(sessionId, keys);
    for (const oldest of sessions.keys()) {
      if (sessions.size <= SESSIONS) break;
      sessions.delete(oldest);
    }
    return keys;
  };

  return {
    has: (sessionId: string, key: string): boolean => sessions.get(sessionId)?.has(key) ?? false,
    add(sessionId: string, keys: readonly string[]): void {
      const book = of(sessionId);
      for (const key of keys) book.add(key);
      for (const oldest of book) {
        if (book.size <= PASSAGES_PER_SESSION) break;
        book.delete(oldest);
      }
    },
  };
}

export type InjectedBook = ReturnType<typeof createInjectedBook>;
