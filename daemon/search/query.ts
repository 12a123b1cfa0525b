/**
 * `search.query` (issue 17): FTS5 MATCH over the contentless index, ranked by bm25 with a boost for
 * recent lines, filtered by session, project, time and kind through the entries and files the
 * rowid points at (store/search-row.ts). The query is parsed by memd (shared/search/query-syntax.ts):
 * a bad one is InvalidParams (-32602) naming where it breaks, never an SQLite error; one with
 * phrases or NEAR gets candidates here that the search worker checks on their text.
 */
import type Database from 'better-sqlite3';
import { invalidParams } from '../../shared/protocol/errors.js';
import type { SearchKind } from '../../shared/protocol/search.js';
import { SEARCH_KINDS } from '../../shared/protocol/search.js';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { fts5Query, isExact, parseQuery, type QueryNode, QuerySyntaxError } from '../../shared/search/query-syntax.js';
import { kindAt, searchRowParts, searchRowRange } from '../store/search-row.js';

/**
 * Candidates taken from each end of the rowid space before bm25 × recency ranks them. bm25 over
 * every match of a common word costs ~10 ms per 10,000 matches (200 ms at a heavy user's 2.4 GB);
 * FTS5 computes it only for the rows it returns when they come in rowid order. The ends are the
 * newest lines: the backfill reads files newest first, and lines met later get higher rowids. A
 * word with fewer matches than both ends together has all of them ranked.
 */
export const END_CANDIDATES = 1_000;
/** With a session or project filter the matches are thinned by the join, so more are looked at, best first. */
const FILTERED_CANDIDATES = 20_000;
export const DEFAULT_SEARCH_LIMIT = 20;
/** A line this many days old gets half the boost of one written now. */
const RECENCY_HALF_DAYS = 7;

export interface SearchFilter {
  query: string;
  project?: string;
  sessionId?: string;
  since?: string;
  until?: string;
  kinds?: readonly SearchKind[];
  limit?: number;
  cursor?: string;
}

export interface RawHit {
  fileId: number;
  offset: number;
  kind: SearchKind;
  score: number;
  sessionId: string;
  project: string;
  path: string;
  uuid: string | null;
  timestamp: string | null;
  length: number;
  gone: boolean;
}

const SPAN = /^(\d+)\s*([mhdw])$/;
const SPAN_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An ISO time, or a span back from now (`7d`, `12h`, `30m`, `2w`), as an ISO string. */
export function timeBound(value: string, now: number, name: string): string {
  const span = SPAN.exec(value.trim());
  if (span !== null) return new Date(now - Number(span[1]) * (SPAN_MS[span[2] as string] as number)).toISOString();
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidParams(`${name} must be an ISO time or a span such as 7d, 12h or 30m`, { [name]: value });
  return new Date(ms).toISOString();
}

export function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o(\d{1,7})$/.exec(cursor);
  if (match === null) throw invalidParams('cursor is not one this daemon gave', { kind: 'BadCursor' });
  return Number(match[1]);
}

/** The query parsed and planned: InvalidParams (-32602) with the position where it breaks. */
export function planQuery(query: string): SearchPlan {
  let tree: QueryNode;
  try {
    tree = parseQuery(query);
  } catch (error) {
    if (!(error instanceof QuerySyntaxError)) throw error;
    throw invalidParams(`the search query is not valid at position ${error.position}: ${error.message} (words, "phrases", OR, NOT, prefix*, NEAR(a b))`, {
      position: error.position,
      query,
    });
  }
  return { tree, fts: fts5Query(tree), exact: isExact(tree) };
}

export interface SearchPlan {
  tree: QueryNode;
  /** What FTS5 matches (null: nothing can match). */
  fts: string | null;
  /** FTS5's matches are the hits; otherwise each is checked on its text (phrases, NEAR). */
  exact: boolean;
}

/** The filter's values as the statement binds them. */
function bindings(filter: SearchFilter, now: number) {
  const project = filter.project === undefined ? null : filter.project.startsWith('/') ? sanitizeProjectDirName(filter.project) : filter.project;
  return {
    session: filter.sessionId ?? null,
    project,
    since: filter.since === undefined ? null : timeBound(filter.since, now, 'since'),
    until: filter.until === undefined ? null : timeBound(filter.until, now, 'until'),
    kinds: filter.kinds === undefined ? null : JSON.stringify(filter.kinds.map((kind) => SEARCH_KINDS.indexOf(kind))),
  };
}

