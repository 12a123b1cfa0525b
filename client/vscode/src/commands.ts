/**
 * What the extension's commands ask memd and what they make of the answer, without VS Code: a
 * session's details, its session memory, a compaction preview and a handoff. Every answer is
 * checked (validate.ts) before it is shown; every failure becomes a CommandError whose message
 * the user can act on.
 */

import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { SessionSummary } from '../../../shared/protocol/sessions.js';
import type { Client } from '../../index.js';
import {
  compactionDocument,
  handoffMessage,
  type MemdDocument,
  sessionDocument,
  summaryDocument,
} from './documents.js';
import { describeError } from './link.js';
import { parseCompaction, parseHandoff, parseMemorySummary, parseSession } from './validate.js';

/** A command that could not do its work; `message` says why, in words for the user. */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** Runs a call and turns its failure into a CommandError that says what was being done. */
async function asking<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new CommandError(`${what}: ${describeError(error)}`, error);
  }
}

export async function openSession(client: Client, sessionId: string, now: number): Promise<MemdDocument> {
  const session = parseSession(
    await asking(`memd could not read session ${sessionId}`, () => client.sessionsGet({ sessionId })),
  );
  return sessionDocument(session, now);
}

export async function showSummary(client: Client, sessionId: string, now: number): Promise<MemdDocument> {
  const summary = parseMemorySummary(
    await asking(`memd could not read the session memory of ${sessionId}`, () => client.memorySummary({ sessionId })),
  );
  return summaryDocument(summary, now);
}

export type CompactionPreview =
  | { kind: 'document'; document: MemdDocument }
  | { kind: 'below-threshold'; message: string };

/**
 * `compact.auto`, as `memctl compact` asks it. Below the auto-compact threshold memd declines
 * (Conflict, BelowThreshold) unless forced: the caller asks the user before forcing, since a
 * forced compaction that fails counts in the session's circuit breaker.
 */
export async function previewCompaction(client: Client, sessionId: string, force: boolean): Promise<CompactionPreview> {
  let answer: unknown;
  try {
    answer = await client.compactAuto(force ? { sessionId, force: true } : { sessionId });
  } catch (error) {
    if (!force && error instanceof RpcError && error.code === ErrorCode.Conflict && error.kind === 'BelowThreshold') {
      const { tokens, autoCompactAt, autoCompactMode } = error.data;
      const figures =
        typeof tokens === 'number' && typeof autoCompactAt === 'number'
          ? ` (${tokens.toLocaleString('en-US')} of ${autoCompactAt.toLocaleString('en-US')} tokens)`
          : '';
      // Reactive mode (an older memd sends no mode: threshold mode): autoCompactAt is the window.
      const below =
        autoCompactMode === 'reactive'
          ? `below its window${figures}: Claude Code compacts it only when the API refuses the request`
          : `below its auto-compact threshold${figures}: Claude Code would not compact it yet`;
      return {
        kind: 'below-threshold',
        message: `Session ${sessionId.slice(0, 8)} is ${below}. Preview a compaction anyway?`,
      };
    }
    throw new CommandError(`memd could not compact ${sessionId}: ${describeError(error)}`, error);
  }
  return { kind: 'document', document: compactionDocument(parseCompaction(answer)) };
}

export interface HandoffOutcome {
  /** The file written, to open in the editor. */
  path: string;
  message: string;
}

/**
 * `handoff.generate`: the file goes to the session's own cwd (where the next Claude Code turn
 * reads it), or to the workspace folder when memd does not know the session's cwd.
 */
export async function writeHandoff(
  client: Client,
  session: Pick<SessionSummary, 'sessionId' | 'cwd'>,
  folders: readonly string[],
): Promise<HandoffOutcome> {
  const cwd = session.cwd ?? folders[0];
  if (cwd === undefined)
    throw new CommandError(
      `memd does not know the directory of session ${session.sessionId}; open its folder to write the handoff there`,
    );
  const answer = await asking(`memd could not write a handoff for ${session.sessionId}`, () =>
    client.handoffGenerate({ sessionId: session.sessionId, cwd }),
  );
  const result = parseHandoff(answer);
  return { path: result.path, message: handoffMessage(result) };
}
