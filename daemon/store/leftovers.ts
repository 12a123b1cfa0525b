/**
 * What earlier runs left in the state dir, cleaned at start while the instance lock is held (no
 * other memd writes there then): temp files of atomic writes a crash interrupted, and all but the
 * newest copy of a corrupt database moved aside (each can be as big as the database). Bounded:
 * a few directory levels, a few thousand entries.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../log/logger.js';

/** writeFileAtomic's temp names: `.<name>.<pid>.<12 hex>.tmp`. */
const ATOMIC_TEMP = /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/;
/** The state dir's own layout is two levels deep (rewind/<undo id>/). */
const MAX_DEPTH = 3;
/** Entries looked at in all; a state dir holds far fewer. */
const MAX_ENTRIES = 10_000;

export interface LeftoversRemoved {
  tempFiles: string[];
  corruptCopies: string[];
  /** Undo dirs of the state dir that a crash left without a manifest (memory/rewind/undo-store.ts finds them). */
  undoDirs: string[];
}

function tempFiles(dir: string, depth: number, budget: { left: number }, found: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (--budget.left < 0) return;
    const path = join(dir, entry.name);
    if (entry.isFile() && ATOMIC_TEMP.test(entry.name)) found.push(path);
    else if (entry.isDirectory() && !entry.isSymbolicLink() && depth < MAX_DEPTH)
      tempFiles(path, depth + 1, budget, found);
  }
}

/** `memd.sqlite.corrupt-<time>` copies (with their -wal/-shm), all but the newest. */
function oldCorruptCopies(dbPath: string): string[] {
  const prefix = `${basename(dbPath)}.corrupt-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dbPath)).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
  // The time in the name is ISO-shaped: names sort as the times do.
  const copies = [...new Set(names.map((name) => name.replace(/-(?:wal|shm)$/, '')))].sort();
  const keep = copies.at(-1);
  return names.filter((name) => name.replace(/-(?:wal|shm)$/, '') !== keep).map((name) => join(dirname(dbPath), name));
}

export function cleanLeftovers(
  stateDir: string,
  dbPath: string,
  log: Logger,
  unfinished: () => string[] = () => [],
): LeftoversRemoved {
  const temps: string[] = [];
  tempFiles(stateDir, 1, { left: MAX_ENTRIES }, temps);
  const corrupt = oldCorruptCopies(dbPath);
  const removed: LeftoversRemoved = { tempFiles: [], corruptCopies: [], undoDirs: [] };
  try {
    removed.undoDirs = unfinished();
  } catch (error) {
    log.warn('could not remove unfinished undo points', { error });
  }
  for (const [path, into] of [
    ...temps.map((path) => [path, removed.tempFiles] as const),
    ...corrupt.map((path) => [path, removed.corruptCopies] as const),
  ]) {
    try {
      rmSync(path, { force: true });
      into.push(path);
    } catch (error) {
      log.warn('could not remove a leftover', { path, error });
    }
  }
  if (removed.tempFiles.length + removed.corruptCopies.length + removed.undoDirs.length > 0) {
    log.info('removed leftovers of earlier runs', {
      tempFiles: removed.tempFiles.length,
      corruptCopies: removed.corruptCopies.length,
      undoDirs: removed.undoDirs.length,
    });
  }
  return removed;
}
