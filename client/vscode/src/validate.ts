/**
 * Checks on what memd sends before the extension reads it: the typed client casts the daemon's
 * answers and events, but they came over a socket, so each is parsed with its result schema
 * (shared/protocol/) and a value that fails is dropped with a reason naming the field instead of
 * breaking a view. Pure.
 */
import { type CompactionResult, compactionResultSchema } from '../../../shared/protocol/compaction.js';
import { type ThresholdCrossedEvent, thresholdCrossedEventSchema } from '../../../shared/protocol/events.js';
import { type UsageStatusResult, usageStatusResultSchema } from '../../../shared/protocol/forecast.js';
import { type HandoffResult, handoffResultSchema } from '../../../shared/protocol/handoff.js';
import { type MemorySummaryResult, memorySummaryResultSchema } from '../../../shared/protocol/memory.js';
import { answerFailure, InvalidAnswer, parseAnswer, parseEvent } from '../../../shared/protocol/schema.js';
import {
  type SessionList,
  type SessionSummary,
  sessionPageSchema,
  sessionSummarySchema,
} from '../../../shared/protocol/sessions.js';

export { InvalidAnswer };

/** A `sessions.get` answer. */
export function parseSession(value: unknown): SessionSummary {
  return parseAnswer(sessionSummarySchema, value, 'sessions.get');
}

/** A `session.updated` event's session. */
export function parseSessionUpdated(payload: unknown): SessionSummary {
  return parseEvent(sessionSummarySchema, payload, 'session.updated');
}

/** A page of sessions; a session that fails its check is left out and counted, not fatal to the page. */
export function parseSessionList(value: unknown): { list: SessionList; invalid: string[] } {
  const page = parseAnswer(sessionPageSchema, value, 'sessions.list');
  const sessions: SessionSummary[] = [];
  const invalid: string[] = [];
  const fail = answerFailure('answer to sessions.list');
  page.sessions.forEach((entry, index) => {
    try {
      sessions.push(sessionSummarySchema.parse(entry, `result.sessions[${index}]`, fail));
    } catch (error) {
      if (!(error instanceof InvalidAnswer)) throw error;
      invalid.push(error.message);
    }
  });
  return { list: { ...page, sessions }, invalid };
}

export function parseThresholdCrossed(value: unknown): ThresholdCrossedEvent {
  return parseEvent(thresholdCrossedEventSchema, value, 'session.thresholdCrossed');
}

/** A `usage.status` answer: the session's forecasts (issue 31). */
export function parseUsageStatus(value: unknown): UsageStatusResult {
  return parseAnswer(usageStatusResultSchema, value, 'usage.status');
}

export function parseMemorySummary(value: unknown): MemorySummaryResult {
  return parseAnswer(memorySummaryResultSchema, value, 'memory.summary');
}

export function parseHandoff(value: unknown): HandoffResult {
  return parseAnswer(handoffResultSchema, value, 'handoff.generate');
}

/** What memctl compact's rendering reads (client/memctl/commands/compact.ts): a `compact.auto` answer. */
export function parseCompaction(value: unknown): CompactionResult {
  return parseAnswer(compactionResultSchema, value, 'compact.auto');
}
