import { describe, expect, it } from 'vitest';
import {
  contextWindowFor,
  costOf,
  maxOutputTokensFor,
  parseModelVersion,
  priceFor,
} from '../../../../shared/transcript/models.js';
import type { Usage } from '../../../../shared/transcript/types.js';

describe('parseModelVersion', () => {
  it.each([
    ['claude-opus-4-8', { family: 'opus', major: 4, minor: 8 }],
    ['claude-haiku-4-5-20251001', { family: 'haiku', major: 4, minor: 5 }],
    ['claude-opus-4-20250514', { family: 'opus', major: 4, minor: 0 }],
    ['claude-opus-4-1@20250805', { family: 'opus', major: 4, minor: 1 }],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', { family: 'sonnet', major: 4, minor: 5 }],
    ['claude-sonnet-4-5[1m]', { family: 'sonnet', major: 4, minor: 5 }],
    ['claude-3-5-sonnet-20241022', { family: 'sonnet', major: 3, minor: 5 }],
    ['claude-3-opus-20240229', { family: 'opus', major: 3, minor: 0 }],
    ['Claude-3-7-Sonnet-latest', { family: 'sonnet', major: 3, minor: 7 }],
  ])('%s', (model, expected) => {
    expect(parseModelVersion(model)).toEqual(expected);
  });

  it.each(['<synthetic>', 'gpt-4o', 'opus', 'claude-instant-1.2', ''])('does not recognise %j', (model) => {
    expect(parseModelVersion(model)).toBeNull();
  });
});

describe('context window and output limit', () => {
  it('is 200K unless the model carries [1m] or Claude Code runs it at 1M by default (Opus 4.8)', () => {
    expect(contextWindowFor('claude-opus-4-8')).toBe(1_000_000);
    expect(contextWindowFor('us.anthropic.claude-opus-4-8-20260101')).toBe(1_000_000);
    expect(contextWindowFor('claude-opus-4-6')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5')).toBe(200_000);
    // 2.1.197's model table: native_1m for claude-opus-4-7 and claude-sonnet-5 too (issue 28);
    // window 200000 for the Sonnet 4.x models, Opus 4.6 and before, and Haiku.
    expect(contextWindowFor('claude-opus-4-7')).toBe(1_000_000);
    expect(contextWindowFor('claude-sonnet-5')).toBe(1_000_000);
    expect(contextWindowFor('claude-sonnet-4-6')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-20250514')).toBe(200_000);
    expect(contextWindowFor('claude-opus-4-1-20250805')).toBe(200_000);
    expect(contextWindowFor('claude-haiku-4-5-20251001')).toBe(200_000);
    expect(contextWindowFor('claude-3-5-haiku-20241022')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(contextWindowFor('opus[1M]')).toBe(1_000_000);
    expect(contextWindowFor(null)).toBe(200_000);
  });

  it('knows the output limits that matter for the effective window', () => {
    expect(maxOutputTokensFor('claude-opus-4-6')).toBe(64_000);
    expect(maxOutputTokensFor('claude-opus-4-1')).toBe(32_000);
    expect(maxOutputTokensFor('claude-3-5-haiku-20241022')).toBe(8_192);
    expect(maxOutputTokensFor('claude-3-opus-20240229')).toBe(4_096);
    expect(maxOutputTokensFor('mystery')).toBe(32_000);
  });
});

describe('priceFor', () => {
  it.each([
    ['claude-opus-4-8', 5, 25],
    ['claude-opus-4-6', 5, 25],
    ['claude-opus-4-5-20251101', 5, 25],
    ['claude-opus-4-1-20250805', 15, 75],
    ['claude-opus-4-20250514', 15, 75],
    ['claude-3-opus-20240229', 15, 75],
    ['claude-sonnet-4-6', 3, 15],
    ['claude-sonnet-4-5[1m]', 3, 15],
    ['claude-3-7-sonnet-20250219', 3, 15],
    ['claude-haiku-4-5-20251001', 1, 5],
    ['claude-3-5-haiku-20241022', 0.8, 4],
    ['claude-3-haiku-20240307', 0.25, 1.25],
  ])('%s: $%s in, $%s out', (model, input, output) => {
    expect(priceFor(model)).toMatchObject({ input, output });
  });

  it('derives cache prices from the input price', () => {
    expect(priceFor('claude-sonnet-4-5')).toEqual({
      input: 3,
      output: 15,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      cacheRead: 0.3,
    });
    expect(priceFor('claude-3-haiku-20240307')).toMatchObject({
      cacheWrite5m: 0.3,
      cacheWrite1h: 0.5,
      cacheRead: 0.03,
    });
  });

  it('has no price for unknown models, a new major version or synthetic entries', () => {
    expect(priceFor('<synthetic>')).toBeNull();
    expect(priceFor('claude-opus-5')).toBeNull();
    expect(priceFor('gpt-4o')).toBeNull();
    expect(priceFor(null)).toBeNull();
  });
});

describe('costOf', () => {
  const M = 1_000_000;
  const usage: Usage = { input: M, output: M, cacheCreation: 3 * M, cacheRead: M, cache5m: M, cache1h: M };

  it('prices each kind of token, unsplit cache writes at the 5-minute rate', () => {
    const price = priceFor('claude-opus-4-8');
    if (!price) throw new Error('no price');
    // 5 input + 25 output + (1 + 1 unsplit) × 6.25 + 1 × 10 + 1 × 0.5
    expect(costOf(usage, price)).toBeCloseTo(5 + 25 + 12.5 + 10 + 0.5, 10);
  });
});
