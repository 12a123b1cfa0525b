import { describe, expect, it } from 'vitest';
import { createSessionReports } from '../../../../daemon/sessions/reports.js';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const limits = (used: number) => ({ fiveHour: { usedPercent: used, resetsAt: 1_796_482_800_000 } });

describe("memd's copy of what the status lines reported", () => {
  it('keeps the latest per session, marked official with when it came, and the account the latest of all', () => {
    let now = Date.parse('2026-12-05T13:00:00Z');
    const reports = createSessionReports(() => now);
    expect(reports.get(A)).toEqual({ rateLimits: null, accountRateLimits: null, promptCache: null, effort: null });
    expect(reports.report(A, { rateLimits: limits(40), promptCache: { warm: true } })).toBe(true);
    now += 60_000;
    reports.report(B, { rateLimits: limits(42) });
    expect(reports.get(A)).toEqual({
      rateLimits: { value: limits(40), provenance: 'official', sessionId: A, reportedAt: '2026-12-05T13:00:00.000Z' },
      accountRateLimits: {
        value: limits(42),
        provenance: 'official',
        sessionId: B,
        reportedAt: '2026-12-05T13:01:00.000Z',
      },
      promptCache: {
        value: { warm: true },
        provenance: 'official',
        sessionId: A,
        reportedAt: '2026-12-05T13:00:00.000Z',
      },
      effort: null,
    });
    // A refresh without a cache report keeps the cache's last one.
    reports.report(A, { rateLimits: limits(43) });
    expect(reports.get(A).promptCache?.value).toEqual({ warm: true });
    expect(reports.get(B).accountRateLimits?.value).toEqual(limits(43));
    expect(reports.report(A, {})).toBe(false);
  });

  it("keeps each session's reasoning effort apart from its limits, the latest winning", () => {
    const reports = createSessionReports(() => Date.parse('2026-12-05T13:00:00Z'));
    reports.report(A, { rateLimits: limits(40) });
    expect(reports.report(A, { effort: { level: 'high' } })).toBe(true);
    reports.report(A, { effort: { level: 'max' } });
    expect(reports.get(A)).toMatchObject({
      rateLimits: { value: limits(40) },
      effort: { value: { level: 'max' }, provenance: 'official', sessionId: A },
    });
    expect(reports.get(B).effort).toBeNull();
    reports.forget(A);
    expect(reports.get(A).effort).toBeNull();
  });

  it('forgets a session with archive.forget, the account figures too when they were its', () => {
    const reports = createSessionReports(() => 0);
    reports.report(A, { rateLimits: limits(1), promptCache: { misses: 1 } });
    reports.forget(A);
    expect(reports.get(A)).toEqual({ rateLimits: null, accountRateLimits: null, promptCache: null, effort: null });
  });
});
