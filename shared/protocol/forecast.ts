/**
 * `usage.status` (issue 31): where a session stands against its limits, and the forecasts no tool
 * joins today, each a figure with its basis. Figures Claude Code reported are `official`; what memd
 * computes from its own index (every forecast) is `estimated`. memctl status SESSION, the VS Code
 * and Neovim views and the MCP tool `usage_status` show this answer.
 */
import { PROVENANCES, type Provenance, type ReportedState, reportedStateSchema } from './reports.js';
import { bool, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

/** How many turns, and minutes, until Claude Code auto-compacts at this session's recent pace. */
export interface AutoCompactForecast {
  /** Context tokens now (the session's last main-agent response). */
  contextTokens: number;
  /** Where Claude Code compacts (sessions.get's `threshold.autoCompactAt`). */
  autoCompactAt: number;
  tokensLeft: number;
  /** Whole user turns until the context passes `autoCompactAt` (0: the next turn passes it); null when the pace is unknown or not growing. */
  turns: number | null;
  /** Minutes until then at the recent minutes per turn; null when unknown. */
  minutes: number | null;
  /** Mean context growth per turn over the sampled turns; null with fewer than two. */
  growthPerTurn: number | null;
  /** Mean minutes from one turn's prompt to the next over the sampled turns; null with fewer than two. */
  minutesPerTurn: number | null;
  /** Turns the pace was read from (the recent ones since the last compaction). */
  sampleTurns: number;
  /** False when auto-compaction is off: the figures are until blocking instead. */
  autoCompactEnabled: boolean;
  provenance: Provenance;
  /** One sentence on how the figure was reached, for the user and the agent. */
  basis: string;
}

/** When the 5-hour plan window runs out at this session's pace. */
export interface LimitForecast {
  /** Claude Code's latest `rate_limits.five_hour.used_percentage` (official), null when none was reported. */
  usedPercent: number | null;
  /** Epoch ms the window resets (official); null when unknown. */
  resetsAt: number | null;
  /** Percent of the window this session's recent spend uses per hour (estimated); null when unknown. */
  percentPerHour: number | null;
  /** Epoch ms the window reaches 100% at that pace; null when it would not before the reset or is unknown. */
  reachedAt: number | null;
  /** True when the reset comes before the limit at this pace. */
  resetFirst: boolean;
  provenance: Provenance;
  basis: string;
}

/** What letting the prompt cache expire costs: the context written to the cache again on the next turn. */
export interface CacheRebuildForecast {
  /** `5m` or `1h`: Claude Code's reported TTL, else the session's last cache writes'. */
  ttl: string;
  /** Epoch ms the cache expires (reported, else the last response plus the TTL); null when unknown. */
  expiresAt: number | null;
  /** Whose `expiresAt` it is. */
  expiresAtProvenance: Provenance;
  /** Tokens a rebuild writes (the context now). */
  tokens: number;
  /** USD the rebuild costs over a warm read: tokens × (cache-write price − cache-read price); null when the model has no price. */
  costUsd: number | null;
  provenance: Provenance;
  basis: string;
}

export interface UsageStatusResult {
  sessionId: string;
  model: string | null;
  /** Epoch ms the figures were computed at. */
  at: number;
  autoCompact: AutoCompactForecast;
  limit: LimitForecast;
  cacheRebuild: CacheRebuildForecast;
  /** What Claude Code's status line last reported (as sessions.get's `reported`). */
  reported: ReportedState;
}

const provenance = oneOf(...PROVENANCES);

export const usageStatusResultSchema: Schema<UsageStatusResult> = looseObject({
  sessionId: str({ minLength: 1 }),
  model: nullable(str()),
  at: num(),
  autoCompact: looseObject({
    contextTokens: num(),
    autoCompactAt: num(),
    tokensLeft: num(),
    turns: nullable(num()),
    minutes: nullable(num()),
    growthPerTurn: nullable(num()),
    minutesPerTurn: nullable(num()),
    sampleTurns: num(),
    autoCompactEnabled: bool(),
    provenance,
    basis: str(),
  }),
  limit: looseObject({
    usedPercent: nullable(num()),
    resetsAt: nullable(num()),
    percentPerHour: nullable(num()),
    reachedAt: nullable(num()),
    resetFirst: bool(),
    provenance,
    basis: str(),
  }),
  cacheRebuild: looseObject({
    ttl: str(),
    expiresAt: nullable(num()),
    expiresAtProvenance: provenance,
    tokens: num(),
    costUsd: nullable(num()),
    provenance,
    basis: str(),
  }),
  reported: reportedStateSchema,
});
