/** What a `search.query` asks (its params as the search processes get them, issue 17), and what the daemon adds. */
import type { SearchKind } from '../../shared/protocol/search.js';

export interface SearchFilter {
  query: string;
  project?: string;
  sessionId?: string;
  since?: string;
  until?: string;
  kinds?: readonly SearchKind[];
  /** The session the search is asked from (memctl and the MCP server send it): its turn in flight is left out. */
  askingSession?: string;
  /** Sessions whose turn is open (an agent holds their memory lock, hooks): theirs too (the daemon adds them). */
  openTurns?: readonly string[];
  limit?: number;
  cursor?: string;
  /**
   * Daemon-internal (recall.ts; not a protocol param): run the query as a question whatever its
   * shape (a prompt may hold quotes or a single word), leave these sessions out, and make each
   * passage about this many characters instead of a snippet's 200.
   */
  question?: boolean;
  excludeSessions?: readonly string[];
  passageChars?: number;
}
