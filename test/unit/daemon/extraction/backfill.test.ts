import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BACKFILL_INTERVAL_MS,
  BACKFILL_MAX_AGE_MS,
  type BackfillSession,
  createBackfillExtractions,
} from '../../../../daemon/extraction/backfill.js';

const NOW = Date.parse('2026-12-03T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const MAX_SESSIONS = 50;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function harness(
  sessions: BackfillSession[],
  extracted: ReadonlySet<string> = new Set(),
  due: (id: string) => boolean = () => true,
  maxSessions = MAX_SESSIONS,
) {
  const queued: string[] = [];
  const checked: string[] = [];
  let idle = true;
  const backfill = createBackfillExtractions({
    sessions: () => sessions,
    hasExtraction: (id) => extracted.has(id),
    idle: () => idle,
    enqueueIfDue: (id) => {
      checked.push(id);
      if (!due(id)) return false;
      queued.push(id);
      return true;
    },
    maxSessions,
  });
  return { backfill, queued, checked, setIdle: (value: boolean) => (idle = value) };
}

describe('backfill extractions', () => {
  it('looks at the sessions the backfill changed and the recent ones never extracted, newest first, one per interval', () => {
    // Newest first, as the index gives them.
    const sessions = [
      { sessionId: 'extracted-unchanged', lastActivity: ago(1_000) },
      { sessionId: 'extracted-changed', lastActivity: ago(2_000) },
      { sessionId: 'never-extracted', lastActivity: ago(3_000) },
      // Older than a week before the newest session: left to the live triggers.
      { sessionId: 'old-changed', lastActivity: ago(BACKFILL_MAX_AGE_MS + 1_001) },
      { sessionId: 'no-activity', lastActivity: null },
    ];
    const { backfill, queued } = harness(sessions, new Set(['extracted-unchanged', 'extracted-changed']));
    backfill.noteChanged('old-changed');
    backfill.noteChanged('extracted-changed');
    backfill.start();
    // The first an interval after the backfill, not amid the start-up.
    expect(queued).toEqual([]);
    vi.advanceTimersByTime(BACKFILL_INTERVAL_MS);
    expect(queued).toEqual(['extracted-changed']);
    vi.advanceTimersByTime(BACKFILL_INTERVAL_MS - 1);
    expect(queued).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(queued).toEqual(['extracted-changed', 'never-extracted']);
    expect(backfill.pending()).toBe(0);
    // Once started, live changes are the live triggers' business.
    backfill.noteChanged('old-changed');
    backfill.start();
    vi.advanceTimersByTime(10 * BACKFILL_INTERVAL_MS);
    expect(queued).toHaveLength(2);
  });

  it('waits while other extractions are queued or running, and skips sessions whose triggers say no', () => {
    const sessions = ['a', 'b', 'c'].map((sessionId, index) => ({ sessionId, lastActivity: ago(index * 1_000) }));
    const { backfill, queued, checked, setIdle } = harness(sessions, new Set(), (id) => id !== 'a');
    setIdle(false);
    backfill.start();
    vi.advanceTimersByTime(3 * BACKFILL_INTERVAL_MS);
    expect(checked).toEqual([]);
    setIdle(true);
    vi.advanceTimersByTime(BACKFILL_INTERVAL_MS);
    expect(checked).toEqual(['a', 'b']);
    expect(queued).toEqual(['b']);
    backfill.close();
    vi.advanceTimersByTime(10 * BACKFILL_INTERVAL_MS);
    expect(queued).toEqual(['b']);
  });

  it(`takes at most ${MAX_SESSIONS} sessions per run`, () => {
    const sessions = Array.from({ length: MAX_SESSIONS + 10 }, (_, index) => ({
      sessionId: `s${index}`,
      lastActivity: ago(index * 1_000),
    }));
    const { backfill, queued } = harness(sessions);
    backfill.start();
    vi.advanceTimersByTime(100 * BACKFILL_INTERVAL_MS);
    expect(queued).toHaveLength(MAX_SESSIONS);
    expect(queued[0]).toBe('s0');
  });

  it('does nothing when the setting allows no sessions', () => {
    const { backfill, checked } = harness([{ sessionId: 'a', lastActivity: ago(0) }], new Set(), () => true, 0);
    backfill.start();
    vi.advanceTimersByTime(10 * BACKFILL_INTERVAL_MS);
    expect(checked).toEqual([]);
  });
});
