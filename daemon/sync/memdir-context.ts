/**
 * The state memdir sync's steps share (publish, receive, resolve: memdir-sync.ts runs them one at
 * a time): the rows of every memory, in memory and in SQLite, this machine's counter, and the
 * logging of problems that would otherwise repeat on every scan.
 */

import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import type { MemdirBook, MemoryRecord, Resolution } from './memdir-book.js';
import { memoryKey } from './memdir-manifest.js';
import { covers } from './memdir-version.js';

export interface MemdirSyncDeps {
  db: Database.Database;
  projectsDir: string;
  stateDir: string;
  /** The sync folder (absolute); '' when sync is off: publish and receive then do nothing. */
  syncDir: string;
  deviceId: string;
  log: Logger;
  clock: () => number;
  /**
   * A memory file changed less than this long ago (by its mtime, against `clock`) waits for the
   * next scan: Claude Code writes them in place, and a half-written one must not go to the others.
   */
  quietMs?: number;
}

export interface SyncContext {
  readonly deps: MemdirSyncDeps;
  readonly book: MemdirBook;
  readonly store: MemdirStore;
  /** Every memory's row, by memoryKey. */
  readonly records: Map<string, MemoryRecord>;
  /** The records changed since the manifest was last written. */
  dirty: boolean;
  /** This machine's next counter, stored before it is used. */
  nextCounter(): number;
  putRecord(record: MemoryRecord): void;
  dropRecord(record: MemoryRecord): void;
  /** Closes the open conflicts of the record's memory that its version now holds (or whose version it is). */
  settle(record: MemoryRecord, resolution: Resolution): number;
  /** Logs a problem once per `key` (a path, a device), however many scans meet it again. */
  warnOnce(key: string, msg: string, fields?: Record<string, unknown>): void;
}

/** Problems remembered so as not to log them again; past this the memory starts over (a line again, no growth). */
const MAX_WARNED = 1_000;

/** Where another machine's version of a conflicting memory is kept: by its etag, so one text is one file. */
export const keptPath = (stateDir: string, etag: string): string => join(keptDir(stateDir), `${etag}.md`);

export const keptDir = (stateDir: string): string => join(stateDir, 'sync', 'conflicts');

/** Whether `path` (from a row: data) is a version this module kept, and so one it may remove. */
export const isKept = (stateDir: string, path: string): boolean => dirname(path) === keptDir(stateDir);

/** The memory's path segments under a device's memdir root: `<project>/[team/]<name>.md`. */
export function memorySegments(record: Pick<MemoryRecord, 'project' | 'scope' | 'name'>): string[] {
  const parts = record.name.split('/');
  const last = `${parts.pop() as string}.md`;
  return [record.project, ...(record.scope === 'team' ? ['team'] : []), ...parts, last];
}

/** Segments from the sync folder to the device's memdir root (layout.ts `syncedMemdirRoot`), each checked to be a plain dir. */
export const memdirRootSegments = (device: string): string[] => [device, 'memdir'];

/** A memory file memd reads whole into memory: a note; a file larger than this is not one. */
export const MAX_MEMORY_BYTES = 4 * 1024 * 1024;

export function createSyncContext(deps: MemdirSyncDeps, book: MemdirBook, store: MemdirStore): SyncContext {
  const records = new Map(book.records().map((record) => [memoryKey(record), record]));
  const warned = new Set<string>();
  const context: SyncContext = {
    deps,
    book,
    store,
    records,
    dirty: false,
    nextCounter() {
      const next = (book.counter(deps.deviceId) ?? 0) + 1;
      book.setCounter(deps.deviceId, next);
      return next;
    },
    putRecord(record) {
      book.put(record);
      records.set(memoryKey(record), record);
      context.dirty = true;
    },
    dropRecord(record) {
      book.remove(record);
      records.delete(memoryKey(record));
      context.dirty = true;
    },
    settle(record, resolution) {
      const { project, scope, name } = record;
      let settled = 0;
      for (const conflict of book.openConflicts({ project, scope, name })) {
        if (conflict.theirEtag !== record.etag && !covers(record.version, conflict.theirVersion)) continue;
        book.resolveConflict(conflict.id, resolution, deps.clock());
        settled += 1;
      }
      return settled;
    },
    warnOnce(key, msg, fields) {
      if (warned.has(key)) return;
      if (warned.size >= MAX_WARNED) warned.clear();
      warned.add(key);
      deps.log.warn(msg, fields);
    },
  };
  return context;
}
