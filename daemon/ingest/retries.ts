/**
 * Backoff for transcripts that fail to ingest, so that a lasting fault costs a few attempts and a
 * few log lines instead of a spin (issue 13 item 8: a full disk re-read 26 GB in four minutes, a
 * corrupt database logged ~290 warnings a second).
 *
 * A file that fails (it cannot be read, the parse worker failed on it) is not read again before its
 * retry: 1 s after the first failure, doubling to 5 min, back to nothing once a pass over it ends
 * well. A change event brings the retry of a read fault that a change may fix (permissions, a
 * directory or FIFO where the file was, a symlink) forward, but never to within 1 s of the previous
 * attempt: an unreadable transcript that its agent keeps appending to costs at most one open() a
 * second. A store fault (SQLITE_FULL, SQLITE_CORRUPT, an I/O error of the database) is nobody's
 * file's: it pauses all of ingest on the same backoff, and one pass at a time probes the store until
 * a write succeeds. Log lines mark changes of state only: a warning at the first failure (and when
 * the fault changes), none for repeated ones, an info line at recovery.
 */
import type { IngestFailure, IngestFailureKind } from '../../shared/protocol/ingest.js';
import type { Logger } from '../log/logger.js';
import type { PassOutcome } from './types.js';

/** The first retry: a brief fault (a file being replaced, a chmod undone) costs a second. */
export const RETRY_FIRST_MS = 1_000;
/** The longest wait: a lasting fault costs one attempt per file every five minutes. */
export const RETRY_MAX_MS = 5 * 60_000;
/** Failing files logged one by one; past this many they are only counted (status lists them). */
export const LOGGED_FAILING_FILES = 10;
/** Failures listed in daemon.status; `failingCount` counts them all. */
export const LISTED_FAILURES = 5;

export interface Fault {
  kind: IngestFailureKind;
  code: string | null;
  message: string;
  /** A change of the file may fix it, so a change event may bring its retry forward. */
  retryOnChange: boolean;
}

/** A failure of the parse worker (or the inline parser) during a pass, as opposed to one of reading. */
export class ParseFault extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ParseFault';
  }
}

/**
 * Read faults that a change event may bring forward. Not EIO (a failing disk is not fixed by a write
 * to the file, and each attempt may read megabytes before the error) nor a limit of the process.
 */
const CHANGE_MAY_FIX = new Set(['EACCES', 'EPERM', 'ELOOP', 'ENOTDIR', 'EISDIR', 'ENXIO', 'not-a-file', 'outside']);

function codeOf(error: unknown): string | null {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/** What kind of fault an error thrown by a pass is. */
export function faultOf(error: unknown): Fault {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ParseFault) return { kind: 'parse', code: codeOf(error.cause), message, retryOnChange: false };
  const code = codeOf(error);
  // better-sqlite3's SqliteError: every code is SQLITE_*, a full disk included (SQLITE_FULL).
  if (code?.startsWith('SQLITE_')) return { kind: 'store', code, message, retryOnChange: false };
  return { kind: 'read', code, message, retryOnChange: code !== null && CHANGE_MAY_FIX.has(code) };
}

interface Failing {
  path: string;
  fault: Fault;
  since: number;
  failures: number;
  lastAttemptAt: number;
  retryAt: number;
  /** Handed back for its retry and not failed since (the timer must not hand it back again). */
  handedBack: boolean;
  /** Its first failure was logged (its recovery is logged too). */
  logged: boolean;
}

export interface RetriesDeps {
  log: Logger;
  clock: () => number;
  /** These files' retries are due: read them again. */
  onDue(paths: string[]): void;
  /** The store may be tried again (or took a write again): start passes. */
  onStoreDue(): void;
}

export interface Retries {
  /** A pass over `path` threw. `store`: the store is at fault; the file is not held back, ingest is. */
  failed(path: string, error: unknown): 'store' | 'file';
  /** A pass over `path` ended without reading it (not a regular file, a symlink out of the dir). */
  failedWith(path: string, fault: Fault): void;
  /** A pass over `path` ended well; `wrote`: it changed the index, which shows that the store takes writes. */
  succeeded(path: string, wrote: boolean): void;
  /** Failing and held back until its retry. */
  isWaiting(path: string): boolean;
  /** Failing (held back, or queued for its retry). */
  isFailing(path: string): boolean;
  /** The file changed: a fault a change may fix is retried sooner, never within RETRY_FIRST_MS of the last attempt. */
  changed(path: string): void;
  /** `open`: passes run; `closed`: the store failed and waits for its retry; `probe`: one pass at a time tries it. */
  storeGate(): 'open' | 'closed' | 'probe';
  status(): { failing: IngestFailure[]; failingCount: number };
  stop(): void;
}

/** A pass that ended without reading the file, as a fault to back off (null: it was read, or is gone). */
export function unreadFault(outcome: PassOutcome): Fault | null {
  if (outcome === 'not-a-file')
    return {
      kind: 'read',
      code: 'not-a-file',
      message: 'not a regular file (a directory, FIFO or device is where the transcript was)',
      retryOnChange: true,
    };
  if (outcome === 'outside')
    return {
      kind: 'read',
      code: 'outside',
      message: 'a symlink that leads out of the projects dir; not ingested',
      retryOnChange: true,
    };
  return null;
}

