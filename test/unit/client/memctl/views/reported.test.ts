import { describe, expect, it } from 'vitest';
import { plainOutput } from '../../../../../client/memctl/output.js';
import { effortSuffix, reportedLines } from '../../../../../client/memctl/views/reported.js';
import type { ReportedState } from '../../../../../shared/protocol/reports.js';

const out = plainOutput();
const NOW = Date.parse('2026-12-05T13:08:00Z');
const SESSION = '5f0c2a61-7d3e-4b8a-9c1f-2e6d4a8b0c13';
const OTHER = '77777777-0000-4000-8000-000000000007';
const at = (iso: string) => Date.parse(iso);
const stamp = <T>(value: T, sessionId = SESSION) => ({
  value,
  provenance: 'official' as const,
  sessionId,
  reportedAt: '2026-12-05T13:06:00.000Z',
});

describe('memctl status SESSION: the plan limits and the cache', () => {
  it('shows both with their provenance and when Claude Code reported them', () => {
    const limits = stamp({
      fiveHour: { usedPercent: 42.00000000000001, resetsAt: at('2026-12-05T15:00:00Z') },
      sevenDay: { usedPercent: 12.5, resetsAt: at('2026-12-11T00:00:00Z') },
    });
    const reported: ReportedState = {
      rateLimits: limits,
      accountRateLimits: limits,
      promptCache: stamp({
        ttl: '5m',
        warm: false,
        hitRatio: 0.9721,
        misses: 2,
        expectedRebuilds: 1,
        lastMissAt: at('2026-12-05T12:40:00Z'),
        lastMissCauses: ['tools_changed', 'ttl_expired_5m'],
      }),
    };
    expect(reportedLines(reported, SESSION, out, NOW)).toEqual([
      '  plan      5h 42% used, resets in 1h52m (2026-12-05 15:00Z) · 7d 12.5% used, resets in 5d10h (2026-12-11 00:00Z)  (official: Claude Code reported it 2m ago)',
      '  cache     cold (5m TTL), last miss 2026-12-05 12:40Z: tools_changed, ttl_expired_5m · hit ratio 97% · 2 misses · 1 expected rebuilds  (official: Claude Code reported it 2m ago)',
    ]);
  });

  it("takes the account's limits from another session, says so, and marks memd's own reading of an expired cache estimated", () => {
    const reported: ReportedState = {
      rateLimits: null,
      accountRateLimits: stamp({ fiveHour: { usedPercent: 7, resetsAt: null } }, OTHER),
      promptCache: stamp({ ttl: '1h', warm: true, expiresAt: at('2026-12-05T13:00:00Z') }),
    };
    const [plan, cache] = reportedLines(reported, SESSION, out, NOW);
    expect(plan).toBe('  plan      5h 7% used  (official: Claude Code reported it 2m ago by session 77777777)');
    expect(cache).toContain('cold since 2026-12-05 13:00Z (1h TTL) [estimated: reported warm, its expiry has passed]');
    const warm = reportedLines(
      { ...reported, promptCache: stamp({ warm: true, expiresAt: at('2026-12-05T13:40:00Z') }) },
      SESSION,
      out,
      NOW,
    );
    expect(warm[1]).toContain('  cache     warm, expires in 32m  (official');
  });

  it('says what was not reported, and shows nothing from a memd without reports', () => {
    const none: ReportedState = { rateLimits: null, accountRateLimits: null, promptCache: null };
    const [plan, cache] = reportedLines(none, SESSION, out, NOW);
    expect(plan).toContain('not reported');
    expect(cache).toContain('not reported');
    expect(reportedLines(undefined, SESSION, out, NOW)).toEqual([]);
  });

  it('adds the reasoning effort to the model line, official, and nothing when none was reported', () => {
    const none: ReportedState = { rateLimits: null, accountRateLimits: null, promptCache: null };
    expect(effortSuffix({ ...none, effort: stamp({ level: 'high' }) }, SESSION, out, NOW)).toBe(
      ' · effort high  (official: Claude Code reported it 2m ago)',
    );
    expect(effortSuffix({ ...none, effort: null }, SESSION, out, NOW)).toBe('');
    // A memd that predates it: no `effort` at all.
    expect(effortSuffix(none, SESSION, out, NOW)).toBe('');
    expect(effortSuffix(undefined, SESSION, out, NOW)).toBe('');
  });
});
