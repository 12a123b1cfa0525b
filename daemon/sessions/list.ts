/**
 * `sessions.list`: a bounded page of the index, newest first. Sessions whose files are all gone,
 * and sessions with no entry at all, are history: kept with their totals, listed only with `all`.
 * Everything here is decided from the index rows; only the sessions of the page are summarized
 * (a cwd filter is the exception: it needs each candidate's summary).
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { SessionList, SessionSummary } from '../../shared/protocol/sessions.js';

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

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Newest activity first, then by id, so that a cursor names one place in a stable order. By code
 * unit, not localeCompare: ISO timestamps and ids sort the same, and sorting 50,000 sessions
 * with localeCompare alone takes about half a second.
 */
function compare(a: Position, b: Position): number {
  return byCodeUnit(b.lastActivity, a.lastActivity) || byCodeUnit(a.sessionId, b.sessionId);
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
    throw new RpcError(ErrorCode.InvalidParams, 'BadCursor', 'cursor is not one that sessions.list returned', {
      cursor,
    });
  }
  return { lastActivity: value[0], sessionId: value[1] };
}

export function listPage(
  index: readonly IndexRow[],
  filter: ListFilter,
  summary: (sessionId: string) => SessionSummary | undefined,
  now: number,
): SessionList {
  const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
  const byCwd = filter.project?.startsWith('/') === true;
  const position = (row: IndexRow): Position => ({ lastActivity: row.lastActivity ?? '', sessionId: row.sessionId });
  const rows = index.filter(
    (row) =>
      (filter.activeWithinMs === undefined ||
        (row.lastActivity !== null && now - Date.parse(row.lastActivity) <= filter.activeWithinMs)) &&
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

/** A page of the index as the database gives it (aggregates.ts), with the totals it pages through. */
export type IndexPager = (query: { project?: string; all: boolean; after?: Position; limit: number }) => {
  rows: IndexRow[];
  total: number;
  hidden: number;
};

/**
 * listPage without holding the whole index: the database orders, filters and counts, and only
 * the page's rows come back. For the filters it can decide (a project folder, all); a cwd or an
 * activity window goes through listPage.
 */
export function pagedList(
  pager: IndexPager,
  filter: ListFilter,
  summary: (sessionId: string) => SessionSummary | undefined,
): SessionList {
  const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
  // One more than the page: whether there is a next page.
  const { rows, total, hidden } = pager({
    ...(filter.project === undefined ? {} : { project: filter.project }),
    all: filter.all === true,
    ...(after === undefined ? {} : { after }),
    limit: limit + 1,
  });
  const sessions: SessionSummary[] = [];
  let lastListed: IndexRow | undefined;
  for (const row of rows.slice(0, limit)) {
    const found = summary(row.sessionId);
    if (!found) continue;
    lastListed = row;
    sessions.push(found);
  }
  const more = rows.length > limit;
  return {
    sessions,
    total,
    hidden,
    nextCursor:
      more && lastListed !== undefined
        ? encodeCursor({ lastActivity: lastListed.lastActivity ?? '', sessionId: lastListed.sessionId })
        : null,
  };
}

/** Whether the database can page this filter itself (pagedList). */
export function pageable(filter: ListFilter): boolean {
  return filter.activeWithinMs === undefined && filter.project?.startsWith('/') !== true;
}