export function retryDelay(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

export function createRetries(deps: RetriesDeps): Retries {
  const { log, clock } = deps;
  const files = new Map<string, Failing>();
  let store: Failing | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let loggedFiles = 0;
  let capLogged = false;

  function schedule(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (stopped) return;
    let next = Infinity;
    for (const failing of files.values()) if (!failing.handedBack) next = Math.min(next, failing.retryAt);
    if (store !== null && !store.handedBack) next = Math.min(next, store.retryAt);
    if (next === Infinity) return;
    timer = setTimeout(fire, Math.max(0, next - clock()));
    timer.unref();
  }

  function fire(): void {
    timer = null;
    const now = clock();
    const due: string[] = [];
    for (const failing of files.values()) {
      if (failing.handedBack || failing.retryAt > now) continue;
      failing.handedBack = true;
      due.push(failing.path);
    }
    const storeDue = store !== null && !store.handedBack && store.retryAt <= now;
    if (storeDue && store !== null) store.handedBack = true;
    schedule();
    if (due.length > 0) deps.onDue(due);
    if (storeDue) deps.onStoreDue();
  }

  /** The next state of a failing thing after one more failure at `now`. */
  function again(failing: Failing, fault: Fault, now: number): boolean {
    const changedFault = failing.fault.kind !== fault.kind || failing.fault.code !== fault.code;
    failing.fault = fault;
    failing.failures += 1;
    failing.lastAttemptAt = now;
    failing.retryAt = now + retryDelay(failing.failures);
    failing.handedBack = false;
    return changedFault;
  }

  function fresh(path: string, fault: Fault, now: number, logged: boolean): Failing {
    return {
      path,
      fault,
      since: now,
      failures: 1,
      lastAttemptAt: now,
      retryAt: now + retryDelay(1),
      handedBack: false,
      logged,
    };
  }

  const fields = (failing: Failing) => ({
    path: failing.path,
    kind: failing.fault.kind,
    code: failing.fault.code,
    message: failing.fault.message,
    failures: failing.failures,
    retryInMs: failing.retryAt - failing.lastAttemptAt,
  });

  function storeFailed(path: string, fault: Fault, now: number): void {
    if (store === null) {
      store = fresh(path, fault, now, true);
      log.warn('cannot write the transcript index; ingest is paused and retried with backoff', fields(store));
    } else {
      store.path = path;
      if (again(store, fault, now)) log.warn('the transcript index fails differently now', fields(store));
    }
  }

  function fileFailed(path: string, fault: Fault, now: number): void {
    const failing = files.get(path);
    if (failing === undefined) {
      const logged = loggedFiles < LOGGED_FAILING_FILES;
      const added = fresh(path, fault, now, logged);
      files.set(path, added);
      if (logged) {
        loggedFiles += 1;
        log.warn('cannot ingest transcript; retried with backoff', fields(added));
      } else if (!capLogged) {
        capLogged = true;
        log.warn('more transcripts fail than are logged one by one; memctl status counts them', {
          failing: files.size,
        });
      }
      return;
    }
    if (again(failing, fault, now) && failing.logged) log.warn('transcript fails differently now', fields(failing));
  }

  return {
    failed(path, error) {
      const fault = faultOf(error);
      const now = clock();
      if (fault.kind === 'store') storeFailed(path, fault, now);
      else fileFailed(path, fault, now);
      schedule();
      return fault.kind === 'store' ? 'store' : 'file';
    },
    failedWith(path, fault) {
      fileFailed(path, fault, clock());
      schedule();
    },
    succeeded(path, wrote) {
      const now = clock();
      if (store !== null && wrote) {
        log.info(`transcript index writes recovered after ${store.failures} failures`, {
          code: store.fault.code,
          failingForMs: now - store.since,
        });
        store = null;
        deps.onStoreDue();
      }
      const failing = files.get(path);
      if (failing === undefined) return;
      files.delete(path);
      if (failing.logged) {
        loggedFiles -= 1;
        log.info(`transcript recovered after ${failing.failures} failures`, {
          path,
          kind: failing.fault.kind,
          code: failing.fault.code,
          failingForMs: now - failing.since,
        });
      }
      if (files.size === 0) capLogged = false;
      schedule();
    },
    isWaiting(path) {
      const failing = files.get(path);
      return failing !== undefined && !failing.handedBack;
    },
    isFailing: (path) => files.has(path),
    changed(path) {
      const failing = files.get(path);
      if (failing === undefined || failing.handedBack || !failing.fault.retryOnChange) return;
      const soonest = Math.max(clock(), failing.lastAttemptAt + RETRY_FIRST_MS);
      if (soonest >= failing.retryAt) return;
      failing.retryAt = soonest;
      schedule();
    },
    storeGate() {
      if (store === null) return 'open';
      return store.retryAt > clock() ? 'closed' : 'probe';
    },
    status() {
      const listed = (failing: Failing): IngestFailure => ({
        path: failing.path,
        kind: failing.fault.kind,
        code: failing.fault.code,
        message: failing.fault.message,
        since: new Date(failing.since).toISOString(),
        failures: failing.failures,
        retryAt: new Date(failing.retryAt).toISOString(),
      });
      const byRetry = [...files.values()].sort((a, b) => a.retryAt - b.retryAt || (a.path < b.path ? -1 : 1));
      const failing = [...(store === null ? [] : [store]), ...byRetry].slice(0, LISTED_FAILURES).map(listed);
      return { failing, failingCount: files.size + (store === null ? 0 : 1) };
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
