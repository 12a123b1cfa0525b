import { describe, expect, it } from 'vitest';
import { priceFor } from '../../../../shared/transcript/models.js';
import {
  type AutoCompactInput,
  forecastAutoCompact,
  forecastCacheRebuild,
  forecastLimit,
  type LimitInput,
  median,
  trimmedMean,
  ttlMs,
} from '../../../../shared/usage/forecast.js';
import type { LastResponse, TurnSample } from '../../../../shared/usage/turns.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const NOW = Date.parse('2026-12-05T12:00:00.000Z');

/** Turns `minutes` apart whose contexts are these. */
const turns = (contexts: readonly number[], minutes = 4, complete = true): TurnSample[] =>
  contexts.map((contextAfter, index) => ({
    promptAt: NOW - (contexts.length - index) * minutes * MINUTE_MS,
    contextAfter,
    complete: complete || index < contexts.length - 1,
  }));

const threshold = (
  contextTokens: number,
  fields: Partial<AutoCompactInput['threshold']> = {},
): AutoCompactInput['threshold'] => {
  const base = {
    autoCompactAt: 167_000,
    blockingAt: 197_000,
    autoCompactEnabled: true,
    autoCompactMode: 'threshold' as const,
    ...fields,
  };
  const limit = base.autoCompactEnabled ? base.autoCompactAt : base.blockingAt;
  return { ...base, tokensLeft: Math.max(0, limit - contextTokens) };
};

describe('forecastAutoCompact', () => {
  it.each([
    {
      name: 'steady growth: whole turns that fit, minutes at the median pace',
      contexts: [100_000, 105_000, 110_000, 115_000],
      expected: { growthPerTurn: 5_000, minutesPerTurn: 4, tokensLeft: 52_000, turns: 10, minutes: 41.6 },
    },
    {
      name: 'no growth: no forecast',
      contexts: [100_000, 100_000, 100_000],
      expected: { growthPerTurn: 0, turns: null, minutes: null },
    },
    {
      name: 'one turn: no pace yet',
      contexts: [100_000],
      expected: { growthPerTurn: null, minutesPerTurn: null, turns: null, minutes: null, sampleTurns: 1 },
    },
    {
      name: 'the next turn passes it: 0 turns',
      contexts: [150_000, 160_000],
      expected: { tokensLeft: 7_000, turns: 0, minutes: 2.8 },
    },
    {
      name: 'past the threshold: 0 tokens left, 0 turns',
      contexts: [160_000, 170_000],
      expected: { tokensLeft: 0, turns: 0, minutes: 0 },
    },
    {
      name: 'one large read among steady turns is trimmed from the mean',
      contexts: [100_000, 102_000, 104_000, 140_000, 142_000, 144_000],
      expected: { growthPerTurn: 2_000 },
    },
  ])('$name', ({ contexts, expected }) => {
    const context = contexts.at(-1) as number;
    const forecast = forecastAutoCompact({
      contextTokens: context,
      threshold: threshold(context),
      turns: turns(contexts),
    });
    expect(forecast).toMatchObject({ ...expected, provenance: 'estimated', autoCompactEnabled: true });
  });

  it('reads minutes per turn as the median, so one long pause does not set the pace', () => {
    const samples = turns([100_000, 105_000, 110_000, 115_000]);
    (samples[3] as TurnSample).promptAt = (samples[2] as TurnSample).promptAt! + 90 * MINUTE_MS;
    const forecast = forecastAutoCompact({ contextTokens: 115_000, threshold: threshold(115_000), turns: samples });
    expect(forecast.minutesPerTurn).toBe(4);
  });

  it('leaves the running last turn out of the growth', () => {
    const forecast = forecastAutoCompact({
      contextTokens: 111_000,
      threshold: threshold(111_000),
      turns: turns([100_000, 105_000, 110_000, 111_000], 4, false),
    });
    expect(forecast.growthPerTurn).toBe(5_000);
    expect(forecast.sampleTurns).toBe(4);
  });

  it('counts to blocking when auto-compact is off, and says so', () => {
    const forecast = forecastAutoCompact({
      contextTokens: 115_000,
      threshold: threshold(115_000, { autoCompactEnabled: false }),
      turns: turns([105_000, 110_000, 115_000]),
    });
    expect(forecast).toMatchObject({ autoCompactEnabled: false, tokensLeft: 82_000, turns: 16 });
    expect(forecast.basis).toContain('blocking at 197k tokens (auto-compact is off)');
  });

  it('counts to the window in reactive mode, and says so', () => {
    const forecast = forecastAutoCompact({
      contextTokens: 115_000,
      threshold: threshold(115_000, { autoCompactAt: 200_000, blockingAt: 200_000, autoCompactMode: 'reactive' }),
      turns: turns([105_000, 110_000, 115_000]),
    });
    expect(forecast).toMatchObject({ autoCompactAt: 200_000, tokensLeft: 85_000, turns: 16 });
    expect(forecast.basis).toContain('reactive mode');
  });

  it('says how many turns, which mean and the pace in its basis', () => {
    const forecast = forecastAutoCompact({
      contextTokens: 115_000,
      threshold: threshold(115_000),
      turns: turns([100_000, 105_000, 110_000, 115_000]),
    });
    expect(forecast.basis).toBe(
      '52k tokens left until auto-compact at 167k tokens, at the mean growth over the last 4 complete turns since ' +
        'the last compaction (5,000 tokens a turn) and the median 4 minutes from prompt to prompt; 10 whole turns fit before it.',
    );
  });
});

