import { type Survival, survivalSchema } from './compaction.js';
import { looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';
import {
  type SessionSummary,
  THRESHOLD_STATES,
  type ThresholdResult,
  type ThresholdState,
  thresholdResultSchema,
} from './sessions.js';

/** Notification topics (`domain.pastTense`, DESIGN.md §3) and their payloads. */

export const EVENT_TOPICS = [
  'session.updated',
  'session.thresholdCrossed',
  'memory.extracted',
  'compaction.ready',
  'ingest.failed',
  // Not in DESIGN.md's list: sent before a graceful shutdown so that clients reconnect instead of failing.
  'daemon.stopping',
] as const;

export type EventTopic = (typeof EVENT_TOPICS)[number];

export interface DaemonStoppingEvent {
  reason: string;
}

/** Why a transcript line was skipped. */
export type BadLineReason = 'invalid-utf8' | 'invalid-json' | 'not-an-object' | 'too-long';
/**
 * Why a line was indexed without one of its values (issue 27): its timestamp was a bad value
 * (shared/transcript/timestamp.ts). Carried with the bad lines through a commit but only counted
 * (badTimestamps): no bad_lines row, no ingest.failed event, since the line was kept.
 */
export type BadValueReason = 'bad-timestamp';

/** One skipped transcript line, sent once, after the line is recorded as bad. */
export interface IngestFailedEvent {
  path: string;
  sessionId: string;
  /** Byte offset and length (without the newline) of the line in its file. */
  offset: number;
  length: number;
  reason: BadLineReason;
}

/** A session's state changed (at most one per session per 250 ms). */
export type SessionUpdatedEvent = SessionSummary;

export interface ThresholdCrossedEvent {
  sessionId: string;
  from: ThresholdState;
  to: ThresholdState;
  contextTokens: number;
  threshold: ThresholdResult;
}

export const thresholdCrossedEventSchema: Schema<ThresholdCrossedEvent> = looseObject({
  sessionId: str(),
  from: oneOf(...THRESHOLD_STATES),
  to: oneOf(...THRESHOLD_STATES),
  contextTokens: num(),
  threshold: thresholdResultSchema,
});

/** An auto-compaction result is ready (compact.auto returns it in full); lost items are counted. */
export interface CompactionReadyEvent {
  sessionId: string;
  method: string;
  preTokens: number;
  postTokens: number;
  keptFromUuid: string | null;
  lost: { userMessages: number; filePaths: number; identifiers: number; errors: number };
  /**
   * Which of the session's facts the compaction kept (issue 32, docs/survival.md): the counts, and
   * the lost items only (named, capped as in the result). Absent from a memd before it.
   */
  survival?: Survival;
}

/** What a client reads of `compaction.ready` (the memd of issue 32 adds `survival`). */
export const compactionReadyEventSchema: Schema<CompactionReadyEvent> = looseObject({
  sessionId: str(),
  method: str(),
  preTokens: num(),
  postTokens: num(),
  keptFromUuid: nullable(str()),
  lost: looseObject({ userMessages: num(), filePaths: num(), identifiers: num(), errors: num() }),
  survival: optional(survivalSchema),
});

/** Payload types; topics whose feature lands later carry a plain record until then. */
export interface EventPayloads {
  'session.updated': SessionUpdatedEvent;
  'session.thresholdCrossed': ThresholdCrossedEvent;
  'memory.extracted': Record<string, unknown>;
  'compaction.ready': CompactionReadyEvent;
  'ingest.failed': IngestFailedEvent;
  'daemon.stopping': DaemonStoppingEvent;
}
