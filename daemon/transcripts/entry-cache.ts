/**
 * Entries of recently summarized sessions, kept in memory so that an append costs a query for
 * the new rows only (the 100 ms append-to-event target), not a reload of the whole session.
 * Bounded: past the budget, the least recently used sessions are dropped and reloaded on demand.
 */
import type Database from 'better-sqlite3';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { isCompactionAgent } from '../ingest/layout.js';
import type { IngestedFile } from '../store/rows.js';
import { loadFileEntries } from './queries.js';

/** About 50 MB of entry objects: large sessions stay warm without breaking the RSS budget. */
export const DEFAULT_MAX_CACHED_ENTRIES = 100_000;

interface CachedFile {
  generation: number;
  /** Entries up to this committed offset are loaded. */
  loadedTo: number;
  entries: IndexedEntry[];
}

export interface EntryCache {
  /**
   * The session's entries by kind of file, loading only what is new since last time: the main
   * transcript, the sub-agents', and the compaction agents' (`agent-acompact-*`).
   */
  load(db: Database.Database, sessionId: string, files: readonly IngestedFile[]): SessionEntries;
  /** Forgets everything: the database was rebuilt, so file ids name other files now. */
  clear(): void;
  readonly size: number;
}

export interface SessionEntries {
  main: IndexedEntry[];
  sidechain: IndexedEntry[];
  compaction: IndexedEntry[];
}

export function createEntryCache(maxEntries = DEFAULT_MAX_CACHED_ENTRIES): EntryCache {
  // Map order is recency order: a session is re-inserted on every use.
  const sessions = new Map<string, Map<number, CachedFile>>();
  let size = 0;

  const countOf = (files: Map<number, CachedFile>) => [...files.values()].reduce((sum, file) => sum + file.entries.length, 0);

  const evict = (keep: string) => {
    for (const [sessionId, files] of sessions) {
      if (size <= maxEntries) return;
      if (sessionId === keep) continue;
      size -= countOf(files);
      sessions.delete(sessionId);
    }
  };

  return {
    get size() {
      return size;
    },
    clear() {
      sessions.clear();
      size = 0;
    },
    load(db, sessionId, files) {
      const cached = sessions.get(sessionId) ?? new Map<number, CachedFile>();
      sessions.delete(sessionId);
      const main: IndexedEntry[] = [];
      const sidechain: IndexedEntry[] = [];
      const compaction: IndexedEntry[] = [];
      const seen = new Set<number>();
      for (const file of files) {
        seen.add(file.id);
        let entry = cached.get(file.id);
        if (entry === undefined || entry.generation !== file.generation || entry.loadedTo > file.committedOffset) {
          if (entry) size -= entry.entries.length;
          entry = { generation: file.generation, loadedTo: 0, entries: [] };
          cached.set(file.id, entry);
        }
        if (entry.loadedTo < file.committedOffset) {
          const fresh = loadFileEntries(db, file.id, entry.loadedTo);
          for (const row of fresh) entry.entries.push(row);
          size += fresh.length;
          entry.loadedTo = file.committedOffset;
        }
        // A loop, not push(...entries): spreading 100k arguments overflows the stack.
        const target = file.agentId === null ? main : isCompactionAgent(file.agentId) ? compaction : sidechain;
        for (const row of entry.entries) target.push(row);
      }
      for (const [fileId, entry] of cached) {
        if (seen.has(fileId)) continue;
        size -= entry.entries.length;
        cached.delete(fileId);
      }
      sessions.set(sessionId, cached);
      evict(sessionId);
      return { main, sidechain, compaction };
    },
  };
}
