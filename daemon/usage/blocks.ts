/**
 * 5-hour billing blocks, as ccusage 20.0.24's `blocks` view counts them (its figures are the
 * reference: test/integration/usage-views.test.ts runs it on the same files):
 * - responses in time order; a block starts at the UTC hour (floored) of its first response and
 *   lasts five hours; a response more than five hours after its block's start, or more than five
 *   hours after the block's last response, starts the next block;
 * - when the next block starts more than five hours after the last response, a gap block runs from
 *   five hours after that response to the next response;
 * - a block is active while now is within five hours of its last response and before its end;
 *   only the active block has a burn rate (its tokens and cost over the minutes from its first to
 *   its last response) and a projection (that pace until the block's end).
 * Pure: the service reads the book's counted responses with their instants and passes now.
 */
import type { UsageBlock, UsageFigures } from '../../shared/protocol/usage.js';

/** Claude's plan limits reset every five hours from the first message: ccusage's `--session-length` default. */
export const BLOCK_MS = 5 * 3_600_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** One counted response: its instant, and what figuresOf needs to price it. */
export interface TimedResponse {
  ms: number;
  model: string;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  cache5m: number;
  cache1h: number;
}

export interface Block {
  startMs: number;
  endMs: number;
  /** Oldest first; empty for a gap. */
  responses: TimedResponse[];
  gap: boolean;
}

/** The blocks of responses sorted oldest first (the book's query sorts them). */
export function blocksOf(responses: readonly TimedResponse[]): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  for (const response of responses) {
    const last = current?.responses.at(-1);
    if (current !== null && last !== undefined) {
      const sinceLast = response.ms - last.ms;
      if (response.ms - current.startMs <= BLOCK_MS && sinceLast <= BLOCK_MS) {
        current.responses.push(response);
        continue;
      }
      blocks.push(current);
      if (sinceLast > BLOCK_MS)
        blocks.push({ startMs: last.ms + BLOCK_MS, endMs: response.ms, responses: [], gap: true });
    }
    const startMs = Math.floor(response.ms / HOUR_MS) * HOUR_MS;
    current = { startMs, endMs: startMs + BLOCK_MS, responses: [response], gap: false };
  }
  if (current !== null) blocks.push(current);
  return blocks;
}

/** ccusage's id: the start instant, a gap's prefixed with `gap-`. */
export function blockKey(block: Block): string {
  const start = new Date(block.startMs).toISOString();
  return block.gap ? `gap-${start}` : start;
}

/** The block's times and, when active, its pace and projection (figures: the block's priced sums). */
export function blockInfo(block: Block, figures: UsageFigures, now: number): UsageBlock {
  const first = block.responses[0];
  const last = block.responses.at(-1);
  const active = !block.gap && last !== undefined && now - last.ms < BLOCK_MS && now < block.endMs;
  const minutes = first === undefined || last === undefined ? 0 : (last.ms - first.ms) / MINUTE_MS;
  const burnRate =
    active && minutes > 0
      ? {
          tokensPerMinute: figures.totalTokens / minutes,
          tokensPerMinuteForIndicator: (figures.input + figures.output) / minutes,
          costPerHour: (figures.costUsd / minutes) * 60,
        }
      : null;
  let projection: UsageBlock['projection'] = null;
  if (burnRate !== null) {
    const remainingMinutes = Math.max(0, (block.endMs - now) / MINUTE_MS);
    projection = {
      totalTokens: Math.round(figures.totalTokens + burnRate.tokensPerMinute * remainingMinutes),
      totalCost: Math.round((figures.costUsd + (burnRate.costPerHour / 60) * remainingMinutes) * 100) / 100,
      remainingMinutes: Math.round(remainingMinutes),
    };
  }
  return {
    start: new Date(block.startMs).toISOString(),
    end: new Date(block.endMs).toISOString(),
    lastResponse: last === undefined ? null : new Date(last.ms).toISOString(),
    gap: block.gap,
    active,
    burnRate,
    projection,
  };
}
