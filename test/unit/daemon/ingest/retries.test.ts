import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createRetries,
  faultOf,
  LISTED_FAILURES,
  LOGGED_FAILING_FILES,
  ParseFault,
  RETRY_FIRST_MS,
  RETRY_MAX_MS,
  type Retries,
  retryDelay,
} from '../../../../daemon/ingest/retries.js';
import { type FakeLogger, fakeLogger } from '../../../helpers/fake-logger.js';

const errno = (code: string) => Object.assign(new Error(`${code}: something, open '/x.jsonl'`), { code });
const sqlite = (code: string) => Object.assign(new Error('database or disk is full'), { code });

let log: FakeLogger;
let due: string[][];
let storeDue: number;
let retries: Retries;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  log = fakeLogger();
  due = [];
  storeDue = 0;
  retries = createRetries({
    log,
    clock: () => Date.now(),
    onDue: (paths) => due.push(paths),
    onStoreDue: () => (storeDue += 1),
  });
});

afterEach(() => {
  retries.stop();
  vi.useRealTimers();
});

describe('faultOf', () => {
  it('tells read, store and parse faults apart', () => {
    expect(faultOf(errno('EACCES'))).toMatchObject({ kind: 'read', code: 'EACCES', retryOnChange: true });
    expect(faultOf(errno('EIO'))).toMatchObject({ kind: 'read', code: 'EIO', retryOnChange: false });
    expect(faultOf(sqlite('SQLITE_FULL'))).toMatchObject({ kind: 'store', code: 'SQLITE_FULL', retryOnChange: false });
    expect(faultOf(sqlite('SQLITE_CORRUPT'))).toMatchObject({ kind: 'store', code: 'SQLITE_CORRUPT' });
    expect(faultOf(new ParseFault(new Error('the parse worker exited with code 1')))).toMatchObject({
      kind: 'parse',
      code: null,
      message: 'the parse worker exited with code 1',
    });
  });
});

describe('retries of a failing file', () => {
  it('waits 1 s, doubling to 5 min, and hands the file back only when its retry is due', () => {
    expect([1, 2, 3, 9, 10, 30].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 256_000, RETRY_MAX_MS, RETRY_MAX_MS]);
    const path = '/p/a.jsonl';
    expect(retries.failed(path, errno('EACCES'))).toBe('file');
    expect(retries.isWaiting(path)).toBe(true);
    vi.advanceTimersByTime(RETRY_FIRST_MS - 1);
    expect(due).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(due).toEqual([[path]]);
    expect(retries.isWaiting(path)).toBe(false);
    expect(retries.isFailing(path)).toBe(true);
    // Handed back once: no timer fires again until it fails again.
    vi.advanceTimersByTime(RETRY_MAX_MS);
    expect(due).toHaveLength(1);
    retries.failed(path, errno('EACCES'));
    vi.advanceTimersByTime(2 * RETRY_FIRST_MS - 1);
    expect(due).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(due).toHaveLength(2);
    expect(retries.status()).toMatchObject({
      failingCount: 1,
      failing: [{ path, kind: 'read', code: 'EACCES', failures: 2 }],
    });
  });

  it('logs the first failure and the recovery, nothing for the failures between', () => {
    const path = '/p/a.jsonl';
    for (let n = 0; n < 6; n++) {
      retries.failed(path, errno('EACCES'));
      vi.advanceTimersByTime(RETRY_MAX_MS);
    }
    expect(log.at('warn').map((line) => line.msg)).toEqual(['cannot ingest transcript; retried with backoff']);
    retries.succeeded(path, true);
    expect(log.at('info').map((line) => line.msg)).toEqual(['transcript recovered after 6 failures']);
    expect(retries.status()).toEqual({ failing: [], failingCount: 0 });
    // Success resets the backoff.
    retries.failed(path, errno('EACCES'));
    expect(Date.parse(retries.status().failing[0]?.retryAt ?? '')).toBe(Date.now() + RETRY_FIRST_MS);
  });

  it('lets a change bring a permission fault forward, never to within 1 s of the last attempt; not an I/O error', () => {
    const denied = '/p/denied.jsonl';
    const broken = '/p/broken.jsonl';
    for (let n = 0; n < 4; n++) {
      retries.failed(denied, errno('EACCES'));
      retries.failed(broken, errno('EIO'));
    }
    // Both wait 8 s now; a change at once may bring only the first to 1 s after its last attempt.
    retries.changed(denied);
    retries.changed(broken);
    vi.advanceTimersByTime(RETRY_FIRST_MS);
    expect(due).toEqual([[denied]]);
    vi.advanceTimersByTime(8 * RETRY_FIRST_MS);
    expect(due).toEqual([[denied], [broken]]);
  });

  it('logs at most LOGGED_FAILING_FILES files one by one, then one line, and lists LISTED_FAILURES of them', () => {
    for (let n = 0; n < 50; n++) retries.failed(`/p/${n}.jsonl`, errno('EACCES'));
    expect(log.at('warn')).toHaveLength(LOGGED_FAILING_FILES + 1);
    const status = retries.status();
    expect(status.failingCount).toBe(50);
    expect(status.failing).toHaveLength(LISTED_FAILURES);
    for (let n = 0; n < 50; n++) retries.succeeded(`/p/${n}.jsonl`, true);
    expect(log.at('info')).toHaveLength(LOGGED_FAILING_FILES);
  });
});

describe('a store fault', () => {
  it('closes the gate until its retry, then one pass probes it until a write succeeds', () => {
    expect(retries.storeGate()).toBe('open');
    expect(retries.failed('/p/a.jsonl', sqlite('SQLITE_FULL'))).toBe('store');
    // No file is held back: the store is.
    expect(retries.isWaiting('/p/a.jsonl')).toBe(false);
    expect(retries.storeGate()).toBe('closed');
    vi.advanceTimersByTime(RETRY_FIRST_MS);
    expect(storeDue).toBe(1);
    expect(retries.storeGate()).toBe('probe');
    retries.failed('/p/a.jsonl', sqlite('SQLITE_FULL'));
    expect(retries.storeGate()).toBe('closed');
    vi.advanceTimersByTime(2 * RETRY_FIRST_MS);
    expect(storeDue).toBe(2);
    // A pass that wrote nothing proves nothing: still probing.
    retries.succeeded('/p/b.jsonl', false);
    expect(retries.storeGate()).toBe('probe');
    expect(retries.status()).toMatchObject({
      failingCount: 1,
      failing: [{ kind: 'store', code: 'SQLITE_FULL', failures: 2, path: '/p/a.jsonl' }],
    });
    retries.succeeded('/p/a.jsonl', true);
    expect(retries.storeGate()).toBe('open');
    expect(storeDue).toBe(3);
    expect(log.lines.map((line) => [line.level, line.msg])).toEqual([
      ['warn', 'cannot write the transcript index; ingest is paused and retried with backoff'],
      ['info', 'transcript index writes recovered after 2 failures'],
    ]);
  });

  it('ignores change events', () => {
    retries.failed('/p/a.jsonl', sqlite('SQLITE_CORRUPT'));
    retries.changed('/p/a.jsonl');
    expect(retries.storeGate()).toBe('closed');
  });
});
