/**
 * The persisted session aggregates (migration 8): written by ingest inside the transaction that
 * writes the entries they fold (`committed`), read by the session summaries (`read`). An append
 * folds only the appended entries; what cannot be folded is counted again from the index, once:
 * the context after a boundary or rewind when the file has been read to its end (or when it is
 * next read), and the whole session after a file was truncated, replaced or filed elsewhere.
 */
import type Database from 'better-sqlite3';
import {
  type AggregateState,
  aggregateFromScratch,
  type Bucket,
  type ContextState,
  type CountedResponse,
  emptyAggregate,
  foldEntries,
  parseAggregate,
  type SessionFileEntries,
} from '../../shared/transcript/aggregate.js';
import {
  contextFromScratch,
  contextFromTail,
  extractionKey,
  moveExtraction,
  WINDOW_MARGIN,
} from '../../shared/transcript/aggregate-context.js';
import { isCompactionAgent } from '../../shared/transcript/layout.js';
import { responseKey } from '../../shared/transcript/response-usage.js';
import type { LastExtraction } from '../../shared/transcript/since-extraction.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { CommitObserver } from '../ingest/index.js';
import { type EntryRow, entryFromRow, selectEntries } from '../store/entry-row.js';
import { type IngestedFile, prepared } from '../store/rows.js';
import { loadFileEntries, loadLastEntries, sessionFiles } from '../transcripts/queries.js';
import type { IndexRow } from './list.js';
import { bookOver, createResponseTable } from './responses.js';

/**
 * Main-transcript rows read to count the context again after a compaction or a rewind: the active
 * conversation usually starts within them, and reading them costs milliseconds at any file size.
 */
export const CONTEXT_WINDOW = 2_000;

export type CountedAggregate = AggregateState & { context: ContextState };

/** What ingest committed for one file, after its rows were written (same transaction). */
export type CommittedRows = Parameters<CommitObserver['committed']>[0];

export interface AggregateStore {
  committed(rows: CommittedRows): void;
  /** A file of the session was marked gone (same transaction as the mark). */
  gone(sessionId: string): void;
  /** A page of the listing, newest activity first (see list.ts), with the totals of what it pages through. */
  page(query: PageQuery): { rows: IndexRow[]; total: number; hidden: number };
  /** The session's aggregate, counted where it must be; undefined when the index has no file of it. */
  read(sessionId: string): CountedAggregate | undefined;
  /**
   * Every session's newest entry time (null without one), newest first: one index scan, no state
   * read, row by row as the caller iterates (which must finish before the next statement runs).
   */
  activity(): Iterable<{ sessionId: string; lastActivity: string | null }>;
  /** Stops the counts owed in the background (recountLater); a read still counts what it needs. */
  close(): void;
}

export interface PageQuery {
  /** A project folder name. */
  project?: string;
  all: boolean;
  /** Rows after this position in the order (a cursor). */
  after?: { lastActivity: string; sessionId: string };
  limit: number;
}

export interface AggregateStoreDeps {
  db: Database.Database;
  /** Where the session's last memory extraction left off (sinceExtraction counts from it). */
  lastExtraction(sessionId: string): LastExtraction | null;
  /** CONTEXT_WINDOW unless given (tests make it small, so that windows are taken). */
  contextWindow?: number;
  /** Rows read per turn of the event loop by a count owed in the background (RECOUNT_SLICE_ROWS). */
  recountSliceRows?: number;
}

/**
 * A count that a commit cannot do cheaply (a rewind or a preserved segment in a file whose active
 * conversation is not in its last rows) is owed, and done after the commit in slices of this many
 * rows, one per turn of the event loop: a whole 80 MB transcript in one go held the loop for
 * 150–500 ms. A read that comes first counts at once.
 */
export const RECOUNT_SLICE_ROWS = 2_000;

function kindOf(agentId: string | null): Bucket {
  return agentId === null ? 'main' : isCompactionAgent(agentId) ? 'compaction' : 'sidechain';
}

