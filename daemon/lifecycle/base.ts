/**
 * What every part is built from: the process as bootstrap started it, with the clock, the two
 * buses, Claude Code's threshold overrides and the model access, made once here. main.ts spreads
 * it into each part's builder, which takes what it needs.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { ThresholdEnv } from '../../shared/transcript/thresholds.js';
import { type Bus, createBus } from '../bus/bus.js';
import { createDomainBus, type DomainBus } from '../bus/domain-events.js';
import { type ModelAccess, modelAccess } from '../llm/backends.js';
import type { Started } from './bootstrap.js';

export interface Base<P> extends Started<P> {
  config: MemdConfig;
  /** The store's handle, which follows the connection across a reopen. */
  db: Database.Database;
  startedAt: Date;
  clock: () => number;
  /** Claude Code's own overrides (CLAUDE_CODE_AUTO_COMPACT_WINDOW, DISABLE_AUTO_COMPACT, ...) as the daemon sees them. */
  thresholdEnv: ThresholdEnv;
  /** The wire bus: the protocol's events, forwarded to subscribed connections. */
  bus: Bus;
  /** The domain bus: what one part tells the parts built after it. */
  events: DomainBus;
  /** Null: offline (every summarizer is the offline one). */
  access: ModelAccess | null;
}

export function createBase<P>(started: Started<P>): Base<P> {
  const { log, store } = started;
  const { config } = started.resolved;
  return {
    ...started,
    config,
    db: store.db,
    startedAt: new Date(),
    clock: () => Date.now(),
    thresholdEnv: { ...process.env },
    bus: createBus((error, topic) => log.error('event listener failed', { topic, error })),
    events: createDomainBus((error, topic) => log.error('internal event listener failed', { topic, error })),
    access: modelAccess(config, process.env, log),
  };
}
