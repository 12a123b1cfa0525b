/**
 * Checks on what memd sends before the extension reads it: the typed client casts the daemon's
 * answers and events, but they came over a socket, so each field the extension uses is checked
 * here and a value that fails is dropped with a reason instead of breaking a view. Pure.
 */
import type { HandoffResult } from '../../../shared/protocol/handoff.js';
import type { ThresholdCrossedEvent } from '../../../shared/protocol/events.js';
import type { CompactionResult } from '../../../shared/protocol/compaction.js';
import type { MemorySummaryResult } from '../../../shared/protocol/memory.js';
import type { SessionList, SessionSummary, ThresholdResult, ThresholdState } from '../../../shared/protocol/sessions.js';
import { isRecord } from '../../../shared/values.js';

export const THRESHOLD_STATES: readonly ThresholdState[] = ['ok', 'warning', 'error', 'autocompact', 'blocking'];

/** Thrown when an answer of the daemon lacks what the extension needs; the message names the field. */
export class InvalidAnswer extends Error {
  override name = 'InvalidAnswer';
}

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isBoolean: Check = (value) => typeof value === 'boolean';
const orNull =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const isState: Check = (value) => THRESHOLD_STATES.includes(value as ThresholdState);
const isOptionalMode: Check = (value) => value === undefined || value === 'threshold' || value === 'reactive';
const isStringArray: Check = (value) => Array.isArray(value) && value.every(isString);

/** The first path (`threshold.percentUsed`) whose value fails its check, or null. */
function firstBad(value: unknown, fields: Record<string, Check>): string | null {
  for (const [path, check] of Object.entries(fields)) {
    let current: unknown = value;
    for (const key of path.split('.')) current = isRecord(current) ? current[key] : undefined;
    if (!check(current)) return path;
  }
  return null;
}

function checked<T>(value: unknown, fields: Record<string, Check>, what: string): T {
  const bad = firstBad(value, fields);
  if (bad !== null) throw new InvalidAnswer(`memd sent ${what} without a valid ${bad}`);
  return value as T;
}

const THRESHOLD_FIELDS: Record<string, Check> = {
  model: isString,
  tokens: isNumber,
  autoCompactAt: isNumber,
  state: isState,
  tokensLeft: isNumber,
  percentUsed: isNumber,
  autoCompactEnabled: isBoolean,
  // Absent from a memd before Claude Code 2.1.197's reactive mode: threshold mode.
  autoCompactMode: isOptionalMode,
};

function prefixed(prefix: string, fields: Record<string, Check>): Record<string, Check> {
  return Object.fromEntries(Object.entries(fields).map(([path, check]) => [`${prefix}.${path}`, check]));
}

/** What the views read of a session: the status line's facts and the labels. */
const SESSION_FIELDS: Record<string, Check> = {
  sessionId: (value) => typeof value === 'string' && value.length > 0,
  project: isString,
  cwd: orNull(isString),
  title: orNull(isString),
  model: orNull(isString),
  lastActivity: orNull(isString),
  contextTokens: isNumber,
  ...prefixed('threshold', THRESHOLD_FIELDS),
  'compactions.count': isNumber,
  'usage.total.costUsd': orNull(isNumber),
  'sessionMemory.extractedAt': orNull(isString),
};

const USAGE_FIELDS: Record<string, Check> = { input: isNumber, output: isNumber, cacheCreation: isNumber, cacheRead: isNumber, assistantMessages: isNumber, costUsd: orNull(isNumber) };

