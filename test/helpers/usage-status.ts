/** `usage.status` answers for the clients' tests (shared/protocol/forecast.ts), each part overridable. */
import type {
  AutoCompactForecast,
  CacheRebuildForecast,
  LimitForecast,
  UsageStatusResult,
} from '../../shared/protocol/forecast.js';

/** The tests' clock. */
export const FORECAST_NOW = Date.parse('2026-12-05T11:00:00.000Z');

export interface UsageStatusParts {
  autoCompact?: Partial<AutoCompactForecast> | undefined;
  limit?: Partial<LimitForecast> | undefined;
  cacheRebuild?: Partial<CacheRebuildForecast> | undefined;
}

export function usageStatus(
  parts: UsageStatusParts = {},
  sessionId = '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5',
): UsageStatusResult {
  return {
    sessionId,
    model: 'claude-opus-4-8',
    at: FORECAST_NOW,
    autoCompact: {
      contextTokens: 120_000,
      autoCompactAt: 167_000,
      tokensLeft: 47_000,
      turns: 4,
      minutes: 12.4,
      growthPerTurn: 11_500,
      minutesPerTurn: 3.1,
      sampleTurns: 6,
      autoCompactEnabled: true,
      provenance: 'estimated',
      basis: 'The context grew 11.5K tokens a turn over the last 6 turns, one turn every 3.1 minutes.',
      ...parts.autoCompact,
    },
    limit: {
      usedPercent: 42,
      resetsAt: FORECAST_NOW + 6_720_000,
      percentPerHour: 40,
      reachedAt: FORECAST_NOW + 5_220_000,
      resetFirst: false,
      provenance: 'estimated',
      basis: 'Claude Code reported 42% used; this session spent 40% of the window an hour over its last hour.',
      ...parts.limit,
    },
    cacheRebuild: {
      ttl: '5m',
      expiresAt: FORECAST_NOW + 240_000,
      expiresAtProvenance: 'official',
      tokens: 131_000,
      costUsd: 0.4257,
      provenance: 'estimated',
      basis: '131,000 context tokens at the cache-write price ($3.75/M) minus the read price ($0.30/M).',
      ...parts.cacheRebuild,
    },
    reported: { rateLimits: null, accountRateLimits: null, promptCache: null },
  };
}
