/**
 * `search.query` (issue 17): FTS5 MATCH over the contentless index, ranked by bm25 with a boost for
 * recent lines, filtered by session, project, time and kind through the entries and files the
 * rowid points at (store/search-row.ts). The query is parsed by memd (shared/search/query-syntax.ts):
 * a bad one is InvalidParams (-32602) naming where it breaks, never an SQLite error; one with
 * phrases or NEAR gets candidates here that the search worker checks on their text.
 */
import type Database from 'better-sqlite3';
import { invalidParams } from '../../shared/protocol/errors.js';
import { timeBound } from '../../shared/text/time-span.js';
import type { SearchKind } from '../../shared/protocol/search.js';
import { DEFAULT_SEARCH_KINDS, SEARCH_KINDS } from '../../shared/protocol/search.js';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { fts5Query, hasAlternatives, isExact, parseQuery, QueryLimitError, type QueryNode, QuerySyntaxError } from '../../shared/search/query-syntax.js';
import { kindAt, searchRowParts, searchRowRange } from '../store/search-row.js';

/**
 * Candidates taken from each end of the rowid space, newest first: the backfill reads files newest
 * first, and lines met later come last. A word with fewer matches than both ends together has all
 * of them looked at. Reading a word's rows in rowid order costs ~1 µs each; bm25 (below) or every
 * match of a common word would cost 10-50 ms at a heavy user's 2.4 GB.
 */
export const END_CANDIDATES = 1_000;
/** With a session or project filter: the newest matches of its files, newest files first. */
const FILTERED_CANDIDATES = 2_000;
const DAY_MS = 86_400_000;
/** 1970-01-01 as a Julian day number, as SQLite's julianday() counts. */
const UNIX_EPOCH_JULIAN_DAY = 2_440_587.5;
/** A prefix with more words than this in the index is left to FTS5 to expand. */
const MAX_PREFIX_TERMS = 64;
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
  /** The session the search is asked from (memctl and the MCP server send it): its turn in flight is left out. */
  askingSession?: string;
  /** Sessions whose turn is open (an agent holds their memory lock, hooks): theirs too (the daemon adds them). */
  openTurns?: readonly string[];
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

export function cursorOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o(\d{1,7})$/.exec(cursor);
  if (match === null) throw invalidParams('cursor is not one this daemon gave', { kind: 'BadCursor' });
  return Number(match[1]);
}

/**
 * The query parsed and planned: InvalidParams (-32602) with the position where it breaks, or the
 * limit it passes (`data.limit`, `data.max`).
 */
export function planQuery(query: string): SearchPlan {
  let tree: QueryNode;
  try {
    tree = parseQuery(query);
  } catch (error) {
    if (error instanceof QueryLimitError) {
      throw invalidParams(`the search query asks too much of the index: ${error.message} (split it into several searches)`, { limit: error.limit, max: error.max, query });
    }
    if (!(error instanceof QuerySyntaxError)) throw error;
    throw invalidParams(`the search query is not valid at position ${error.position}: ${error.message} (words, "phrases", OR, NOT, prefix*, NEAR(a b))`, {
      position: error.position,
      query,
    });
  }
  return { tree, exact: isExact(tree), relevance: hasAlternatives(tree) };
}

export interface SearchPlan {
  tree: QueryNode;
  /** FTS5's matches are the hits; otherwise each is checked on its text (phrases, NEAR). */
  exact: boolean;
  /**
   * Ranked by bm25 as well as recency: only when rows may match different words (an OR). The
   * index keeps no counts of a word in a row (detail=none), so for rows that all hold the same
   * words bm25 differs only by the text's length, which says nothing of relevance.
   */
  relevance: boolean;
}

