/**
 * What a search's filter leaves in scope, as both of `search.query`'s ways of running bind it (the
 * walk of an exact query, query.ts, and a question, question.ts): the filter's values, the rowids
 * a session or project may have, and each open session's turn in flight (issue 28: never a hit).
 */
import type Database from 'better-sqlite3';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { DEFAULT_SEARCH_KINDS, SEARCH_KINDS } from '../../shared/protocol/search.js';
import { timeBound } from '../../shared/text/time-span.js';
import { searchRowParts, searchRowRange } from '../store/search-row.js';
import type { SearchFilter } from './filter.js';
import type { Span } from './walk.js';

/** The filter's values as the statements bind them. */
export function bindings(filter: SearchFilter, now: number) {
  const project =
    filter.project === undefined
      ? null
      : filter.project.startsWith('/')
        ? sanitizeProjectDirName(filter.project)
        : filter.project;
  const kinds = filter.kinds ?? DEFAULT_SEARCH_KINDS;
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

export type Bindings = ReturnType<typeof bindings>;

/**
 * A candidate line's entry and file, and the filter's conditions on them as `bindings` names them
 * (and `@turns`, the turns in flight): for both ways of running a search. `rowid`: the SQL of the
 * candidate's search rowid.
 */
export function scopedLineSql(rowid: string): { kind: string; joins: string; where: string } {
  const parts = searchRowParts(rowid);
  return {
    kind: parts.kind,
    joins: `JOIN entries e ON e.rowid = ${parts.entry}
      JOIN files f ON f.id = e.file_id
      LEFT JOIN json_each(@turns) t ON t.key = f.session_id`,
    where: `(t.key IS NULL OR coalesce(e.timestamp, '') < t.value)
        AND (@session IS NULL OR f.session_id = @session)
        AND (@project IS NULL OR f.project = @project)
        AND (@since IS NULL OR e.timestamp >= @since)
        AND (@until IS NULL OR e.timestamp < @until)
        AND ${parts.kind} IN (SELECT value FROM json_each(@kinds))`,
  };
}

interface FilterFile {
  first: number | null;
  last: number | null;
}

/** The rowids the filter's session or project (or the whole index) may have; null when it has none. */
export function createScopeBounds(db: Database.Database) {
  // A file's texts lie between its first and last entries (store/search-row.ts); a session's or
  // project's between the lowest and highest of its files' (other files' lines may lie between).
  const fileBounds = `SELECT min((SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset LIMIT 1)) AS first,
      max((SELECT rowid FROM entries WHERE file_id = f.id ORDER BY offset DESC LIMIT 1)) AS last FROM files f`;
  const sessionBounds = db.prepare(`${fileBounds} WHERE f.session_id = ?`);
  const projectBounds = db.prepare(`${fileBounds} WHERE f.project = ?`);
  const lastEntry = db.prepare('SELECT max(rowid) FROM entries').pluck();
  return (bound: Bindings): Span | null => {
    if (bound.session !== null || bound.project !== null) {
      const files = (
        bound.session !== null ? sessionBounds.get(bound.session) : projectBounds.get(bound.project)
      ) as FilterFile;
      return files.first === null || files.last === null ? null : searchRowRange(files.first, files.last);
    }
    const last = lastEntry.get() as number | null;
    return last === null ? null : searchRowRange(0, last);
  };
}

/**
 * Each session's turn in flight as the time it started ('' for a session with no prompt yet: all
 * of it), as JSON for the hits' statements: its main transcript's last typed prompt (or slash
 * command), which the parser titles 'prompt'/'command', read back from the end of each file.
 */
export function createTurnsInFlight(db: Database.Database) {
  const turnStarts = db
    .prepare(
      `SELECT (SELECT coalesce(timestamp, '') FROM entries WHERE file_id = f.id AND title_kind IN ('prompt', 'command') ORDER BY offset DESC LIMIT 1)
        FROM files f WHERE f.session_id = ? AND f.agent_id IS NULL`,
    )
    .pluck();
  return (sessions: readonly string[]): string => {
    const turns: Record<string, string> = {};
    for (const session of new Set(sessions)) {
      // ISO timestamps sort as strings; the latest of the session's main files.
      const starts = (turnStarts.all(session) as (string | null)[])
        .filter((start): start is string => start !== null)
        .sort();
      turns[session] = starts.at(-1) ?? '';
    }
    return JSON.stringify(turns);
  };
}

/** The sessions whose turn in flight a filter leaves out: the asking one and those with an open turn. */
export function turnSessions(filter: SearchFilter): string[] {
  return [...(filter.askingSession === undefined ? [] : [filter.askingSession]), ...(filter.openTurns ?? [])];
}
