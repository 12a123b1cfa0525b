import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import type { IndexRow } from '../../../../daemon/sessions/list.js';
import {
  BACKGROUND_UPDATE_DELAY_MS,
  createSessionService,
  SESSION_UPDATE_THROTTLE_MS,
  type SessionService,
} from '../../../../daemon/sessions/service.js';
import type { EventPayloads, EventTopic } from '../../../../shared/protocol/events.js';
import type { SessionSummary, ThresholdState } from '../../../../shared/protocol/sessions.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

function summary(
  sessionId: string,
  tokens: number,
  state: ThresholdState,
  lastActivity: string | null,
): SessionSummary {
  const usage = {
    input: 0,
    output: 0,
    cacheCreation: 0,
    cacheRead: 0,
    cache5m: 0,
    cache1h: 0,
    assistantMessages: 0,
    costUsd: 0,
  };
  return {
    sessionId,
    project: '-p',
    cwd: '/p',
    gitBranch: null,
    title: null,
    model: 'claude-opus-4-8',
    firstActivity: lastActivity,
    lastActivity,
    gone: false,
    hasMainTranscript: true,
    contextTokens: tokens,
    threshold: {
      model: 'claude-opus-4-8',
      tokens,
      window: 200_000,
      effectiveWindow: 180_000,
      autoCompactAt: 167_000,
      warningAt: 147_000,
      errorAt: 147_000,
      blockingAt: 177_000,
      state,
      tokensLeft: 167_000 - tokens,
      percentUsed: 0,
      autoCompactEnabled: true,
      autoCompactMode: 'threshold',
    },
    usage: { main: usage, sidechain: usage, compaction: usage, total: usage },
    compactions: { count: 0, lastTrigger: null, lastPreTokens: null, lastPostTokens: null },
    sinceExtraction: { toolCalls: 0, tokenGrowth: 0 },
    sessionMemory: {
      extractedAt: null,
      lock: null,
      spentUsd: 0,
      spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      writer: null,
    },
    archived: false,
    entries: 1,
    sidechainFiles: 0,
    compactionFiles: 0,
    badLines: 0,
    badTimestamps: 0,
  };
}

let now = 0;
let current: Map<string, SessionSummary>;
let computed: string[];
let indexOverrides: Map<string, Partial<IndexRow>>;
let published: { topic: EventTopic; payload: unknown }[];
let wanted: Set<EventTopic>;
let service: SessionService;
let states: [string, ThresholdState, ThresholdState | undefined][] = [];
let statesWanted = false;

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
  vi.setSystemTime(now);
  current = new Map([
    ['a', summary('a', 10_000, 'ok', '2026-12-02T10:00:00.000Z')],
    ['b', summary('b', 20_000, 'ok', '2026-12-02T11:00:00.000Z')],
  ]);
  computed = [];
  indexOverrides = new Map();
  published = [];
  states = [];
  statesWanted = false;
  wanted = new Set(['session.updated', 'session.thresholdCrossed']);
  const bus = createBus((error) => {
    throw error;
  });
  bus.listen(<T extends EventTopic>(topic: T, payload: EventPayloads[T]) => published.push({ topic, payload }));
  service = createSessionService({
    sessionMemory: () => ({
      extractedAt: null,
      lock: null,
      spentUsd: 0,
      spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      writer: null,
    }),
    archived: () => false,
    sessionIndex: () =>
      [...current.values()].map(({ sessionId, project, lastActivity }) => ({
        sessionId,
        project,
        lastActivity,
        allGone: false,
        entries: 10,
        badLines: 0,
        ...indexOverrides.get(sessionId),
      })),
    summarize: (id) => {
      computed.push(id);
      return current.get(id);
    },
    bus,
    log: fakeLogger(),
    wanted: (topic) => wanted.has(topic),
    statesWanted: () => statesWanted,
    clock: () => now,
    onState: (sessionId, state, previous) => states.push([sessionId, state, previous]),
  });
});

afterEach(() => {
  service.close();
  vi.useRealTimers();
});

function advance(ms: number): void {
  now += ms;
  vi.advanceTimersByTime(ms);
}