/** The filter's values as the statement binds them. */
function bindings(filter: SearchFilter, now: number) {
  const kinds = filter.kinds ?? DEFAULT_SEARCH_KINDS;
  const project = filter.project === undefined ? null : filter.project.startsWith('/') ? sanitizeProjectDirName(filter.project) : filter.project;
  return {
    session: filter.sessionId ?? null,
    project,
    since: filter.since === undefined ? null : timeBound(filter.since, now, 'since'),
    until: filter.until === undefined ? null : timeBound(filter.until, now, 'until'),
    // memd's own traffic only when asked for (issue 28).
    kinds: JSON.stringify(kinds.map((kind) => SEARCH_KINDS.indexOf(kind))),
    // The same as a bit per kind index, for the candidates' filter: arithmetic costs FTS5's scan nothing.
    kindMask: kinds.reduce((mask, kind) => mask | (1 << SEARCH_KINDS.indexOf(kind)), 0),
  };
}

interface FilterFile {
  id: number;
  first: number | null;
  last: number | null;
}

export function createSearchQuery(db: Database.Database) {
  // The index's words by prefix (a temp table: the worker's connection is read-only).
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, 'search_fts', 'row')");
  const prefixTerms = db.prepare('SELECT term FROM temp.search_vocab WHERE term >= ? AND term < ? LIMIT ?').pluck();
  const expand = (prefix: string): string[] | null => {
    const next = `${prefix.slice(0, -1)}${String.fromCodePoint((prefix.codePointAt(prefix.length - 1) ?? 0) + 1)}`;
    const terms = prefixTerms.all(prefix, next, MAX_PREFIX_TERMS + 1) as string[];
    return terms.length > MAX_PREFIX_TERMS ? null : terms;
  };
  // A file's texts lie between its first and last entries (store/search-row.ts).
  const fileBounds = `SELECT f.id AS id, (SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset LIMIT 1) AS first,
      (SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset DESC LIMIT 1) AS last FROM files f`;
  const sessionFiles = db.prepare(`${fileBounds} WHERE f.session_id = ? ORDER BY coalesce(f.last_activity, '') DESC, f.id DESC`);
  const projectFiles = db.prepare(`${fileBounds} WHERE f.project = ? ORDER BY coalesce(f.last_activity, '') DESC, f.id DESC`);
  // Only the kinds asked for take candidate slots: memd's own lines, left out by default, would
  // otherwise crowd out the user's among a word's newest matches (issue 28).
  const ofKinds = `((@kindMask >> ${searchRowParts('rowid').kind}) & 1) = 1`;
  const candidates = (relevance: boolean) => {
    const columns = relevance ? 'rowid, rank' : 'rowid';
    return {
      ends: db
        .prepare(`SELECT * FROM (SELECT ${columns} FROM search_fts WHERE search_fts MATCH @query AND ${ofKinds} ORDER BY rowid DESC LIMIT ${END_CANDIDATES})
          UNION SELECT * FROM (SELECT ${columns} FROM search_fts WHERE search_fts MATCH @query AND ${ofKinds} ORDER BY rowid LIMIT ${END_CANDIDATES})`)
        .raw(),
      inRange: db.prepare(`SELECT ${columns} FROM search_fts WHERE search_fts MATCH @query AND ${ofKinds} AND rowid BETWEEN @low AND @high ORDER BY rowid DESC LIMIT @take`).raw(),
    };
  };
  // Where a session's turn in flight starts: its main transcript's last typed prompt (or slash
  // command), which the parser titles 'prompt'/'command'; read back from the end of each file.
  const turnStarts = db
    .prepare(
      `SELECT (SELECT coalesce(timestamp, '') FROM entries WHERE file_id = f.id AND title_kind IN ('prompt', 'command') ORDER BY offset DESC LIMIT 1)
        FROM files f WHERE f.session_id = ? AND f.agent_id IS NULL`,
    )
    .pluck();
  /** Each session's turn in flight as the time it started ('' for a session with no prompt yet: all of it). */
  const turnsInFlight = (sessions: readonly string[]): string => {
    const turns: Record<string, string> = {};
    for (const session of new Set(sessions)) {
      // ISO timestamps sort as strings; the latest of the session's main files.
      const starts = (turnStarts.all(session) as (string | null)[]).filter((start): start is string => start !== null).sort();
      turns[session] = starts.at(-1) ?? '';
    }
    return JSON.stringify(turns);
  };
  const plain = candidates(false);
  const ranked = candidates(true);
  // The candidates' lines, filtered and scored: bm25 (when the plan ranks by it) times a boost
  // for recent lines, up to 2× for a line written now. Candidates come as a JSON array: of rowids,
  // or of [rowid, rank] pairs (a nested array costs twice as much to read: only when ranked).
  const hitsOf = (relevance: boolean) => {
    const rowid = relevance ? '(c.value ->> 0)' : 'c.value';
    const parts = searchRowParts(rowid);
    return db.prepare(`
      SELECT e.file_id AS fileId, e.offset AS offset, ${parts.kind} AS kind,
             ${relevance ? '-(c.value ->> 1)' : '1.0'} * (1.0 + 1.0 / (1.0 + max(0.0, @today - coalesce(julianday(e.timestamp), @today - 3650)) / ${RECENCY_HALF_DAYS}.0)) AS score,
             f.session_id AS sessionId, f.project AS project, f.path AS path, f.gone AS gone,
             e.uuid AS uuid, e.timestamp AS timestamp, e.length AS length
      FROM json_each(@candidates) c
      JOIN entries e ON e.rowid = ${parts.entry}
      JOIN files f ON f.id = e.file_id
      LEFT JOIN json_each(@turns) t ON t.key = f.session_id
      WHERE (t.key IS NULL OR coalesce(e.timestamp, '') < t.value)
        AND (@session IS NULL OR f.session_id = @session)
        AND (@project IS NULL OR f.project = @project)
        AND (@since IS NULL OR e.timestamp >= @since)
        AND (@until IS NULL OR e.timestamp < @until)
        AND (@kinds IS NULL OR ${parts.kind} IN (SELECT value FROM json_each(@kinds)))
      ORDER BY score DESC, ${rowid} DESC
      LIMIT @limit OFFSET @offset`);
  };
  const plainHits = hitsOf(false);
  const rankedHits = hitsOf(true);

  /** The newest matches of the filter's files, newest files first. */
  const filteredCandidates = (statement: Database.Statement, files: FilterFile[], query: string, kindMask: number): unknown[][] => {
    const found: unknown[][] = [];
    for (const file of files) {
      if (file.first === null || file.last === null) continue;
      const [low, high] = searchRowRange(file.first, file.last);
      for (const row of statement.all({ query, kindMask, low, high, take: FILTERED_CANDIDATES - found.length }) as unknown[][]) found.push(row);
      if (found.length >= FILTERED_CANDIDATES) break;
    }
    return found;
  };

  /** The best `limit` rows FTS5 matches from `offset` on, filtered (before a plan's check on the text). */
  return (filter: SearchFilter, plan: SearchPlan, now: number, limit: number, offset: number): RawHit[] => {
    const bound = bindings(filter, now);
    let rows: (Omit<RawHit, 'kind' | 'gone'> & { kind: number; gone: number })[];
    try {
      const query = fts5Query(plan.tree, expand);
      if (query === null) return [];
      const statements = plan.relevance ? ranked : plain;
      const found =
        bound.session !== null
          ? filteredCandidates(statements.inRange, sessionFiles.all(bound.session) as FilterFile[], query, bound.kindMask)
          : bound.project !== null
            ? filteredCandidates(statements.inRange, projectFiles.all(bound.project) as FilterFile[], query, bound.kindMask)
            : (statements.ends.all({ query, kindMask: bound.kindMask }) as unknown[][]);
      if (found.length === 0) return [];
      const hits = plan.relevance ? rankedHits : plainHits;
      const list = plan.relevance ? found : found.map((row) => row[0]);
      const turns = turnsInFlight([...(filter.askingSession === undefined ? [] : [filter.askingSession]), ...(filter.openTurns ?? [])]);
      rows = hits.all({ ...bound, turns, candidates: JSON.stringify(list), today: now / DAY_MS + UNIX_EPOCH_JULIAN_DAY, limit, offset }) as typeof rows;
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
