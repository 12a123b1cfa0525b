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

/** A model's summed counts in one block (or in any group of a report: report.ts). */
export type BlockCounts = Omit<TimedResponse, 'ms' | 'model'> & { responses: number };

export const ZERO_COUNTS: Readonly<BlockCounts> = {
  input: 0,
  output: 0,
  cacheCreation: 0,
  cacheRead: 0,
  cache5m: 0,
  cache1h: 0,
  responses: 0,
};

export interface Block {
  startMs: number;
  endMs: number;
  /** The instants of its first and last responses; null for a gap. */
  firstMs: number | null;
  lastMs: number | null;
  /** Model → its summed counts: a block keeps sums, not its responses, so a year of them is a few thousand rows. */
  models: Map<string, BlockCounts>;
  gap: boolean;
}

/**
 * Folds responses, oldest first, into blocks as they come (the service reads them a page at a
 * time): what it holds is the blocks' sums, whatever the number of responses.
 */
export interface BlockFold {
  add(response: TimedResponse): void;
  /** The blocks so far, the open one last. */
  blocks(): Block[];
}

export function createBlockFold(): BlockFold {
  const done: Block[] = [];
  let current: Block | null = null;
  const open = (response: TimedResponse): Block => {
    const startMs = Math.floor(response.ms / HOUR_MS) * HOUR_MS;
    return {
      startMs,
      endMs: startMs + BLOCK_MS,
      firstMs: response.ms,
      lastMs: response.ms,
      models: new Map(),
      gap: false,
    };
  };
  return {
    add(response) {
      const last = current?.lastMs ?? null;
      if (current === null || last === null) current = open(response);
      else if (response.ms - current.startMs > BLOCK_MS || response.ms - last > BLOCK_MS) {
        done.push(current);
        if (response.ms - last > BLOCK_MS)
          done.push({
            startMs: last + BLOCK_MS,
            endMs: response.ms,
            firstMs: null,
            lastMs: null,
            models: new Map(),
            gap: true,
          });
        current = open(response);
      }
      current.lastMs = response.ms;
      const counts = current.models.get(response.model) ?? { ...ZERO_COUNTS };
      counts.input += response.input;
      counts.output += response.output;
      counts.cacheCreation += response.cacheCreation;
      counts.cacheRead += response.cacheRead;
      counts.cache5m += response.cache5m;
      counts.cache1h += response.cache1h;
      counts.responses += 1;
      current.models.set(response.model, counts);
    },
    blocks: () => (current === null ? [...done] : [...done, current]),
  };
}

/** The blocks of responses sorted oldest first. */
export function blocksOf(responses: readonly TimedResponse[]): Block[] {
  const fold = createBlockFold();
  for (const response of responses) fold.add(response);
  return fold.blocks();
}

/** Quarter-hour slots in five hours: slots this many apart with none between hold responses over five hours apart. */
const BLOCK_SLOTS = BLOCK_MS / (15 * 60_000);

/**
 * Where to start folding so that the blocks from `fromSlot` on are cut as a fold from the first
 * response ever would cut them: a block's start depends on every block before it back to the
 * last pause of over five hours, so the fold starts at the latest such pause before `fromSlot`.
 * `busySlots`: the slots in [lookbackFrom, fromSlot) that hold responses, ascending. A response
 * in a slot with BLOCK_SLOTS empty slots before it follows the one before by over five hours.
 * With no pause in the lookback (five busy hours never apart for its whole span), the fold starts
 * at its start: blocks cut as if nothing came before it.
 */
export function foldStartSlot(busySlots: readonly number[], fromSlot: number, lookbackFrom: number): number {
  if (busySlots.length === 0) return fromSlot;
  for (let at = busySlots.length - 1; at >= 0; at--) {
    const slot = busySlots[at] as number;
    const before = at === 0 ? lookbackFrom - 1 : (busySlots[at - 1] as number);
    if (slot - before - 1 >= BLOCK_SLOTS) return slot;
  }
  return lookbackFrom;
}

/** ccusage's id: the start instant, a gap's prefixed with `gap-`. */
export function blockKey(block: Block): string {
  const start = new Date(block.startMs).toISOString();
  return block.gap ? `gap-${start}` : start;
}

/** The block's times and, when active, its pace and projection (figures: the block's priced sums). */
export function blockInfo(block: Block, figures: UsageFigures, now: number): UsageBlock {
  const { firstMs, lastMs } = block;
  const active = !block.gap && lastMs !== null && now - lastMs < BLOCK_MS && now < block.endMs;
  const minutes = firstMs === null || lastMs === null ? 0 : (lastMs - firstMs) / MINUTE_MS;
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
    lastResponse: lastMs === null ? null : new Date(lastMs).toISOString(),
    gap: block.gap,
    active,
    burnRate,
    projection,
  };
}
