/**
 * The database file while memd runs (issue 13 item 12). Checked periodically (is the file at the
 * path still the one memd opened, and still a SQLite file?) and at once when SQLite reports a
 * broken file. Deleted or replaced: the open connection still holds everything, so it is backed
 * up to the path and reopened (nothing lost). Corrupt: moved aside and rebuilt empty; the caller
 * then reads the transcripts again (`onRebuilt`). Each incident is logged once and shown in
 * `daemon.status` (`database.whileRunning`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { DatabaseIncident } from '../../shared/protocol/daemon.js';
import type { Logger } from '../log/logger.js';
import { isCorruption, moveAside, openChecked, type Store } from './db.js';

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export interface DbHealthDeps {
  store: Store;
  log: Logger;
  clock?: () => Date;
  /** `dbCheckMs` (shared/config.ts): each check is a stat and a 16-byte read. */
  intervalMs: number;
  /** The database was rebuilt empty: forget cached state and read every transcript again. */
  onRebuilt(): void;
}

export interface DbHealth {
  /** Runs one check now (also what the timer and a broken-file error run). */
  check(): Promise<DatabaseIncident | null>;
  stop(): void;
}

interface Identity {
  dev: number;
  ino: number;
}

function identityOf(path: string): Identity | null {
  try {
    const stat = statSync(path);
    return { dev: stat.dev, ino: stat.ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Whether the file starts as a SQLite database does (an empty file is one SQLite has not written yet). */
function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === 0 || header.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

export function createDbHealth(deps: DbHealthDeps): DbHealth {
  const { store, log } = deps;
  const clock = deps.clock ?? (() => new Date());
  let opened = identityOf(store.path);
  let count = 0;
  let running: Promise<DatabaseIncident | null> | null = null;
  let stopped = false;

  const record = (incident: Omit<DatabaseIncident, 'at' | 'count'>): DatabaseIncident => {
    count += 1;
    const full = { ...incident, at: clock().toISOString(), count };
    store.status.whileRunning = full;
    return full;
  };

  /** Writes the open connection's pages to the path (through a temp file) and switches to that file. */
  const reopen = async (problem: 'deleted' | 'replaced', detail: string): Promise<DatabaseIncident> => {
    // A foreign file at the path is kept as a corrupt copy (bounded at the next start); the WAL
    // and shared-memory files next to it are the open connection's, so they stay where they are.
    let movedTo: string | null = null;
    if (identityOf(store.path) !== null) {
      movedTo = `${store.path}.corrupt-${clock().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(store.path, movedTo);
    }
    // Named as atomic writes name their temp files, so that a crash here leaves what the next start cleans.
    const temp = join(
      dirname(store.path),
      `.${basename(store.path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
    );
    try {
      await store.connection.current().backup(temp);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    // From here to the swap nothing else runs: closing first checkpoints and removes the old
    // connection's WAL, which the new file must not pick up.
    store.connection.current().close();
    renameSync(temp, store.path);
    store.connection.swap(openChecked(store.path, log));
    opened = identityOf(store.path);
    log.warn('the database file was deleted or replaced while memd ran; its content was written back and reopened', {
      problem,
      detail,
      movedTo,
    });
    return record({ problem, action: 'reopened', detail, movedTo });
  };

  const rebuild = (detail: string): DatabaseIncident => {
    const old = store.connection.current();
    const movedTo = identityOf(store.path) === null ? null : moveAside(store.path, clock());
    const next = openChecked(store.path, log);
    store.connection.swap(next);
    try {
      old.close();
    } catch {
      // A broken connection may not close cleanly; it is dropped either way.
    }
    opened = identityOf(store.path);
    log.warn('the database was corrupt while memd ran; moved aside and rebuilt from the transcripts', {
      detail,
      movedTo,
    });
    deps.onRebuilt();
    return record({ problem: 'corrupt', action: 'rebuilt', detail, movedTo });
  };

  const inspect = async (suspect: unknown): Promise<DatabaseIncident | null> => {
    const now = identityOf(store.path);
    if (now === null) return reopen('deleted', `${store.path} no longer exists`);
    if (opened !== null && (now.dev !== opened.dev || now.ino !== opened.ino))
      return reopen('replaced', `${store.path} is another file than the one memd opened`);
    if (!hasSqliteHeader(store.path)) return rebuild(`${store.path} no longer starts with the SQLite header`);
    if (suspect === undefined) return null;
    // SQLite said the file is broken: confirm before throwing the index away.
    const rows = store.connection.current().pragma('quick_check') as { quick_check: string }[];
    const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
    if (problems.length > 0) return rebuild(`quick_check: ${problems.slice(0, 3).join('; ')}`);
    return null;
  };

  const check = (suspect?: unknown): Promise<DatabaseIncident | null> => {
    if (stopped) return Promise.resolve(null);
    // One check at a time: errors from many statements of one broken file make one incident.
    running ??= inspect(suspect)
      .catch((error: unknown) => {
        const detail = (error as Error).message;
        // A corrupt file, or a reopen that failed after closing the connection: start empty.
        if (isCorruption(error) || !store.connection.current().open) {
          try {
            return rebuild(detail);
          } catch (rebuildError) {
            log.error('the database could not be rebuilt', { error: rebuildError });
          }
        } else log.error('checking the database failed', { error });
        return record({ problem: 'corrupt', action: 'failed', detail, movedTo: null });
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  store.onBrokenFile = (error) => void check(error);
  const timer = setInterval(() => void check(), deps.intervalMs);
  timer.unref();
  return {
    check: () => check(),
    stop() {
      stopped = true;
      clearInterval(timer);
      store.onBrokenFile = () => undefined;
    },
  };
}
