/** The plan limits and the prompt cache read from the status line's stdin fixtures (test/fixtures/statusline/). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { effortOf, epochMsOf, reportsOf } from '../../../../../client/memctl/quick/reports.js';

const stdin = (name: string) =>
  JSON.parse(readFileSync(join('test/fixtures/statusline', name), 'utf8')) as Record<string, unknown>;

describe("the status line's stdin reports", () => {
  it('holds neither from 2.1.197 with an API key (no rate_limits, no prompt_cache)', () => {
    expect(reportsOf(stdin('stdin-2.1.197-api-key.json'))).toEqual({});
    expect(reportsOf(null)).toEqual({});
  });

  it("reads 2.1.197's rate_limits: float percentages, epoch-second resets as epoch ms", () => {
    expect(reportsOf(stdin('stdin-2.1.197-plan.json'))).toEqual({
      rateLimits: {
        fiveHour: { usedPercent: 42.00000000000001, resetsAt: Date.parse('2026-12-05T15:00:00Z') },
        sevenDay: { usedPercent: 12.5, resetsAt: Date.parse('2026-12-11T00:00:00Z') },
      },
    });
  });

  it("reads 2.1.260's prompt_cache whole, its miss causes included", () => {
    expect(reportsOf(stdin('stdin-2.1.260.json')).promptCache).toEqual({
      ttl: '5m',
      expiresAt: Date.parse('2026-12-05T12:59:00Z'),
      hitRatio: 0.9721,
      warm: false,
      misses: 2,
      expectedRebuilds: 1,
      lastMissAt: Date.parse('2026-12-05T12:40:00Z'),
      lastMissCauses: ['tools_changed', 'ttl_expired_5m'],
    });
    expect(reportsOf(stdin('stdin-2.1.251-warm.json')).promptCache).toEqual({
      ttl: '1h',
      expiresAt: Date.parse('2026-12-05T13:40:00Z'),
      hitRatio: 0.88,
      warm: true,
      misses: 0,
      expectedRebuilds: 0,
    });
  });

  it('drops what has the wrong type field by field and keeps the rest', () => {
    expect(reportsOf(stdin('stdin-partial.json'))).toEqual({
      // five_hour's used_percentage is a string: no five-hour window; seven_day's ISO reset is read.
      rateLimits: { sevenDay: { usedPercent: 12.5, resetsAt: Date.parse('2026-12-08T00:00:00Z') } },
      promptCache: { expectedRebuilds: 2, lastMissCauses: ['model_changed'] },
    });
    expect(reportsOf({ rate_limits: [], prompt_cache: 'warm' })).toEqual({});
    expect(reportsOf({ prompt_cache: {} })).toEqual({});
  });

  it('takes epoch seconds, epoch ms and ISO strings as times, and nothing else', () => {
    expect(epochMsOf(1_796_482_800)).toBe(1_796_482_800_000);
    expect(epochMsOf(1_796_482_800_123)).toBe(1_796_482_800_123);
    expect(epochMsOf('2026-12-05T15:00:00Z')).toBe(1_796_482_800_000);
    for (const bad of ['soon', '', -1, Number.NaN, null, true, {}]) expect(epochMsOf(bad)).toBeNull();
  });

  it("reads the reasoning effort: 2.1.197's effort.level, a bare string as newer transcripts write it, and no other shape", () => {
    expect(effortOf(stdin('stdin-2.1.197-oauth-captured.json'))).toEqual({ level: 'high' });
    // Claude Code sends no effort for a model that takes none (Sonnet 4.5), nor before 2.1.197's shape.
    expect(effortOf(stdin('stdin-2.1.197-plan.json'))).toBeUndefined();
    expect(effortOf({ effort: 'xhigh' })).toEqual({ level: 'xhigh' });
    for (const bad of [null, {}, { effort: {} }, { effort: { level: 3 } }, { effort: '' }, { effort: 'very high' }])
      expect(effortOf(bad)).toBeUndefined();
    expect(effortOf({ effort: { level: 'x'.repeat(21) } })).toBeUndefined();
  });
});
