/**
 * `search.query` (issue 17): FTS5 MATCH over the contentless index, ranked by bm25 with a boost for
 * recent lines, filtered by session, project, time and kind through the files and entries the
 * rowid points at (store/search-row.ts), paged by offset. A bad query is InvalidParams (-32602)
 * naming where it breaks; it never reaches the caller as an SQLite error.
 */
import type Database from 'better-sqlite3';
import { invalidParams } from '../../shared/protocol/errors.js';
import type { SearchKind } from '../../shared/protocol/search.js';
import { SEARCH_KINDS } from '../../shared/protocol/search.js';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { kindAt, searchRowParts } from '../store/search-row.js';

/**
 * Candidates taken from each end of the rowid space before bm25 × recency ranks them. bm25 over
 * every match of a common word costs ~10 ms per 10,000 matches (200 ms at a heavy user's 2.4 GB);
 * FTS5 computes it only for the rows it returns when they come in rowid order. The ends are the
 * newest files: the backfill numbers files newest first, and files met later get higher ids. A
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

const BAREWORD = /^[\p{L}\p{N}_]+\*?$/u;
const OPERATOR = /^(?:AND|OR|NOT|NEAR(?:\/\d+)?)$/;

/**
 * The query as FTS5 takes it: a word with punctuation in it (`totals.js`, `Math.round`,
 * `src/app.ts`, `--force`) is quoted into a phrase, as a user means it, instead of failing as
 * syntax. Quoted phrases, parentheses, operators and `prefix*` pass unchanged; an unbalanced quote
 * or parenthesis still fails, with its position.
 */
export function ftsQuery(query: string): string {
  return query.replace(/"[^"]*"|[^\s"()]+/g, (token) => {
    if (token.startsWith('"') || BAREWORD.test(token) || OPERATOR.test(token)) return token;
    return `"${token}"`;
  });
}

/** SQLite's `fts5: syntax error near "x"` as InvalidParams with the position of x in the query. */
function syntaxError(query: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (!/fts5|unterminated|no such column|syntax error|malformed MATCH/i.test(message)) return error as Error;
  const near = /near "([^"]*)"/.exec(message)?.[1];
  // An unterminated phrase starts at the last quote; an error at the end has nothing to be near.
  const position = /unterminated string/.test(message) ? Math.max(0, query.lastIndexOf('"')) : near === undefined || near === '' ? query.length : Math.max(0, query.indexOf(near));
  return invalidParams(`the search query is not valid FTS5 syntax at position ${position}: ${message.replace(/^fts5: /, '')} (words, "phrases", OR, NOT, prefix*)`, {
    position,
    query,
  });
}

export function createSearchQuery(db: Database.Database) {
  const parts = searchRowParts('s.rowid');
  const statements = new Map<number, Database.Statement>();
  const byRank = `SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query ORDER BY rank LIMIT ${FILTERED_CANDIDATES}`;
  const byEnds = `SELECT rowid, rank FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query ORDER BY rowid DESC LIMIT ${END_CANDIDATES})
    UNION SELECT rowid, rank FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH @query ORDER BY rowid LIMIT ${END_CANDIDATES})`;
  const statement = (filtered: boolean) => {
    const key = filtered ? 1 : 0;
    let prepared = statements.get(key);
    if (prepared !== undefined) return prepared;
    prepared = db.prepare(`
      SELECT ${parts.fileId} AS fileId, ${parts.offset} AS offset, ${parts.kind} AS kind,
             -s.rank * (1.0 + 1.0 / (1.0 + max(0.0, julianday('now') - coalesce(julianday(e.timestamp), julianday('now') - 3650)) / ${RECENCY_HALF_DAYS}.0)) AS score,
             f.session_id AS sessionId, f.project AS project, f.path AS path, f.gone AS gone,
             e.uuid AS uuid, e.timestamp AS timestamp, e.length AS length
      FROM (${filtered ? byRank : byEnds}) s
      JOIN files f ON f.id = ${parts.fileId}
      JOIN entries e ON e.file_id = f.id AND e.offset = ${parts.offset}
      WHERE (@session IS NULL OR f.session_id = @session)
        AND (@project IS NULL OR f.project = @project)
        AND (@since IS NULL OR e.timestamp >= @since)
        AND (@until IS NULL OR e.timestamp < @until)
        AND (@kinds IS NULL OR ${parts.kind} IN (SELECT value FROM json_each(@kinds)))
      ORDER BY score DESC, s.rowid DESC
      LIMIT @limit OFFSET @offset`);
    statements.set(key, prepared);
    return prepared;
  };

  return (filter: SearchFilter, now: number): { hits: RawHit[]; nextOffset: number | null } => {
    const limit = filter.limit ?? DEFAULT_SEARCH_LIMIT;
    const offset = cursorOffset(filter.cursor);
    const project = filter.project === undefined ? null : filter.project.startsWith('/') ? sanitizeProjectDirName(filter.project) : filter.project;
    const filtered = filter.sessionId !== undefined || project !== null;
    const params = {
      query: ftsQuery(filter.query),
      session: filter.sessionId ?? null,
      project,
      since: filter.since === undefined ? null : timeBound(filter.since, now, 'since'),
      until: filter.until === undefined ? null : timeBound(filter.until, now, 'until'),
      kinds: filter.kinds === undefined ? null : JSON.stringify(filter.kinds.map((kind) => SEARCH_KINDS.indexOf(kind))),
      // One more than asked for says whether there is a next page.
      limit: limit + 1,
      offset,
    };
    let rows: (Omit<RawHit, 'kind' | 'gone'> & { kind: number; gone: number })[];
    try {
      rows = statement(filtered).all(params) as typeof rows;
    } catch (error) {
      throw syntaxError(filter.query, error);
    }
    const hits = rows.slice(0, limit).map((row) => ({ ...row, kind: kindAt(row.kind), gone: row.gone === 1 }));
    return { hits, nextOffset: rows.length > limit ? offset + limit : null };
  };
}
