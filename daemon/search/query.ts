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
import { fts5Query, hasAlternatives, isExact } from '../../shared/search/query-fts5.js';
import { parseQuery, QueryLimitError, type QueryNode, QuerySyntaxError } from '../../shared/search/query-syntax.js';
import { kindAt, searchRowParts } from '../store/search-row.js';
import type { SearchFilter } from './filter.js';
import { bindings, createScopeBounds, createTurnsInFlight, scopedLineSql, turnSessions } from './scope.js';
import type { Span } from './walk.js';

/**
 * Candidates taken from each end of the rowid space, newest first: the backfill reads files newest
 * first, and lines met later come last. A word with fewer matches than both ends together has all
 * of them looked at in the first batch. Reading a word's rows in rowid order costs ~1 µs each; bm25
 * (below) or every match of a common word at once would cost 10-50 ms at a heavy user's 2.4 GB.
 */
export const END_CANDIDATES = 1_000;
/**
 * The matches between the two ends are walked newest rowid first, this many a batch: each batch is
 * ranked on its own, and a cursor goes on from where a page stopped, so no match is left out. A
 * page reads its batch again and ranks it (~10 µs a candidate): small batches keep that a few ms.
 */
export const BATCH_CANDIDATES = 500;
const DAY_MS = 86_400_000;
/** 1970-01-01 as a Julian day number, as SQLite's julianday() counts. */
const UNIX_EPOCH_JULIAN_DAY = 2_440_587.5;
/** A prefix with more words than this in the index is left to FTS5 to expand. */
const MAX_PREFIX_TERMS = 64;
export const DEFAULT_SEARCH_LIMIT = 20;
/** A line this many days old gets half the boost of one written now. */
const RECENCY_HALF_DAYS = 7;

export type { SearchFilter } from './filter.js';

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
      throw invalidParams(
        `the search query asks too much of the index: ${error.message} (split it into several searches)`,
        { limit: error.limit, max: error.max, query },
      );
    }
    if (!(error instanceof QuerySyntaxError)) throw error;
    throw invalidParams(
      `the search query is not valid at position ${error.position}: ${error.message} (words, "phrases", OR, NOT, prefix*, NEAR(a b))`,
      {
        position: error.position,
        query,
      },
    );
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

/** A batch of the walk (walk.ts): its spans of rowids, what is left after it, and its FTS5 rows. */
export interface Batch {
  spans: readonly Span[];
  rest: Span | null;
  candidates: unknown[][];
}

/** One query's walk over the index: its batches, and each batch's candidates ranked and filtered. */
export interface SearchWalk {
  /** The first batch: the newest and oldest matches of the scope (all of them when they meet). */
  first(): Batch;
  /** The batch after `rest`'s high end. */
  after(rest: Span): Batch;
  /** A batch a cursor named, read again. */
  reread(spans: readonly Span[], rest: Span | null): Batch;
  /**
   * The batch's lines that pass the filter, best first (before a plan's check on the text), from
   * the `skip`th on, `take` of them (-1: all): a page reads only the rows it may use.
   */
  rank(batch: Batch, skip: number, take: number): RawHit[];
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
  const scopeOf = createScopeBounds(db);
  // With a session or project, its lines only (the join inside the candidates' query): a batch
  // and its cap hold lines of the scope, not of the other sessions whose lines lie between.
  // Only the kinds asked for take candidate slots: memd's own lines, left out by default, would
  // otherwise crowd out the user's in a batch (issue 28).
  const ofKinds = `((@kindMask >> ${searchRowParts('s.rowid').kind}) & 1) = 1`;
  const candidates = (relevance: boolean, scoped: boolean) => {
    const columns = relevance ? 's.rowid, s.rank' : 's.rowid';
    const scope = scoped
      ? `JOIN entries e ON e.rowid = (s.rowid >> 3) JOIN files f ON f.id = e.file_id
         WHERE s.search_fts MATCH @query AND ${ofKinds} AND s.rowid BETWEEN @low AND @high AND (@session IS NULL OR f.session_id = @session) AND (@project IS NULL OR f.project = @project)`
      : `WHERE s.search_fts MATCH @query AND ${ofKinds} AND s.rowid BETWEEN @low AND @high`;
    const span = `SELECT ${columns} FROM search_fts s ${scope}`;
    return {
      newest: db.prepare(`${span} ORDER BY s.rowid DESC LIMIT @take`).raw(),
      oldest: db.prepare(`${span} ORDER BY s.rowid LIMIT @take`).raw(),
    };
  };
  const turnsInFlight = createTurnsInFlight(db);
  const plain = { whole: candidates(false, false), scoped: candidates(false, true) };
  const ranked = { whole: candidates(true, false), scoped: candidates(true, true) };
  // The candidates' lines, filtered and scored: bm25 (when the plan ranks by it) times a boost
  // for recent lines, up to 2× for a line written now. Candidates come as a JSON array: of rowids,
  // or of [rowid, rank] pairs (a nested array costs twice as much to read: only when ranked).
  const hitsOf = (relevance: boolean) => {
    const rowid = relevance ? '(c.value ->> 0)' : 'c.value';
    const lineScope = scopedLineSql(rowid);
    return db.prepare(`
      SELECT e.file_id AS fileId, e.offset AS offset, ${lineScope.kind} AS kind,
             ${relevance ? '-(c.value ->> 1)' : '1.0'} * (1.0 + 1.0 / (1.0 + max(0.0, @today - coalesce(julianday(e.timestamp), @today - 3650)) / ${RECENCY_HALF_DAYS}.0)) AS score,
             f.session_id AS sessionId, f.project AS project, f.path AS path, f.gone AS gone,
             e.uuid AS uuid, e.timestamp AS timestamp, e.length AS length
      FROM json_each(@candidates) c
      ${lineScope.joins}
      WHERE ${lineScope.where}
      ORDER BY score DESC, ${rowid} DESC
      LIMIT @take OFFSET @skip`);
  };
  const plainHits = hitsOf(false);
  const rankedHits = hitsOf(true);

