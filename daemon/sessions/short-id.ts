/**
 * Session ids as people type them: memctl prints the first 8 characters, and any unique prefix
 * names a session, as git's abbreviated hashes do.
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { sessionIdsWithPrefix } from '../transcripts/queries.js';

/** Shorter prefixes match too much to be meant (git's minimum abbreviation). */
export const MIN_SESSION_PREFIX = 4;
/** Candidates listed in an AmbiguousSessionId error; more would not help anyone choose. */
const MAX_CANDIDATES = 10;

export function createSessionIdResolver(db: Database.Database): (sessionId: string) => string {
  return (sessionId) => {
    if (sessionId.length < MIN_SESSION_PREFIX) {
      // A whole id this short (a file stem) still names its session; any other is a prefix too
      // short to check for uniqueness, which is not the same as "no session" (issue 28).
      if (sessionId === '' || sessionIdsWithPrefix(db, sessionId, 1)[0] === sessionId) return sessionId;
      throw new RpcError(
        ErrorCode.InvalidParams,
        'SessionIdTooShort',
        `session id "${sessionId}" is too short (${MIN_SESSION_PREFIX}+ characters): memctl sessions lists the ids`,
        {
          prefix: sessionId,
          minLength: MIN_SESSION_PREFIX,
        },
      );
    }
    const candidates = sessionIdsWithPrefix(db, sessionId, MAX_CANDIDATES + 1);
    if (candidates.length === 0 || candidates.includes(sessionId)) return sessionId;
    if (candidates.length === 1) return candidates[0] as string;
    const shown = candidates.slice(0, MAX_CANDIDATES);
    const more = candidates.length > MAX_CANDIDATES ? ', …' : '';
    throw new RpcError(
      ErrorCode.InvalidParams,
      'AmbiguousSessionId',
      `session id prefix "${sessionId}" is ambiguous: ${shown.join(', ')}${more}`,
      {
        prefix: sessionId,
        candidates: shown,
      },
    );
  };
}
