/**
 * usage.status's gathering (daemon/usage/status.ts) over fakes: which report it reads, the
 * window's spend, and the session's spend rate over its last half hour of activity.
 */
import { describe, expect, it } from 'vitest';
import type { SlotRow, TimedRow } from '../../../../daemon/usage/book.js';
import { createUsageStatus } from '../../../../daemon/usage/status.js';
import type { RateLimitsReport, Reported, ReportedState } from '../../../../shared/protocol/reports.js';
import type { SessionSummary } from '../../../../shared/protocol/sessions.js';
import { computeThresholds } from '../../../../shared/transcript/thresholds.js';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const SONNET = 'claude-sonnet-4-5-20250929';

/** A response of $1 at Sonnet 4.5's prices (1/3 of a million input tokens at $3 per million). */
const dollar = (ms: number, model = SONNET): TimedRow => ({
  slot: Math.floor(ms / (15 * MINUTE_MS)),
  timestamp: new Date(ms).toISOString(),
  model,
  input: 1_000_000 / 3,
  output: 0,
  cache_creation: 0,
  cache_read: 0,
  cache_5m: 0,
  cache_1h: 0,
});
const asSlot = (row: TimedRow): SlotRow => ({ ...row, project: 'p', device: '', responses: 1 });

const limits = (sessionId: string, usedPercent: number): Reported<RateLimitsReport> => ({
  value: { fiveHour: { usedPercent, resetsAt: NOW + 2 * HOUR_MS } },
  provenance: 'official',
  sessionId,
  reportedAt: new Date(NOW).toISOString(),
});

function statusOver(responses: TimedRow[], account: TimedRow[], reported: ReportedState) {
  const asked: { opened: number[] } = { opened: [] };
  const status = createUsageStatus({
    clock: () => NOW,
    summary: (sessionId) =>
      ({
        sessionId,
        model: SONNET,
        contextTokens: 50_000,
        threshold: computeThresholds({ model: SONNET, tokens: 50_000, env: {} }),
      }) as SessionSummary,
    reports: { get: () => reported },
    mainTurnRows: () => [],
    usage: {
      windowUsage: () => account.map(asSlot),
      sessionResponses: (_sessionId, fromMs) => {
        asked.opened.push(fromMs);
        return responses;
      },
    },
  });
  return { answer: status.status('s'), asked };
}

describe('usage.status gathering', () => {
  it('reads the rate over the last half hour of activity, and the percent a USD buys from the window', () => {
    // $1 an hour ago, then $3 over the last 20 minutes: $3 over 20 minutes is $9/h.
    const session = [dollar(NOW - 60 * MINUTE_MS), ...[30, 20, 10].map((ago) => dollar(NOW - ago * MINUTE_MS))];
    const account = [...session, ...Array.from({ length: 6 }, (_, i) => dollar(NOW - (100 + i) * MINUTE_MS))];
    const { answer, asked } = statusOver(session, account, {
      rateLimits: limits('s', 50),
      accountRateLimits: limits('s', 50),
      promptCache: null,
    });
    expect(asked.opened).toEqual([NOW + 2 * HOUR_MS - 5 * HOUR_MS]);
    // 50% for the window's $10: 5% per USD; $3 from 30 to 10 minutes ago (not the $1 an hour ago): $9/h.
    expect(answer.limit.percentPerHour).toBeCloseTo(45, 5);
    expect(answer.limit.basis).toContain('over its last 20 minutes of activity');
  });

  it('reads a single response over five minutes, not one instant', () => {
    const session = [dollar(NOW - 2 * MINUTE_MS)];
    const { answer } = statusOver(session, session, {
      rateLimits: limits('s', 10),
      accountRateLimits: limits('s', 10),
      promptCache: null,
    });
    // 10% per USD, $1 over 5 minutes: $12/h.
    expect(answer.limit.percentPerHour).toBeCloseTo(120, 5);
  });

  it('takes the account’s report when the session made none, and leaves unpriced models out of the spend', () => {
    const session = [dollar(NOW - 10 * MINUTE_MS), dollar(NOW - 5 * MINUTE_MS, 'claude-unknown-9')];
    const { answer } = statusOver(session, session, {
      rateLimits: null,
      accountRateLimits: limits('other', 20),
      promptCache: null,
    });
    expect(answer.limit.usedPercent).toBe(20);
    expect(answer.limit.basis).toContain('another session’s status line');
    // 20% for the window's $1 (the unknown model's response costs nothing known); $1 over 5 minutes: $12/h.
    expect(answer.limit.percentPerHour).toBeCloseTo(20 * 12, 5);
  });

  it('reads nothing of the book without a report', () => {
    const { answer, asked } = statusOver([], [], { rateLimits: null, accountRateLimits: null, promptCache: null });
    expect(asked.opened).toEqual([]);
    expect(answer.limit.usedPercent).toBeNull();
    expect(answer.autoCompact.sampleTurns).toBe(0);
    expect(answer.cacheRebuild).toMatchObject({ ttl: '5m', expiresAt: null, tokens: 50_000 });
  });
});
