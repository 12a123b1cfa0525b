/**
 * Entries of recently summarized sessions, kept in memory so that an append costs a query for
 * the new rows only (the 100 ms append-to-event target), not a reload of the whole session.
 * Bounded: past the budget, the least recently used sessions are dropped and reloaded on demand.
 *
 * A first load of a big session is thousands of rows (18,000 at 63 MB, 0.3 s of SQLite and row
 * objects): `loadSliced` reads them a page at a time between turns of the event loop. No read
 * transaction can span the turns (better-sqlite3's are synchronous), so a sliced load reads each
 * file up to the committed offset it started from, and before it keeps anything checks that the
 * files are still those it started from (same generation) and that nobody else changed the cache
 * meanwhile; when they are not, it keeps nothing and says so (null), and the caller starts again.
 */
import type Database from 'better-sqlite3';
import { isCompactionAgent } from '../../shared/transcript/layout.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { IngestedFile } from '../store/rows.js';
import { runNow, runSliced, type Slicer, type Steps } from '../workers/slices.js';
import { loadFileEntriesPage, sessionFiles } from './queries.js';

/** About 50 MB of entry objects: large sessions stay warm without breaking the RSS budget. */
export const DEFAULT_MAX_CACHED_ENTRIES = 100_000;
/** Rows per query of a load: about 5 ms of SQLite and row objects, so a slice ends near its budget. */
export const LOAD_PAGE_ROWS = 256;

interface CachedFile {
  generation: number;
  /** Entries up to this committed offset are loaded. */
  loadedTo: number;
  entries: IndexedEntry[];
}

export interface SessionEntries {
  main: IndexedEntry[];
  sidechain: IndexedEntry[];
  compaction: IndexedEntry[];
  /** Each file's entries by file id (the same arrays' rows), for callers that need them apart. */
  byFile: Map<number, IndexedEntry[]>;
}

export interface EntryCache {
  /**
   * The session's entries by kind of file, loading only what is new since last time: the main
   * transcript, the sub-agents', and the compaction agents' (`agent-acompact-*`). At once: the
   * caller holds a read transaction in which `files` were read.
   */
  load(db: Database.Database, sessionId: string, files: readonly IngestedFile[]): SessionEntries;
  /** The same in slices; null when the files or the cache changed under it (nothing was kept: load again). */
  loadSliced(
    db: Database.Database,
    sessionId: string,
    files: readonly IngestedFile[],
    slicer: Slicer,
    pageRows?: number,
  ): Promise<SessionEntries | null>;
  /** Forgets everything: the database was rebuilt, so file ids name other files now. */
  clear(): void;
  readonly size: number;
}

export function createEntryCache(maxEntries = DEFAULT_MAX_CACHED_ENTRIES): EntryCache {
  // Map order is recency order: a session is re-inserted on every use.
  let sessions = new Map<string, Map<number, CachedFile>>();
  let size = 0;

  const countOf = (files: Map<number, CachedFile>) =>
    [...files.values()].reduce((sum, file) => sum + file.entries.length, 0);

  const evict = (keep: string) => {
    for (const [sessionId, files] of sessions) {
      if (size <= maxEntries) return;
      if (sessionId === keep) continue;
      size -= countOf(files);
      sessions.delete(sessionId);
    }
  };

  /** A cached file still usable for `file`: same generation, and not loaded past what is committed now. */
  const reusable = (cached: CachedFile, file: IngestedFile): boolean =>
    cached.generation === file.generation && cached.loadedTo <= file.committedOffset;

  /** A page of rows per step; the cache is changed only in the last step, and only when nothing moved under the load. */
  function* loadSteps(
    db: Database.Database,
    sessionId: string,
    files: readonly IngestedFile[],
    pageRows: number,
  ): Steps<SessionEntries | null> {
    const started = sessions;
    const before = sessions.get(sessionId);
    const fresh = new Map<number, IndexedEntry[]>();
    for (const file of files) {
      const cached = before?.get(file.id);
      let from = cached !== undefined && reusable(cached, file) ? cached.loadedTo : 0;
      const rows: IndexedEntry[] = [];
      while (from < file.committedOffset) {
        const page = loadFileEntriesPage(db, file.id, from, file.committedOffset, pageRows);
        for (const row of page) rows.push(row);
        const last = page.at(-1);
        if (page.length < pageRows || last === undefined) break;
        from = last.offset + 1;
        yield;
      }
      fresh.set(file.id, rows);
    }
    // The files as they are now: a rewrite (new generation) or a forgotten file means the rows read differ from those committed.
    const now = new Map(sessionFiles(db, sessionId).map((file) => [file.id, file]));
    const moved = files.some((file) => now.get(file.id)?.generation !== file.generation);
    if (moved || sessions !== started || sessions.get(sessionId) !== before) return null;
    return keep(sessionId, files, before ?? new Map(), fresh);
  }

  /** Puts what was read into the cache and returns the session's entries by kind. */
  function keep(
    sessionId: string,
    files: readonly IngestedFile[],
    previous: Map<number, CachedFile>,
    fresh: Map<number, IndexedEntry[]>,
  ): SessionEntries {
    sessions.delete(sessionId);
    // A new map, never the one a load in flight started from: that load sees it changed and reads again.
    const cached = new Map<number, CachedFile>();
    const result: SessionEntries = { main: [], sidechain: [], compaction: [], byFile: new Map() };
    for (const file of files) {
      const old = previous.get(file.id);
      let entry: CachedFile;
      if (old !== undefined && reusable(old, file)) {
        entry = { ...old };
      } else {
        if (old) size -= old.entries.length;
        entry = { generation: file.generation, loadedTo: 0, entries: [] };
      }
      cached.set(file.id, entry);
      // A loop, not push(...rows): spreading 100k arguments overflows the stack.
      for (const row of fresh.get(file.id) ?? []) entry.entries.push(row);
      size += fresh.get(file.id)?.length ?? 0;
      entry.loadedTo = Math.max(entry.loadedTo, file.committedOffset);
      const target =
        file.agentId === null ? result.main : isCompactionAgent(file.agentId) ? result.compaction : result.sidechain;
      for (const row of entry.entries) target.push(row);
      result.byFile.set(file.id, entry.entries.slice());
    }
    for (const [fileId, entry] of previous) if (!cached.has(fileId)) size -= entry.entries.length;
    sessions.set(sessionId, cached);
    evict(sessionId);
    return result;
  }

  return {
    get size() {
      return size;
    },
    clear() {
      sessions = new Map();
      size = 0;
    },
    load(db, sessionId, files) {
      // Inside the caller's transaction nothing can move, so the check at the end always passes.
      return runNow(loadSteps(db, sessionId, files, Number.MAX_SAFE_INTEGER)) as SessionEntries;
    },
    loadSliced(db, sessionId, files, slicer, pageRows = LOAD_PAGE_ROWS) {
      return runSliced(loadSteps(db, sessionId, files, pageRows), slicer);
    },
  };
}
