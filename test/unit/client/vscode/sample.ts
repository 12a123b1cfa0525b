/** Sessions for the unit tests, shaped as `sessions.get` answers (docs/protocol.md's coding-loop example). */
import type { SessionSummary, ThresholdResult, ThresholdState, UsageTotals } from '../../../../client/index.js';
import { computeThresholds } from '../../../../shared/transcript/thresholds.js';

const usage = (costUsd: number | null): UsageTotals => ({
  input: 79,
  output: 1897,
  cacheCreation: 21150,
  cacheRead: 269555,
  cache5m: 4670,
  cache1h: 16480,
  assistantMessages: 15,
  costUsd,
});
const none = (): UsageTotals => ({
  input: 0,
  output: 0,
  cacheCreation: 0,
  cacheRead: 0,
  cache5m: 0,
  cache1h: 0,
  assistantMessages: 0,
  costUsd: 0,
});

/**
 * The thresholds of a 200K window at `tokens` in threshold mode, as memd computes them for a
 * claude-opus-4-8 session stated at 200K with CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000.
 */
export function threshold(tokens: number, state: ThresholdState = 'ok'): ThresholdResult {
  const autoCompactAt = 167_000;
  return {
    model: 'claude-opus-4-8',
    tokens,
    window: 200_000,
    effectiveWindow: 180_000,
    autoCompactAt,
    warningAt: 147_000,
    errorAt: 147_000,
    blockingAt: 177_000,
    state,
    tokensLeft: Math.max(0, autoCompactAt - tokens),
    percentUsed: Math.round((tokens / autoCompactAt) * 100),
    autoCompactEnabled: true,
    autoCompactMode: 'threshold',
  };
}

/** Claude Code 2.1.197's default: claude-opus-4-8 at 1M, compacting only once the API refuses (reactive mode). */
export function reactiveThreshold(tokens: number): ThresholdResult {
  return computeThresholds({ model: 'claude-opus-4-8', tokens, env: {} });
}

export function sampleSession(overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    sessionId: '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5',
    project: '-home-user-src-invoice-service',
    cwd: '/home/user/src/invoice-service',
    gitBranch: 'main',
    title: null,
    model: 'claude-opus-4-8',
    firstActivity: '2026-12-02T10:26:02.897Z',
    lastActivity: '2026-12-02T10:26:06.033Z',
    gone: false,
    hasMainTranscript: true,
    contextTokens: 21311,
    threshold: threshold(21311),
    usage: { main: usage(0.376585), sidechain: none(), compaction: none(), total: usage(0.376585) },
    compactions: { count: 0, lastTrigger: null, lastPreTokens: null, lastPostTokens: null },
    sinceExtraction: { toolCalls: 15, tokenGrowth: 21311 },
    entries: 49,
    sidechainFiles: 0,
    compactionFiles: 0,
    badLines: 0,
    badTimestamps: 0,
    sessionMemory: {
      extractedAt: null,
      lock: null,
      spentUsd: 0,
      spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      writer: null,
    },
    archived: false,
    ...overrides,
  };
}

/** A session of another id, activity and context. */
export function otherSession(
  id: string,
  lastActivity: string,
  tokens = 50_000,
  state: ThresholdState = 'ok',
): SessionSummary {
  return sampleSession({
    sessionId: id,
    lastActivity,
    contextTokens: tokens,
    threshold: threshold(tokens, state),
    title: `session ${id}`,
  });
}