describe('session service', () => {
  it('reports each computed state with the one before it, and nothing while no one wants events', () => {
    wanted.clear();
    service.onSessionsChanged(['a']);
    advance(1_000);
    expect(states).toEqual([]);
    expect(computed).toEqual([]);
    wanted.add('session.thresholdCrossed');
    service.onSessionsChanged(['a']);
    current.set('a', summary('a', 170_000, 'autocompact', '2026-12-02T10:01:00.000Z'));
    advance(1_000);
    service.onSessionsChanged(['a']);
    expect(states).toEqual([
      ['a', 'ok', undefined],
      ['a', 'autocompact', 'ok'],
    ]);
  });

  it('reports states when they are wanted for themselves (auto-compaction), with no client and no wire event', () => {
    wanted.clear();
    statesWanted = true;
    service.onSessionsChanged(['a']);
    current.set('a', summary('a', 170_000, 'autocompact', '2026-12-02T10:01:00.000Z'));
    advance(1_000);
    service.onSessionsChanged(['a']);
    expect(states).toEqual([
      ['a', 'ok', undefined],
      ['a', 'autocompact', 'ok'],
    ]);
    expect(published).toEqual([]);
  });

  it('caches summaries until ingest says the session changed', () => {
    service.get('a');
    service.get('a');
    expect(computed).toEqual(['a']);
    service.onSessionsChanged(['a']);
    service.get('a');
    expect(computed.filter((id) => id === 'a')).toHaveLength(2);
  });

  it('answers NotFound for an unknown session', () => {
    expect(() => service.get('zzz')).toThrow(expect.objectContaining({ code: 1001, kind: 'NotFound' }));
  });

  it("gives the title a session's summary has, and null for an unknown one (search hits, archive listings)", () => {
    current.set('a', { ...summary('a', 10_000, 'ok', null), title: 'Fix the parser' });
    expect(service.title('a')).toBe('Fix the parser');
    expect(service.title('b')).toBeNull();
    expect(service.title('zzz')).toBeNull();
  });

  it('lists most recent first, with project, activity and limit filters', () => {
    expect(service.list({}).sessions.map((s) => s.sessionId)).toEqual(['b', 'a']);
    expect(service.list({ limit: 1 }).sessions.map((s) => s.sessionId)).toEqual(['b']);
    // A limit summarizes only the sessions it returns.
    expect(computed).toEqual(['b', 'a']);
    wanted.clear();
    service.onSessionsChanged(['a', 'b']);
    computed.length = 0;
    service.list({ limit: 1 });
    expect(computed).toEqual(['b']);
    expect(service.list({ project: '/p' }).sessions).toHaveLength(2);
    expect(service.list({ project: 'elsewhere' }).sessions).toHaveLength(0);
    now = Date.parse('2026-12-02T11:30:00.000Z');
    expect(service.list({ activeWithinMs: 60 * 60 * 1000 }).sessions.map((s) => s.sessionId)).toEqual(['b']);
  });

  it('pages with a cursor over a stable order, with the total', () => {
    for (let i = 0; i < 5; i += 1) current.set(`c${i}`, summary(`c${i}`, 1_000, 'ok', '2026-12-02T09:00:00.000Z'));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const result = service.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      expect(result.total).toBe(7);
      seen.push(...result.sessions.map((s) => s.sessionId));
      if (result.nextCursor === null) break;
      cursor = result.nextCursor;
    }
    // Equal timestamps are ordered by id, so no session is skipped or repeated across pages.
    expect(seen).toEqual(['b', 'a', 'c0', 'c1', 'c2', 'c3', 'c4']);
    expect(() => service.list({ cursor: 'not-a-cursor' })).toThrow(
      expect.objectContaining({ code: -32602, kind: 'BadCursor' }),
    );
  });

  it('keeps sessions whose files are all gone, or that have no entry, out of a default list', () => {
    current.set('gone', summary('gone', 1_000, 'ok', '2026-12-02T12:00:00.000Z'));
    current.set('empty', summary('empty', 0, 'ok', null));
    indexOverrides.set('gone', { allGone: true });
    indexOverrides.set('empty', { entries: 0 });
    const listed = service.list({});
    expect(listed.sessions.map((s) => s.sessionId)).toEqual(['b', 'a']);
    expect(listed).toMatchObject({ total: 2, hidden: 2, nextCursor: null });
    expect(computed).not.toContain('gone');
    const all = service.list({ all: true });
    expect(all.sessions.map((s) => s.sessionId)).toEqual(['gone', 'b', 'a', 'empty']);
    expect(all).toMatchObject({ total: 4, hidden: 0 });
    // A gone session is history: sessions.get still answers with its totals.
    expect(service.get('gone').contextTokens).toBe(1_000);
  });

  it('publishes at most one session.updated per session per 250 ms, the last state winning', () => {
    service.onSessionsChanged(['a']);
    expect(published.map((e) => e.topic)).toEqual(['session.updated']);
    current.set('a', summary('a', 11_000, 'ok', '2026-12-02T10:00:01.000Z'));
    service.onSessionsChanged(['a']);
    current.set('a', summary('a', 12_000, 'ok', '2026-12-02T10:00:02.000Z'));
    service.onSessionsChanged(['a', 'a']);
    expect(published).toHaveLength(1);
    advance(SESSION_UPDATE_THROTTLE_MS - 1);
    expect(published).toHaveLength(1);
    advance(1);
    expect(published).toHaveLength(2);
    expect((published[1]?.payload as SessionSummary).contextTokens).toBe(12_000);
  });

  it('shows a background change (an extraction) with the next update, without holding that one back', () => {
    service.onSessionsChanged(['a']);
    advance(SESSION_UPDATE_THROTTLE_MS);
    published.length = 0;
    service.get('a');
    current.set('a', summary('a', 10_500, 'ok', '2026-12-02T10:00:00.000Z'));
    service.onBackgroundChange('a');
    // Read at once, published later.
    expect(service.get('a').contextTokens).toBe(10_500);
    expect(published).toHaveLength(0);
    advance(100);
    // A commit: published at once (no throttle window was taken), showing both.
    current.set('a', summary('a', 13_000, 'ok', '2026-12-02T10:00:03.000Z'));
    service.onSessionsChanged(['a']);
    expect(published.map((e) => (e.payload as SessionSummary).contextTokens)).toEqual([13_000]);
    advance(BACKGROUND_UPDATE_DELAY_MS * 2);
    expect(published).toHaveLength(1);
    // Without a commit: published after the delay, once.
    service.onBackgroundChange('a');
    service.onBackgroundChange('a');
    advance(BACKGROUND_UPDATE_DELAY_MS - 1);
    expect(published).toHaveLength(1);
    advance(1);
    expect(published).toHaveLength(2);
  });

  it('throttles each session on its own', () => {
    service.onSessionsChanged(['a', 'b']);
    expect(published.map((e) => (e.payload as SessionSummary).sessionId)).toEqual(['a', 'b']);
  });

  it('publishes session.thresholdCrossed when the state changes', () => {
    service.onSessionsChanged(['a']);
    current.set('a', summary('a', 170_000, 'autocompact', '2026-12-02T10:05:00.000Z'));
    advance(SESSION_UPDATE_THROTTLE_MS);
    service.onSessionsChanged(['a']);
    const crossed = published.filter((e) => e.topic === 'session.thresholdCrossed');
    expect(crossed).toHaveLength(1);
    expect(crossed[0]?.payload).toMatchObject({
      sessionId: 'a',
      from: 'ok',
      to: 'autocompact',
      contextTokens: 170_000,
    });
  });

  it('takes the state a client last read as the baseline of the first crossing', () => {
    expect(service.get('b').threshold.state).toBe('ok');
    current.set('b', summary('b', 150_000, 'warning', '2026-12-02T11:01:00.000Z'));
    service.onSessionsChanged(['b']);
    expect(published.find((e) => e.topic === 'session.thresholdCrossed')?.payload).toMatchObject({
      from: 'ok',
      to: 'warning',
    });
  });

  it('computes nothing for events nobody subscribes to', () => {
    wanted.clear();
    service.onSessionsChanged(['a']);
    expect(published).toEqual([]);
    expect(computed).toEqual([]);
  });
});
