/**
 * A session's recent user turns, read from the tail of its main transcript's indexed entries, for
 * the auto-compact forecast (forecast.ts): when each turn's prompt was typed, and the context after
 * the turn's last main-agent response (input + cache writes + cache reads + output of that
 * response's final usage, as context-count.ts counts a response). Only turns since the last
 * compaction count: a compaction resets the context, so growth across it means nothing. Pure.
 */
import { contextOfUsage } from '../transcript/context-count.js';
import { isApiResponse, isFinalerThan } from '../transcript/response-usage.js';
import { timestampMs } from '../transcript/timestamp.js';
import type { IndexedEntry, Usage } from '../transcript/types.js';

export interface TurnSample {
  /** Epoch ms of the prompt; null when its timestamp was lost. */
  promptAt: number | null;
  /** Context after the turn's last main-agent response. */
  contextAfter: number;
  /** False for the last turn while it may still be running (its last response asked for tools and no prompt followed). */
  complete: boolean;
}

/** The main agent's last API response in the tail, for the cache forecast. */
export interface LastResponse {
  /** Epoch ms; null when its timestamp was lost. */
  at: number | null;
  model: string | null;
  usage: Usage;
}

export interface RecentTurns {
  /** Oldest first, at most the `maxTurns` asked for, each with at least one response. */
  turns: TurnSample[];
  /** Whether a compaction boundary lies in the tail (the turns are those after it). */
  compacted: boolean;
  lastResponse: LastResponse | null;
}

const isBoundary = (entry: IndexedEntry) => entry.type === 'system' && entry.subtype === 'compact_boundary';

/**
 * A prompt the user typed (or a slash command they ran) starts a turn; tool results, meta entries
 * (reminders, hook output) and the compaction's summary do not.
 */
export function isTurnStart(entry: IndexedEntry): boolean {
  if (entry.type !== 'user' || entry.isSidechain || entry.isMeta || entry.isCompactSummary) return false;
  if (entry.toolResults.length > 0) return false;
  return entry.title?.kind === 'prompt' || entry.title?.kind === 'command';
}

interface OpenTurn {
  promptAt: number | null;
  usage: Usage | null;
  responseKey: string | null;
  /** The turn's last main-thread message was a response that asked for no tool: the turn ended. */
  ended: boolean;
}

/**
 * The last `maxTurns` turns with a response in `tail` (entries of one main transcript, in file
 * order), after its last compaction boundary. The tail may begin in the middle of a turn: that
 * turn's prompt is not in it, so it is left out.
 */
export function recentTurns(tail: readonly IndexedEntry[], maxTurns: number, now: number): RecentTurns {
  const boundaryAt = tail.findLastIndex(isBoundary);
  let lastResponse: LastResponse | null = null;
  const turns: OpenTurn[] = [];
  let open: OpenTurn | null = null;
  for (let i = 0; i < tail.length; i++) {
    const entry = tail[i] as IndexedEntry;
    if (entry.isSidechain) continue;
    if (isApiResponse(entry)) {
      lastResponse = { at: timestampMs(entry.timestamp, now), model: entry.model, usage: entry.usage };
      if (open === null || i < boundaryAt) continue;
      const key = entry.messageId === null ? null : `${entry.messageId}\0${entry.requestId ?? ''}`;
      // A response split over several entries counts once, with its finalest usage.
      if (open.usage === null || key === null || key !== open.responseKey || isFinalerThan(entry.usage, open.usage))
        open.usage = entry.usage;
      open.responseKey = key;
      open.ended = entry.toolUses.length === 0;
      continue;
    }
    if (i <= boundaryAt) continue;
    if (isTurnStart(entry)) {
      open = { promptAt: timestampMs(entry.timestamp, now), usage: null, responseKey: null, ended: false };
      turns.push(open);
    } else if (open !== null && entry.type === 'user' && entry.toolResults.length > 0) {
      open.ended = false;
    }
  }
  const withResponse = turns.filter((turn) => turn.usage !== null);
  const samples = withResponse.slice(-maxTurns).map(
    (turn): TurnSample => ({
      promptAt: turn.promptAt,
      contextAfter: contextOfUsage(turn.usage as Usage),
      // Any turn a later prompt followed is over; the last one when its last response asked for no tool.
      complete: turn !== turns.at(-1) || turn.ended,
    }),
  );
  return { turns: samples, compacted: boundaryAt >= 0, lastResponse };
}
