/**
 * `sessions.list`: a bounded page of the index, newest first. Sessions whose files are all gone,
 * and sessions with no entry at all, are history: kept with their totals, listed only with `all`.
 * Everything here is decided from the index rows; only the sessions of the page are summarized
 * (a cwd filter is the exception: it needs each candidate's summary).
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { SessionList, SessionSummary } from '../../shared/protocol/results.js';

/** A default list answers in one screenful of work even at 50,000 sessions (issue 13 item 11). */
export const DEFAULT_LIST_LIMIT = 200;

export interface ListFilter {
  project?: string;
  activeWithinMs?: number;
  limit?: number;
  cursor?: string;
  all?: boolean;
}

export interface IndexRow {
  sessionId: string;
  project: string;
  lastActivity: string | null;
  allGone: boolean;
  entries: number;
  badLines: number;
}

/** Why a session is left out of a default list, or null when it is listed. */
export function hiddenReason(row: IndexRow): 'gone' | 'empty' | null {
  if (row.allGone) return 'gone';
  if (row.entries === 0 && row.badLines === 0) return 'empty';
  return null;
}

interface Position {
  lastActivity: string;
  sessionId: string;
}

/** Newest activity first, then by id, so that a cursor names one place in a stable order. */
function compare(a: Position, b: Position): number {
  return b.lastActivity.localeCompare(a.lastActivity) || a.sessionId.localeCompare(b.sessionId);
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.lastActivity, position.sessionId])).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') {
    throw new RpcError(ErrorCode.InvalidParams, 'BadCursor', 'cursor is not one that sessions.list returned', { cursor });
  }
  return { lastActivity: value[0], sessionId: value[1] };
}

export function listPage(index: readonly IndexRow[], filter: ListFilter, summary: (sessionId: string) => SessionSummary | undefined, now: number): SessionList {
  const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
  const byCwd = filter.project?.startsWith('/') === true;
  const position = (row: IndexRow): Position => ({ lastActivity: row.lastActivity ?? '', sessionId: row.sessionId });
  const rows = index.filter(
    (row) =>
      (filter.activeWithinMs === undefined || (row.lastActivity !== null && now - Date.parse(row.lastActivity) <= filter.activeWithinMs)) &&
      // A folder name can be checked on the row; a cwd needs the summary.
      (filter.project === undefined || byCwd || row.project === filter.project),
  );
  let hidden = 0;
  const listable: IndexRow[] = [];
  for (const row of rows) {
    if (filter.all !== true && hiddenReason(row) !== null) hidden += 1;
    else listable.push(row);
  }
  listable.sort((a, b) => compare(position(a), position(b)));
  const sessions: SessionSummary[] = [];
  let nextCursor: string | null = null;
  let lastListed: IndexRow | undefined;
  for (const row of listable) {
    if (after !== undefined && compare(position(row), after) <= 0) continue;
    if (sessions.length >= limit) {
      if (lastListed !== undefined) nextCursor = encodeCursor(position(lastListed));
      break;
    }
    const found = summary(row.sessionId);
    if (!found) continue;
    if (byCwd && found.project !== filter.project && found.cwd !== filter.project) continue;
    lastListed = row;
    sessions.push(found);
  }
  // With a cwd filter the total would need every candidate's summary: it is left out.
  return { sessions, total: byCwd ? null : listable.length, hidden, nextCursor };
}
