/**
 * `memctl hook turn-start|turn-end|turn-failed|instructions-loaded`: Claude Code's UserPromptSubmit,
 * Stop / SessionEnd, StopFailure and InstructionsLoaded hooks.
 * The main agent's turn holds the session-memory lock (DESIGN.md §6), so extraction never writes
 * while the agent works and runs at the break after it. The hold lasts while the transcript grows
 * (`whileActive`): a turn that crashed without its Stop is let go TURN_TTL_MS after its last line.
 *
 * These run on every prompt: they never start a daemon, never wait more than TURN_DEADLINE_MS for
 * one and exit 0. They print nothing but turn-start's recall (issue 33, quick/recall.ts): what memd
 * recalled for the prompt, as UserPromptSubmit's `additionalContext` (its stdout goes into the model's
 * context), asked in the same exchange as the lock within RECALL_HOOK_DEADLINE_MS.
 */
import { quickCall, socketPathOf } from './call.js';
import { promptRecallParams, startTurnWithRecall } from './recall.js';
import { readJsonObject, text } from './stdin.js';

/** Who holds the lock during a turn, as memctl status shows it. */
export const TURN_OWNER = 'claude-code-turn';
/** A turn's hold lapses this long after the session's last transcript line; the daemon caps TTLs at 10 minutes. */
export const TURN_TTL_MS = 5 * 60_000;
/** The most a prompt waits for memd: a hung daemon must not hold up the user's prompt. */
export const TURN_DEADLINE_MS = 100;
/** stdin is written at once; a prompt must not wait on a writer that keeps it open. */
const TURN_STDIN_DEADLINE_MS = 200;

function ttlFrom(env: NodeJS.ProcessEnv): number {
  const value = Number(env.MEMD_TURN_TTL_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : TURN_TTL_MS;
}

export const TURN_HOOK_NAMES = ['turn-start', 'turn-end', 'turn-failed', 'instructions-loaded'] as const;
export type TurnHookName = (typeof TURN_HOOK_NAMES)[number];

export function isTurnHookName(name: string | undefined): name is TurnHookName {
  return (TURN_HOOK_NAMES as readonly (string | undefined)[]).includes(name);
}

/** handoff.turnFailed's bounds on what Claude Code says of the error: longer is cut, not refused. */
const MAX_ERROR_CHARS = 200;
const MAX_DETAILS_CHARS = 4_000;

/** The call each hook makes, from its stdin object; null when the object lacks what it needs. */
function callOf(which: TurnHookName, input: Record<string, unknown> | null): [string, Record<string, unknown>] | null {
  const sessionId = text(input, 'session_id');
  if (sessionId === null) return null;
  const transcriptPath = text(input, 'transcript_path');
  const where = transcriptPath === null ? {} : { transcriptPath };
  const turn = { sessionId, owner: TURN_OWNER, ...where };
  switch (which) {
    case 'turn-start':
      return ['memory.lock', { ...turn, ttlMs: ttlFrom(process.env), whileActive: true }];
    case 'turn-end':
      return ['memory.unlock', turn];
    case 'turn-failed': {
      // StopFailure (Claude Code 2.1.78+): `error` is its kind (rate_limit, invalid_request…), `error_details` the text.
      const error = (text(input, 'error') ?? 'unknown').slice(0, MAX_ERROR_CHARS);
      const details = text(input, 'error_details')?.slice(0, MAX_DETAILS_CHARS);
      return ['handoff.turnFailed', { ...turn, error, ...(details === undefined ? {} : { details }) }];
    }
    case 'instructions-loaded': {
      // InstructionsLoaded (2.1.69+): one file, its memory_type (User, Project…) and load_reason (session_start, compact…).
      const filePath = text(input, 'file_path');
      if (filePath === null) return null;
      const memoryType = text(input, 'memory_type') ?? 'unknown';
      const loadReason = text(input, 'load_reason') ?? 'unknown';
      return ['handoff.instructionsLoaded', { sessionId, filePath, memoryType, loadReason }];
    }
  }
}

export async function runTurnHook(which: TurnHookName): Promise<void> {
  process.on('uncaughtException', () => process.exit(0));
  process.on('unhandledRejection', () => process.exit(0));
  try {
    const input = await readJsonObject(TURN_STDIN_DEADLINE_MS);
    const call = callOf(which, input);
    if (call === null) return;
    const socket = await socketPathOf(process.env);
    const recall = which === 'turn-start' ? promptRecallParams(input) : null;
    if (recall !== null)
      return await startTurnWithRecall(socket, { method: call[0], params: call[1] }, TURN_DEADLINE_MS, recall);
    const answer = await quickCall(socket, call[0], call[1], TURN_DEADLINE_MS);
    // A memd older than handoff.turnFailed still lets the turn's lock go.
    if (which === 'turn-failed' && answer?.ok === false && answer.kind === 'MethodNotFound') {
      const { error: _error, details: _details, ...turn } = call[1];
      await quickCall(socket, 'memory.unlock', turn, TURN_DEADLINE_MS);
    }
  } catch {
    // Fail open: the prompt goes on whatever happened here.
  } finally {
    process.exitCode = 0;
  }
}