/** What the session's details add to the views' fields. */
const DETAIL_FIELDS: Record<string, Check> = {
  ...SESSION_FIELDS,
  gitBranch: orNull(isString),
  firstActivity: orNull(isString),
  gone: isBoolean,
  hasMainTranscript: isBoolean,
  ...prefixed('threshold', { window: isNumber, effectiveWindow: isNumber, warningAt: isNumber, errorAt: isNumber, blockingAt: isNumber }),
  ...prefixed('usage.main', USAGE_FIELDS),
  ...prefixed('usage.sidechain', USAGE_FIELDS),
  ...prefixed('usage.compaction', USAGE_FIELDS),
  ...prefixed('usage.total', USAGE_FIELDS),
  'compactions.lastTrigger': orNull(isString),
  'compactions.lastPreTokens': orNull(isNumber),
  'compactions.lastPostTokens': orNull(isNumber),
  'sessionMemory.lock': (lock) => lock === null || (isRecord(lock) && isString(lock.owner) && isNumber(lock.expiresAt)),
  'sessionMemory.spentUsd': isNumber,
  'sinceExtraction.toolCalls': isNumber,
  'sinceExtraction.tokenGrowth': isNumber,
  entries: isNumber,
  sidechainFiles: isNumber,
  compactionFiles: isNumber,
  badLines: isNumber,
};

export function parseThreshold(value: unknown): ThresholdResult {
  return checked<ThresholdResult>(value, THRESHOLD_FIELDS, 'a threshold');
}

export function parseSession(value: unknown): SessionSummary {
  return checked<SessionSummary>(value, SESSION_FIELDS, 'a session');
}

/** A session with every field its details view shows (`sessions.get`). */
export function parseSessionDetail(value: unknown): SessionSummary {
  return checked<SessionSummary>(value, DETAIL_FIELDS, 'a session');
}

/** A page of sessions; a session that fails its check is left out and counted, not fatal to the page. */
export function parseSessionList(value: unknown): { list: SessionList; invalid: string[] } {
  const page = checked<SessionList>(value, { sessions: Array.isArray, nextCursor: orNull(isString) }, 'a session list');
  const sessions: SessionSummary[] = [];
  const invalid: string[] = [];
  for (const entry of page.sessions as unknown[]) {
    try {
      sessions.push(parseSession(entry));
    } catch (error) {
      invalid.push((error as Error).message);
    }
  }
  return { list: { ...page, sessions }, invalid };
}

export function parseThresholdCrossed(value: unknown): ThresholdCrossedEvent {
  return checked<ThresholdCrossedEvent>(value, { sessionId: isString, from: isState, to: isState, contextTokens: isNumber, ...prefixed('threshold', THRESHOLD_FIELDS) }, 'a threshold crossing');
}

export function parseMemorySummary(value: unknown): MemorySummaryResult {
  return checked<MemorySummaryResult>(value, { sessionId: isString, path: isString, text: orNull(isString), extractedAt: orNull(isString), summarizer: orNull(isString) }, 'a session memory');
}

export function parseHandoff(value: unknown): HandoffResult {
  return checked<HandoffResult>(
    value,
    {
      sessionId: orNull(isString),
      path: isString,
      partial: isBoolean,
      summarizer: orNull(isString),
      pinned: isString,
      gitignoreUpdated: isBoolean,
      'facts.filesTouched': Array.isArray,
      'facts.commands': Array.isArray,
      'facts.failing': Array.isArray,
      'facts.git': (git) => git === null || (isRecord(git) && isStringArray(git.porcelain)),
    },
    'a handoff',
  );
}

/** What memctl compact's rendering reads (client/memctl/commands/compact.ts). */
export function parseCompaction(value: unknown): CompactionResult {
  return checked<CompactionResult>(
    value,
    {
      sessionId: isString,
      method: isString,
      messages: Array.isArray,
      preTokens: isNumber,
      postTokens: isNumber,
      keptFromUuid: orNull(isString),
      actions: (actions) => Array.isArray(actions) && actions.every((action) => isRecord(action) && isString(action.kind)),
      'lost.userMessages': isStringArray,
      'lost.filePaths': isStringArray,
      'lost.identifiers': isStringArray,
      'lost.errors': isStringArray,
      fallback: (fallback) => fallback === undefined || (isRecord(fallback) && isString(fallback.reason)),
    },
    'a compaction',
  );
}