  /** FTS5 refusing a query memd made (a character its tables class otherwise) is still the query's. */
  const asQueryError = (error: unknown, query: string): unknown => {
    const message = error instanceof Error ? error.message : String(error);
    if (!/fts5/.test(message)) return error;
    return invalidParams(`the search query cannot be run: ${message.replace(/^fts5: /, '')}`, { position: 0, query });
  };

  /** The query's walk over the filter's scope; null when nothing can match (no words, an empty scope). */
  return (filter: SearchFilter, plan: SearchPlan, now: number): SearchWalk | null => {
    const bound = bindings(filter, now);
    let query: string | null;
    let scope: Span | null;
    try {
      query = fts5Query(plan.tree, expand);
      scope = query === null ? null : scopeOf(bound);
    } catch (error) {
      throw asQueryError(error, filter.query);
    }
    if (query === null || scope === null) return null;
    const match = query;
    const scoped = bound.session !== null || bound.project !== null;
    const statements = (plan.relevance ? ranked : plain)[scoped ? 'scoped' : 'whole'];
    const where = { kindMask: bound.kindMask, ...(scoped ? { session: bound.session, project: bound.project } : {}) };
    const turns = turnsInFlight(turnSessions(filter));
    const guarded = <T>(run: () => T): T => {
      try {
        return run();
      } catch (error) {
        throw asQueryError(error, filter.query);
      }
    };
    const newest = ([low, high]: Span, take: number) =>
      guarded(() => statements.newest.all({ query: match, low, high, take, ...where }) as unknown[][]);
    const rowidOf = (row: unknown[] | undefined) => Number(row?.[0]);
    const [scopeLow, scopeHigh] = scope;

    return {
      first() {
        const top = newest(scope, END_CANDIDATES);
        if (top.length < END_CANDIDATES) return { spans: [scope], rest: null, candidates: top };
        const bottom = guarded(
          () =>
            statements.oldest.all({
              query: match,
              low: scopeLow,
              high: scopeHigh,
              take: END_CANDIDATES,
              ...where,
            }) as unknown[][],
        );
        const highCut = rowidOf(top.at(-1));
        const lowCut = rowidOf(bottom.at(-1));
        // The ends meet: every match is in one of them.
        if (lowCut >= highCut)
          return {
            spans: [scope],
            rest: null,
            candidates: [...top, ...bottom.filter((row) => rowidOf(row) < highCut)],
          };
        const rest: Span | null = lowCut + 1 <= highCut - 1 ? [lowCut + 1, highCut - 1] : null;
        return {
          spans: [
            [highCut, scopeHigh],
            [scopeLow, lowCut],
          ],
          rest,
          candidates: [...top, ...bottom],
        };
      },
      after(rest) {
        const rows = newest(rest, BATCH_CANDIDATES);
        if (rows.length < BATCH_CANDIDATES) return { spans: [rest], rest: null, candidates: rows };
        const cut = rowidOf(rows.at(-1));
        return { spans: [[cut, rest[1]]], rest: rest[0] <= cut - 1 ? [rest[0], cut - 1] : null, candidates: rows };
      },
      reread(spans, rest) {
        // A batch holds at most END_CANDIDATES a span (a cursor not memd's reads no more than that).
        return { spans, rest, candidates: spans.flatMap((span) => newest(span, END_CANDIDATES)) };
      },
      rank(batch, skip, take) {
        if (batch.candidates.length === 0) return [];
        const list = plan.relevance ? batch.candidates : batch.candidates.map((row) => row[0]);
        const hits = plan.relevance ? rankedHits : plainHits;
        const rows = guarded(() =>
          hits.all({
            ...bound,
            turns,
            candidates: JSON.stringify(list),
            today: now / DAY_MS + UNIX_EPOCH_JULIAN_DAY,
            take,
            skip,
          }),
        ) as (Omit<RawHit, 'kind' | 'gone'> & {
          kind: number;
          gone: number;
        })[];
        return rows.map((row) => ({ ...row, kind: kindAt(row.kind), gone: row.gone === 1 }));
      },
    };
  };
}
