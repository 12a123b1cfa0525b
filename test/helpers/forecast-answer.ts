/** usage.status answers written for the tests of its views (memctl status SESSION, the MCP tool usage_status). */
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';

export const NOW = Date.parse('2026-12-05T13:08:00Z');
export const SESSION = '5f0c2a61-7d3e-4b8a-9c1f-2e6d4a8b0c13';
export const at = (iso: string) => Date.parse(iso);

/** An answer of usage.status as the protocol describes it: a session 22K tokens from auto-compact, near its 5h limit. */
export function answer(overrides: Partial<UsageStatusResult> = {}): UsageStatusResult {
  return {
    sessionId: SESSION,
    model: 'claude-sonnet-4-5-20250929',
    at: NOW,
    autoCompact: {
      contextTokens: 145_000,
      autoCompactAt: 167_000,
      tokensLeft: 22_000,
      turns: 3,
      minutes: 13.5,
      growthPerTurn: 6_800,
      minutesPerTurn: 4.5,
      sampleTurns: 6,
      autoCompactEnabled: true,
      provenance: 'estimated',
      basis: 'The context grew 6.8K tokens a turn over the last 6 turns since the compaction.',
    },
    limit: {
      usedPercent: 42,
      resetsAt: at('2026-12-05T15:00:00Z'),
      percentPerHour: 40,
      reachedAt: at('2026-12-05T14:35:00Z'),
      resetFirst: false,
      provenance: 'estimated',
      basis: "Claude Code reported 42% used; this session's last hour of spend is 40% of the window.",
    },
    cacheRebuild: {
      ttl: '5m',
      expiresAt: at('2026-12-05T13:12:00Z'),
      expiresAtProvenance: 'official',
      tokens: 145_000,
      costUsd: 0.5,
      provenance: 'estimated',
      basis: '145K tokens at the cache-write price minus the cache-read price of claude-sonnet-4-5.',
    },
    reported: { rateLimits: null, accountRateLimits: null, promptCache: null },
    ...overrides,
  };
}
