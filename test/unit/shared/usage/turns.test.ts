import { describe, expect, it } from 'vitest';
import type { IndexedEntry, Usage } from '../../../../shared/transcript/types.js';
import { isTurnStart, recentTurns } from '../../../../shared/usage/turns.js';

const T0 = Date.parse('2026-12-05T10:00:00.000Z');
const MINUTE_MS = 60_000;
const NOW = T0 + 24 * 60 * MINUTE_MS;

let offset = 0;
function entry(fields: Partial<IndexedEntry>): IndexedEntry {
  offset += 100;
  return {
    offset,
    length: 99,
    type: 'user',
    subtype: null,
    uuid: `u${offset}`,
    parentUuid: null,
    logicalParentUuid: null,
    timestamp: null,
    sessionId: 's',
    chars: 10,
    estTokens: 3,
    messageId: null,
    requestId: null,
    model: null,
    usage: null,
    toolUses: [],
    toolResults: [],
    isSidechain: false,
    isMeta: false,
    isCompactSummary: false,
    cwd: null,
    gitBranch: null,
    title: null,
    compact: null,
    ...fields,
  };
}

const at = (minute: number) => new Date(T0 + minute * MINUTE_MS).toISOString();
const usage = (context: number, cache1h = 0): Usage => ({
  input: 0,
  output: 0,
  cacheCreation: 0,
  cacheRead: context,
  cache5m: 0,
  cache1h,
});
const prompt = (minute: number) =>
  entry({ type: 'user', timestamp: at(minute), title: { kind: 'prompt', value: 'go on' } });
const response = (minute: number, context: number, id: string, tools = false) =>
  entry({
    type: 'assistant',
    timestamp: at(minute),
    messageId: id,
    requestId: `r${id}`,
    model: 'claude-sonnet-4-5',
    usage: usage(context),
    toolUses: tools ? [{ id: `t${id}`, name: 'Read' }] : [],
  });
const toolResult = (minute: number, id: string) =>
  entry({ type: 'user', timestamp: at(minute), toolResults: [{ id: `t${id}`, isError: false }] });
const boundary = (minute: number) =>
  entry({
    type: 'system',
    subtype: 'compact_boundary',
    timestamp: at(minute),
    compact: { trigger: 'auto', preTokens: 1, postTokens: null, preservedSegment: null },
  });

/** A turn: its prompt, a tool round, the answer; the context after it is `context`. */
const turn = (minute: number, context: number, id: string) => [
  prompt(minute),
  response(minute + 1, context - 500, `${id}a`, true),
  toolResult(minute + 1, `${id}a`),
  response(minute + 2, context, `${id}b`),
];

describe('recentTurns', () => {
  it('reads each turn’s prompt time and the context after its last response, oldest first', () => {
    const tail = [...turn(0, 10_000, 'x'), ...turn(5, 14_000, 'y'), ...turn(10, 18_000, 'z')];
    expect(recentTurns(tail, 10, NOW)).toEqual({
      turns: [
        { promptAt: T0, contextAfter: 10_000, complete: true },
        { promptAt: T0 + 5 * MINUTE_MS, contextAfter: 14_000, complete: true },
        { promptAt: T0 + 10 * MINUTE_MS, contextAfter: 18_000, complete: true },
      ],
      compacted: false,
      lastResponse: { at: T0 + 12 * MINUTE_MS, model: 'claude-sonnet-4-5', usage: usage(18_000) },
    });
  });

  it('keeps the last maxTurns, and leaves out the turn whose prompt is before the tail', () => {
    const tail = [...turn(0, 10_000, 'x'), ...turn(5, 14_000, 'y'), ...turn(10, 18_000, 'z')].slice(1);
    expect(recentTurns(tail, 10, NOW).turns.map((sample) => sample.contextAfter)).toEqual([14_000, 18_000]);
    const all = [...turn(0, 10_000, 'x'), ...turn(5, 14_000, 'y'), ...turn(10, 18_000, 'z')];
    expect(recentTurns(all, 2, NOW).turns.map((sample) => sample.contextAfter)).toEqual([14_000, 18_000]);
  });

  it('starts after the last compaction', () => {
    const tail = [...turn(0, 150_000, 'x'), boundary(3), ...turn(5, 30_000, 'y'), ...turn(10, 34_000, 'z')];
    const recent = recentTurns(tail, 10, NOW);
    expect(recent.compacted).toBe(true);
    expect(recent.turns.map((sample) => sample.contextAfter)).toEqual([30_000, 34_000]);
  });

  it('marks the last turn running while its last response waits for a tool', () => {
    const running = [...turn(0, 10_000, 'x'), prompt(5), response(6, 12_000, 'y', true), toolResult(6, 'y')];
    expect(recentTurns(running, 10, NOW).turns.map((sample) => sample.complete)).toEqual([true, false]);
  });

  it('counts a split response once, at its finalest usage; skips sidechains, meta and tool results as turn starts', () => {
    const split = [
      prompt(0),
      { ...response(1, 9_000, 'm'), usage: { ...usage(9_000), output: 1 } },
      { ...response(1, 9_000, 'm'), usage: { ...usage(9_000), output: 400 } },
      entry({ type: 'user', isMeta: true, timestamp: at(2), title: { kind: 'prompt', value: 'reminder' } }),
      entry({ type: 'user', isSidechain: true, timestamp: at(2), title: { kind: 'prompt', value: 'task' } }),
      { ...response(2, 50_000, 'side'), isSidechain: true },
    ];
    expect(recentTurns(split, 10, NOW).turns).toEqual([{ promptAt: T0, contextAfter: 9_400, complete: true }]);
    expect(isTurnStart(split[3] as IndexedEntry)).toBe(false);
    expect(isTurnStart(toolResult(0, 'q'))).toBe(false);
    expect(isTurnStart(entry({ type: 'user', title: { kind: 'command', value: '/review' } }))).toBe(true);
  });

  it('has no turns and no response in an empty tail', () => {
    expect(recentTurns([], 10, NOW)).toEqual({ turns: [], compacted: false, lastResponse: null });
  });
});