export function createSearchQuery(db: Database.Database) {
  const parts = searchRowParts('s.rowid');
  const statements = new Map<boolean, Database.Statement>();
  // A session's texts lie between its files' first and last entries (store/search-row.ts): FTS5
  // looks only there. Otherwise the whole index, and NULL bounds (below) let every rowid through.
  const sessionBounds = db.prepare(`
    SELECT min((SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset LIMIT 1)) AS first,
           max((SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset DESC LIMIT 1)) AS last
    FROM files f WHERE f.session_id = ?`);
  const inBounds = 'rowid BETWEEN coalesce(@low, -9223372036854775808) AND coalesce(@high, 9223372036854775807)';
  const byRank = `SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query AND ${inBounds} ORDER BY rank LIMIT ${FILTERED_CANDIDATES}`;
  const byEnds = `SELECT rowid, rank FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query ORDER BY rowid DESC LIMIT ${END_CANDIDATES})
    UNION SELECT rowid, rank FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query ORDER BY rowid LIMIT ${END_CANDIDATES})`;
  const statement = (filtered: boolean) => {
    let prepared = statements.get(filtered);
    if (prepared !== undefined) return prepared;
    prepared = db.prepare(`
      SELECT e.file_id AS fileId, e.offset AS offset, ${parts.kind} AS kind,
             -s.rank * (1.0 + 1.0 / (1.0 + max(0.0, julianday('now') - coalesce(julianday(e.timestamp), julianday('now') - 3650)) / ${RECENCY_HALF_DAYS}.0)) AS score,
             f.session_id AS sessionId, f.project AS project, f.path AS path, f.gone AS gone,
             e.uuid AS uuid, e.timestamp AS timestamp, e.length AS length
      FROM (${filtered ? byRank : byEnds}) s
      JOIN entries e ON e.rowid = ${parts.entry}
      JOIN files f ON f.id = e.file_id
      WHERE (@session IS NULL OR f.session_id = @session)
        AND (@project IS NULL OR f.project = @project)
        AND (@since IS NULL OR e.timestamp >= @since)
        AND (@until IS NULL OR e.timestamp < @until)
        AND (@kinds IS NULL OR ${parts.kind} IN (SELECT value FROM json_each(@kinds)))
      ORDER BY score DESC, s.rowid DESC
      LIMIT @limit OFFSET @offset`);
    statements.set(filtered, prepared);
    return prepared;
  };

  /** The best `limit` rows FTS5 matches from `offset` on, filtered (before a plan's check on the text). */
  return (filter: SearchFilter, plan: SearchPlan, now: number, limit: number, offset: number): RawHit[] => {
    if (plan.fts === null) return [];
    const bound = bindings(filter, now);
    let low: number | null = null;
    let high: number | null = null;
    if (bound.session !== null) {
      const range = sessionBounds.get(bound.session) as { first: number | null; last: number | null };
      if (range.first === null || range.last === null) return [];
      [low, high] = searchRowRange(range.first, range.last);
    }
    const filtered = bound.session !== null || bound.project !== null;
    const params = { ...bound, query: plan.fts, limit, offset };
    let rows: (Omit<RawHit, 'kind' | 'gone'> & { kind: number; gone: number })[];
    try {
      rows = statement(filtered).all(filtered ? { ...params, low, high } : params) as typeof rows;
    } catch (error) {
      // The plan's query is memd's own, its words made by the tokenizer's rules; FTS5 refusing one
      // (a character its tables class otherwise) is still the query's, not a daemon failure.
      const message = error instanceof Error ? error.message : String(error);
      if (!/fts5/.test(message)) throw error;
      throw invalidParams(`the search query cannot be run: ${message.replace(/^fts5: /, '')}`, { position: 0, query: filter.query });
    }
    return rows.map((row) => ({ ...row, kind: kindAt(row.kind), gone: row.gone === 1 }));
  };
}
