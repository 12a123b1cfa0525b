/**
 * Billing blocks (daemon/usage/blocks.ts) on the responses of one session, with the figures
 * ccusage 20.0.24's `blocks --json --offline` gave for the same times (now 2026-12-05T13:04:53.501Z;
 * test/integration/usage-views.test.ts runs ccusage itself on a daemon's files).
 */
import { describe, expect, it } from 'vitest';
import {
  type Block,
  type BlockCounts,
  blockInfo,
  blockKey,
  blocksOf,
  createBlockFold,
  foldStartSlot,
  type TimedResponse,
} from '../../../../daemon/usage/blocks.js';
import type { UsageFigures } from '../../../../shared/protocol/usage.js';

const NOW = Date.parse('2026-12-05T13:04:53.501Z');
const HOUR = 3_600_000;
const MINUTE = 60_000;

const response = (ms: number, index: number): TimedResponse => ({
  ms,
  model: 'claude-sonnet-4-5-20250929',
  input: 10 * index,
  output: 100 * index,
  cacheCreation: 1_000,
  cacheRead: 5_000 * index,
  cache5m: 0,
  cache1h: 0,
});

/** The offsets from now of ccusage's run: a block, one cut at five hours from its start, a gap, the active one. */
const OFFSETS = [
  -20 * HOUR - 17 * MINUTE,
  -19 * HOUR,
  -14 * HOUR - 30 * MINUTE,
  -14 * HOUR + MINUTE,
  -3 * HOUR - 5 * MINUTE,
  -2 * HOUR,
  -40 * MINUTE,
];
const RESPONSES = OFFSETS.map((offset, at) => response(NOW + offset, at + 1));

/** A block's sums, priced as sonnet-4-5 (3 / 15 / 3.75 / 0.30 USD per million). */
function figuresOf(block: Block): UsageFigures {
  const sum = (pick: (counts: BlockCounts) => number) =>
    [...block.models.values()].reduce((total, counts) => total + pick(counts), 0);
  const [input, output, cacheCreation, cacheRead] = [
    sum((r) => r.input),
    sum((r) => r.output),
    sum((r) => r.cacheCreation),
    sum((r) => r.cacheRead),
  ];
  const costUsd = (input * 3 + output * 15 + cacheCreation * 3.75 + cacheRead * 0.3) / 1e6;
  const totalTokens = input + output + cacheCreation + cacheRead;
  return {
    input,
    output,
    cacheCreation,
    cacheRead,
    cache5m: 0,
    cache1h: 0,
    totalTokens,
    costUsd,
    responses: sum((counts) => counts.responses),
    unpricedResponses: 0,
  };
}

describe('blocksOf', () => {
  it('cuts blocks where ccusage does: at five hours from the floored hour, and after five idle hours with a gap', () => {
    const blocks = blocksOf(RESPONSES);
    expect(blocks.map(blockKey)).toEqual([
      '2026-12-04T16:00:00.000Z',
      '2026-12-04T22:00:00.000Z',
      'gap-2026-12-05T04:05:53.501Z',
      '2026-12-05T09:00:00.000Z',
    ]);
    expect(blocks.map((block) => figuresOf(block).responses)).toEqual([2, 2, 0, 3]);
    expect(blocks.map((block) => [new Date(block.startMs).toISOString(), new Date(block.endMs).toISOString()])).toEqual(
      [
        ['2026-12-04T16:00:00.000Z', '2026-12-04T21:00:00.000Z'],
        ['2026-12-04T22:00:00.000Z', '2026-12-05T03:00:00.000Z'],
        ['2026-12-05T04:05:53.501Z', '2026-12-05T09:59:53.501Z'],
        ['2026-12-05T09:00:00.000Z', '2026-12-05T14:00:00.000Z'],
      ],
    );
    expect(blocks.map((block) => figuresOf(block).totalTokens)).toEqual([17_330, 37_770, 0, 94_980]);
  });

  it('keeps a response exactly five hours after the last in its block, and opens none for no responses', () => {
    const start = Date.parse('2026-01-01T10:00:00.000Z');
    expect(blocksOf([])).toEqual([]);
    expect(blocksOf([response(start, 1), response(start + 5 * HOUR, 2)]).map(blockKey)).toEqual([
      '2026-01-01T10:00:00.000Z',
    ]);
    expect(blocksOf([response(start, 1), response(start + 5 * HOUR + 1, 2)]).map(blockKey)).toEqual([
      '2026-01-01T10:00:00.000Z',
      'gap-2026-01-01T15:00:00.000Z',
      '2026-01-01T15:00:00.000Z',
    ]);
  });
});

describe('blockInfo', () => {
  it("gives only the active block ccusage's burn rate and projection", () => {
    const blocks = blocksOf(RESPONSES);
    const infos = blocks.map((block) => blockInfo(block, figuresOf(block), NOW));
    expect(infos.map((info) => info.active)).toEqual([false, false, false, true]);
    expect(infos.slice(0, 3).every((info) => info.burnRate === null && info.projection === null)).toBe(true);
    const active = infos[3];
    expect(active?.lastResponse).toBe('2026-12-05T12:24:53.501Z');
    expect(active?.burnRate?.tokensPerMinute).toBeCloseTo(655.0344827586207, 9);
    expect(active?.burnRate?.tokensPerMinuteForIndicator).toBeCloseTo(13.655172413793103, 9);
    expect(active?.burnRate?.costPerHour).toBeCloseTo(0.02722344827586207, 9);
    expect(active?.projection?.remainingMinutes).toBe(55);
    expect(active?.projection?.totalCost).toBe(0.09);
    // ccusage's own now was the fixture's plus the seconds it took to start (131,007 tokens there): at 655
    // tokens a minute, the same projection 6.5 s earlier.
    expect(active?.projection?.totalTokens).toBe(
      Math.round(94_980 + 655.0344827586207 * ((Date.parse('2026-12-05T14:00:00.000Z') - NOW) / MINUTE)),
    );
    expect((active?.projection?.totalTokens ?? 0) - 131_007).toBeLessThan(655 / 6);
  });

  it('has no pace for a single response, and is not active past its end or five idle hours', () => {
    const start = Date.parse('2026-01-01T10:30:00.000Z');
    const [one] = blocksOf([response(start, 1)]) as [Block];
    expect(blockInfo(one, figuresOf(one), start + MINUTE)).toMatchObject({
      active: true,
      burnRate: null,
      projection: null,
    });
    expect(blockInfo(one, figuresOf(one), Date.parse('2026-01-01T15:00:00.000Z')).active).toBe(false);
  });
});

describe('foldStartSlot', () => {
  // Slots are quarter hours: 20 empty ones between two busy slots are over five hours.
  it('starts at the last slot over five idle hours after the one before it', () => {
    expect(foldStartSlot([100, 130, 140, 150], 200, 0)).toBe(130);
    expect(foldStartSlot([100, 120, 140, 160], 200, 0)).toBe(100);
  });
  it('starts at the window when nothing came before it in the lookback', () => {
    expect(foldStartSlot([], 200, 0)).toBe(200);
  });
  it("counts the lookback's start as idle before its first busy slot", () => {
    expect(foldStartSlot([20, 30], 200, 0)).toBe(20);
    expect(foldStartSlot([19, 30], 200, 0)).toBe(0);
  });
  it('folds the same blocks page by page as at once', () => {
    const fold = createBlockFold();
    for (const response of RESPONSES) fold.add(response);
    expect(fold.blocks().map(blockKey)).toEqual(blocksOf(RESPONSES).map(blockKey));
  });
});