export function createAggregateStore(deps: AggregateStoreDeps): AggregateStore {
  const { db } = deps;
  const window = deps.contextWindow ?? CONTEXT_WINDOW;
  const responses = createResponseTable(db);
  const getState = db.prepare('SELECT state FROM session_aggregates WHERE session_id = ?').pluck();
  const putState = db.prepare(`
    INSERT INTO session_aggregates (session_id, state, project, last_activity, all_gone, entries, bad_lines, local)
    SELECT @id, @state, coalesce(MAX(CASE WHEN agent_id IS NULL THEN project END), MIN(project)), MAX(last_activity), MIN(gone), SUM(entries), SUM(bad_lines),
      MAX(device IS NULL)
    FROM files WHERE session_id = @id GROUP BY session_id
    ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, project = excluded.project, last_activity = excluded.last_activity,
      all_gone = excluded.all_gone, entries = excluded.entries, bad_lines = excluded.bad_lines, local = excluded.local`);
  const refreshListing = db.prepare(`
    UPDATE session_aggregates SET all_gone = (SELECT MIN(gone) FROM files WHERE session_id = @id),
      local = coalesce((SELECT MAX(device IS NULL) FROM files WHERE session_id = @id), 1) WHERE session_id = @id`);
  const dropState = db.prepare('DELETE FROM session_aggregates WHERE session_id = ?');
  const activity = db
    .prepare(
      "SELECT session_id, coalesce(last_activity, '') FROM session_aggregates ORDER BY coalesce(last_activity, '') DESC, session_id",
    )
    .raw();
  const rowsAfter = db.prepare(selectEntries('WHERE e.file_id = ? AND e.offset > ? ORDER BY e.offset LIMIT ?'));
  const offsetOfUuid = db
    .prepare('SELECT offset FROM entries WHERE file_id = ? AND uuid = ? ORDER BY offset LIMIT 1')
    .pluck();

  const load = (sessionId: string): AggregateState | null => {
    const json = getState.get(sessionId) as string | undefined;
    return json === undefined ? null : parseAggregate(json);
  };
  const save = (sessionId: string, state: AggregateState) =>
    putState.run({ id: sessionId, state: JSON.stringify(state) });

  const fileEntries = (files: readonly IngestedFile[]): SessionFileEntries[] =>
    files.map((file) => ({ kind: kindOf(file.agentId), path: file.path, entries: loadFileEntries(db, file.id) }));

  /** Everything again, from the session's rows: O(session), after a file lost rows. */
  const rebuild = (sessionId: string): CountedAggregate | undefined => {
    const files = sessionFiles(db, sessionId);
    responses.drop(sessionId);
    if (files.length === 0) {
      dropState.run(sessionId);
      return undefined;
    }
    const known = new Map<string, CountedResponse>();
    const state = aggregateFromScratch(
      fileEntries(files),
      deps.lastExtraction(sessionId),
      bookOver(known),
    ) as CountedAggregate;
    responses.write(sessionId, known, known.keys());
    save(sessionId, state);
    return state;
  };

  const mainFileOf = (sessionId: string) => sessionFiles(db, sessionId).find((file) => file.agentId === null);

  /** The count from the main transcript's last rows, when the active conversation lies inside them (after a compaction, a rewind since it). */
  const countFromTail = (main: IngestedFile | undefined, last: LastExtraction | null): ContextState | null =>
    main !== undefined && main.entries > window
      ? contextFromTail(loadLastEntries(db, main.id, window), last, last === null ? null : markOfExtraction(main, last))
      : null;

  /**
   * The context from a commit of the main transcript's own rows, when they hold its active
   * conversation: all of the file (read from its start: a file read in one go, or the first commit
   * of a longer read), or its last rows after a compaction in them. The next commits extend it as
   * appends do. Counting it only after the last commit cost a read of the file's last rows per big
   * session of a backfill (~40-100 ms of the main thread each), and a listing that came first
   * counted it in its own request.
   */
  const contextFromCommit = (rows: CommittedRows): ContextState | null => {
    const last = deps.lastExtraction(rows.sessionId);
    if (rows.fileEntries === rows.entries.length) return contextFromScratch(rows.entries, last);
    if (rows.entries.length <= WINDOW_MARGIN) return null;
    return contextFromTail(
      rows.entries,
      last,
      last === null ? null : markOfExtraction(mainFileOf(rows.sessionId), last),
    );
  };

  /** The context again: from the main transcript's last rows if it can, else from all of its rows. */
  const countContext = (sessionId: string, state: AggregateState): CountedAggregate => {
    const main = mainFileOf(sessionId);
    const last = deps.lastExtraction(sessionId);
    state.context =
      countFromTail(main, last) ?? contextFromScratch(main === undefined ? [] : loadFileEntries(db, main.id), last);
    save(sessionId, state);
    return state as CountedAggregate;
  };

  /** Where the extraction left off in the main transcript (extractionMark's rule: by uuid, else by offset). */
  const markOfExtraction = (main: IngestedFile | undefined, last: LastExtraction): number | null => {
    if (last.uuid !== undefined && main !== undefined) {
      const offset = offsetOfUuid.get(main.id, last.uuid) as number | undefined;
      if (offset !== undefined) return offset;
    }
    return last.atOffset ?? null;
  };

  /** Sessions whose context is owed, counted one at a time in slices (`recounting` while one is); none once closed. */
  const owed = new Set<string>();
  let recounting = false;
  let open = true;
  const sliceRows = deps.recountSliceRows ?? RECOUNT_SLICE_ROWS;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** The main file as the count saw it: a count applies only while it is so. */
  const versionOf = (main: IngestedFile | undefined) =>
    main === undefined ? 'none' : `${main.id}:${main.generation}:${main.entries}:${main.committedOffset}`;

  const recountOne = async (sessionId: string): Promise<void> => {
    const main = mainFileOf(sessionId);
    const last = deps.lastExtraction(sessionId);
    const version = versionOf(main);
    await turn();
    if (!open) return;
    let context = countFromTail(main, last);
    const entries: IndexedEntry[] = [];
    if (main !== undefined && context === null) {
      for (let after = -1; ; ) {
        await turn();
        if (!open) return;
        // Rows appended meanwhile are not this count's: it stops at the version it started from.
        const slice = (rowsAfter.all(main.id, after, sliceRows) as EntryRow[])
          .filter((row) => row.offset < main.committedOffset)
          .map(entryFromRow);
        for (const entry of slice) entries.push(entry);
        if (slice.length < sliceRows) break;
        after = (slice.at(-1) as IndexedEntry).offset;
      }
    }
    if (context === null) {
      await turn();
      if (!open) return;
      context = contextFromScratch(entries, last);
    }
    const counted = context;
    db.transaction(() => {
      const state = load(sessionId);
      // Counted already (a read came first), or the file or the extraction moved on: not this count's to write.
      if (
        state === null ||
        state.context !== null ||
        versionOf(mainFileOf(sessionId)) !== version ||
        extractionKey(deps.lastExtraction(sessionId)) !== extractionKey(last)
      )
        return;
      state.context = counted;
      save(sessionId, state);
    })();
  };

  const recountLater = (sessionId: string) => {
    owed.add(sessionId);
    if (recounting || !open) return;
    recounting = true;
    void (async () => {
      try {
        for (let next = owed.values().next(); !next.done && open; next = owed.values().next()) {
          owed.delete(next.value);
          await recountOne(next.value);
        }
      } catch {
        // The store failed (or closed) under it: a read counts what it needs.
      } finally {
        recounting = false;
      }
    })();
  };

  const pageSql = (select: string, where: string[], tail = '') =>
    `SELECT ${select} FROM session_aggregates${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`}${tail}`;
  // Another machine's session alone (issue 35) is listed with `all`, as history is.
  const HIDDEN = '(all_gone = 1 OR (entries = 0 AND bad_lines = 0) OR local = 0)';

  return {
    gone(sessionId) {
      refreshListing.run({ id: sessionId });
    },
    page(query) {
      const scope: string[] = [];
      const params: (string | number)[] = [];
      if (query.project !== undefined) {
        scope.push('project = ?');
        params.push(query.project);
      }
      const listable = query.all ? scope : [...scope, `NOT ${HIDDEN}`];
      const hidden = query.all
        ? 0
        : (prepared(db, pageSql('COUNT(*)', [...scope, HIDDEN]))
            .pluck()
            .get(...params) as number);
      const total = prepared(db, pageSql('COUNT(*)', listable))
        .pluck()
        .get(...params) as number;
      const where = [...listable];
      const pageParams = [...params];
      if (query.after !== undefined) {
        where.push("(coalesce(last_activity, '') < ? OR (coalesce(last_activity, '') = ? AND session_id > ?))");
        pageParams.push(query.after.lastActivity, query.after.lastActivity, query.after.sessionId);
      }
      const sql = pageSql(
        'session_id, project, last_activity, all_gone, entries, bad_lines',
        where,
        " ORDER BY coalesce(last_activity, '') DESC, session_id LIMIT ?",
      );
      const rows = prepared(db, sql).all(...pageParams, query.limit) as {
        session_id: string;
        project: string;
        last_activity: string | null;
        all_gone: number;
        entries: number;
        bad_lines: number;
      }[];
      return {
        rows: rows.map((row) => ({
          sessionId: row.session_id,
          project: row.project,
          lastActivity: row.last_activity,
          allGone: row.all_gone === 1,
          entries: row.entries,
          badLines: row.bad_lines,
        })),
        total,
        hidden,
      };
    },
    committed(rows) {
      if (rows.reset || rows.movedFrom !== undefined) {
        if (rows.movedFrom !== undefined) rebuild(rows.movedFrom);
        rebuild(rows.sessionId);
        return;
      }
      let state = load(rows.sessionId);
      if (state === null) {
        // A session seen for the first time has no other rows: fold from empty. One indexed
        // before migration 8 (or by another version) is counted from its rows instead.
        const indexed = sessionFiles(db, rows.sessionId).reduce((sum, file) => sum + file.entries, 0);
        if (indexed !== rows.entries.length) {
          rebuild(rows.sessionId);
          return;
        }
        state = emptyAggregate();
      } else if (rows.entries.length === 0) {
        // Nothing folded; the listing's columns (size, gone) may still have changed.
        save(rows.sessionId, state);
        return;
      }
      const keys = new Set<string>();
      for (const entry of rows.entries)
        if (entry.messageId !== null && entry.usage !== null) keys.add(responseKey(entry.messageId, entry.requestId));
      // A session with no response counted yet has nothing to look up.
      const counted = Object.values(state.usage).some(
        (row) => row.main.assistantMessages + row.sidechain.assistantMessages + row.compaction.assistantMessages > 0,
      );
      const known =
        keys.size > 0 && counted ? responses.read(rows.sessionId, keys) : new Map<string, CountedResponse>();
      const book = bookOver(known);
      foldEntries(state, rows.entries, kindOf(rows.agentId), rows.path, book);
      responses.write(rows.sessionId, known, book.changed);
      if (state.context === null && rows.agentId === null) state.context = contextFromCommit(rows);
      if (state.context !== null || !rows.complete) save(rows.sessionId, state);
      else {
        save(rows.sessionId, state);
        recountLater(rows.sessionId);
      }
    },
    close() {
      open = false;
      owed.clear();
    },
    *activity() {
      for (const [sessionId, lastActivity] of activity.iterate() as IterableIterator<[string, string]>)
        yield { sessionId, lastActivity: lastActivity === '' ? null : lastActivity };
    },
    read(sessionId) {
      return db.transaction((): CountedAggregate | undefined => {
        const state = load(sessionId);
        if (state === null) return rebuild(sessionId);
        if (state.context === null) return countContext(sessionId, state);
        const last = deps.lastExtraction(sessionId);
        if (state.context.extraction !== extractionKey(last)) {
          // A new extraction: the mark moves; counted again only when the counts cannot follow.
          if (
            !moveExtraction(state.context, last, last === null ? null : markOfExtraction(mainFileOf(sessionId), last))
          )
            return countContext(sessionId, state);
          save(sessionId, state);
        }
        return state as CountedAggregate;
      })();
    },
  };
}