describe('forecastLimit', () => {
  const input = (fields: Partial<LimitInput>): LimitInput => ({
    now: NOW,
    window: { usedPercent: 40, resetsAt: NOW + 2 * HOUR_MS },
    reportedBy: 'session',
    accountSpendUsd: 20,
    sessionUsdPerHour: 5,
    sessionSpanMinutes: 30,
    ...fields,
  });

  it('reaches 100% at the session’s pace: used % per USD of the window times its USD an hour', () => {
    // 2% per USD × $5/h = 10%/h; 60% to go takes 6 h, after the reset in 2 h.
    expect(forecastLimit(input({}))).toMatchObject({ percentPerHour: 10, reachedAt: null, resetFirst: true });
    // $20/h: 40%/h, 60% in 1.5 h, before the reset.
    expect(forecastLimit(input({ sessionUsdPerHour: 20 }))).toMatchObject({
      usedPercent: 40,
      percentPerHour: 40,
      reachedAt: NOW + 1.5 * HOUR_MS,
      resetFirst: false,
      provenance: 'estimated',
    });
  });

  it('has no figures without a report, and says Claude Code reports it on Claude.ai plans', () => {
    const forecast = forecastLimit(input({ window: null, reportedBy: null }));
    expect(forecast).toMatchObject({ usedPercent: null, resetsAt: null, percentPerHour: null, reachedAt: null });
    expect(forecast.basis).toContain('Claude.ai plans');
  });

  it.each([
    { name: 'no spend in the window', fields: { accountSpendUsd: 0 }, says: 'no priced spend in this window' },
    { name: 'no recent session spend', fields: { sessionUsdPerHour: null }, says: 'no recent priced responses' },
    {
      name: 'a window that reset already',
      fields: { window: { usedPercent: 90, resetsAt: NOW - MINUTE_MS } },
      says: 'that window reset at',
    },
    { name: 'no reset time', fields: { window: { usedPercent: 10, resetsAt: null } }, says: 'no reset time' },
  ])('has no pace with $name', ({ fields, says }) => {
    const forecast = forecastLimit(input(fields));
    expect(forecast.percentPerHour).toBeNull();
    expect(forecast.reachedAt).toBeNull();
    expect(forecast.basis).toContain(says);
  });

  it('is reached now at 100%, and names whose report it read', () => {
    const forecast = forecastLimit(
      input({ window: { usedPercent: 100, resetsAt: NOW + HOUR_MS }, reportedBy: 'account' }),
    );
    expect(forecast).toMatchObject({ reachedAt: NOW, resetFirst: false });
    expect(forecast.basis).toContain('official, from another session’s status line');
  });
});

describe('forecastCacheRebuild', () => {
  const sonnet = 'claude-sonnet-4-5-20250929';
  const last = (cache1h: number): LastResponse => ({
    at: NOW - MINUTE_MS,
    model: sonnet,
    usage: { input: 1, output: 1, cacheCreation: cache1h, cacheRead: 0, cache5m: 0, cache1h },
  });

  it.each([
    {
      name: 'reported TTL and expiry: official expiry, cost at the 5-minute write price',
      reported: { ttl: '5m', expiresAt: NOW + 3 * MINUTE_MS },
      lastResponse: last(500),
      expected: { ttl: '5m', expiresAt: NOW + 3 * MINUTE_MS, expiresAtProvenance: 'official', costUsd: 0.345 },
    },
    {
      name: 'no report, the last response wrote for an hour: 1h, its time + 1 h',
      reported: null,
      lastResponse: last(500),
      expected: { ttl: '1h', expiresAt: NOW + 59 * MINUTE_MS, expiresAtProvenance: 'estimated', costUsd: 0.57 },
    },
    {
      name: 'no report, 5-minute writes',
      reported: null,
      lastResponse: last(0),
      expected: { ttl: '5m', expiresAt: NOW + 4 * MINUTE_MS, expiresAtProvenance: 'estimated' },
    },
    {
      name: 'no report and no response: the default TTL, expiry unknown',
      reported: null,
      lastResponse: null,
      expected: { ttl: '5m', expiresAt: null, expiresAtProvenance: 'estimated' },
    },
  ])('$name', ({ reported, lastResponse, expected }) => {
    const forecast = forecastCacheRebuild({
      now: NOW,
      model: sonnet,
      price: priceFor(sonnet),
      contextTokens: 100_000,
      reported,
      lastResponse,
    });
    expect(forecast).toMatchObject({ ...expected, tokens: 100_000, provenance: 'estimated' });
  });

  it('has no cost for a model without a price, and says so', () => {
    const forecast = forecastCacheRebuild({
      now: NOW,
      model: 'claude-unknown-9',
      price: null,
      contextTokens: 100_000,
      reported: { ttl: '1h' },
      lastResponse: null,
    });
    expect(forecast.costUsd).toBeNull();
    expect(forecast.basis).toContain('claude-unknown-9 has no price');
  });
});

describe('the means and TTLs', () => {
  it('trims the extremes from five samples on, takes the median, reads TTLs', () => {
    expect(trimmedMean([])).toBeNull();
    expect(trimmedMean([1, 2, 100])).toBeCloseTo(103 / 3);
    expect(trimmedMean([1, 2, 3, 4, 100])).toBe(3);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
    expect([ttlMs('5m'), ttlMs('1h'), ttlMs('soon')]).toEqual([5 * MINUTE_MS, HOUR_MS, null]);
  });
});
