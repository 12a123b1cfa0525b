/**
 * What memd recalls for Claude Code's hooks (issue 33): `memctl hook turn-start` (UserPromptSubmit)
 * asks `recall.forPrompt` in its one exchange, and `memctl hook tool-failed` (PostToolUseFailure)
 * asks `recall.forFailure`. The daemon does the work within its deadline; the hook prints the
 * context as `hookSpecificOutput.additionalContext`, or nothing (no daemon, a late one, nothing
 * good to say), and exits 0 with nothing on stderr.
 */
import { RECALL_DAEMON_DEADLINE_MS, RECALL_HOOK_DEADLINE_MS } from '../../../shared/protocol/recall-hook.js';
import { type QuickAnswer, type QuickRequest, quickCall, quickCalls, socketPathOf } from './call.js';
import { object, readJsonObject, text } from './stdin.js';

/** MEMD_RECALL_DEADLINE_MS may give the daemon longer (a slow machine, tests); at most what the daemon takes. */
const MAX_DEADLINE_MS = 5_000;

/** The daemon's deadline and the hook's whole wait: the defaults, or MEMD_RECALL_DEADLINE_MS and the same margin. */
export function recallDeadlines(env: NodeJS.ProcessEnv): { daemonMs: number; hookMs: number } {
  const value = Number(env.MEMD_RECALL_DEADLINE_MS);
  const daemonMs =
    Number.isSafeInteger(value) && value > 0 ? Math.min(value, MAX_DEADLINE_MS) : RECALL_DAEMON_DEADLINE_MS;
  return { daemonMs, hookMs: daemonMs + (RECALL_HOOK_DEADLINE_MS - RECALL_DAEMON_DEADLINE_MS) };
}

/** A hook's stdin is written at once; a failed call must not wait on a writer that keeps it open. */
const FAILURE_STDIN_DEADLINE_MS = 200;
/** Far more than an error's key line needs; the daemon takes at most 100,000 characters. */
const MAX_ERROR_CHARS = 20_000;
/** The prompt as sent: the daemon weighs its words, and a pasted file says no more past its start. */
const MAX_PROMPT_CHARS = 20_000;
/** The command of a failed Bash call, as sent: enough to know the run again. */
const MAX_COMMAND_CHARS = 2_000;
/** memd's own MCP tools: their failures are memd's traffic, never looked up. */
const MEMD_TOOL_PREFIX = 'mcp__memd__';

/** The context in a recall answer, or null (an error, an older memd, nothing to say, a malformed answer). */
export function contextOf(answer: QuickAnswer | null): string | null {
  if (answer?.ok !== true) return null;
  const { result } = answer;
  if (typeof result !== 'object' || result === null) return null;
  const context = (result as Record<string, unknown>).additionalContext;
  return typeof context === 'string' && context !== '' ? context : null;
}

/** What Claude Code 2.1.197 takes from these hooks' stdout: `hookSpecificOutput` with its event's name. */
export function printContext(hookEventName: string, additionalContext: string): void {
  process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext } })}\n`);
}

/** `recall.forPrompt`'s params from UserPromptSubmit's stdin; null without a prompt. */
export function promptRecallParams(input: Record<string, unknown> | null): Record<string, unknown> | null {
  const sessionId = text(input, 'session_id');
  const prompt = text(input, 'prompt');
  if (sessionId === null || prompt === null) return null;
  const cwd = text(input, 'cwd');
  return {
    sessionId,
    prompt: prompt.slice(0, MAX_PROMPT_CHARS),
    ...(cwd === null ? {} : { cwd }),
    deadlineMs: recallDeadlines(process.env).daemonMs,
  };
}

/**
 * The turn's start: `lock` (memory.lock) and `recall.forPrompt` in one exchange, the lock first.
 * The recall is asked once the lock is answered (the daemon serves them in order: the turn holds its
 * lock when the prompt goes on, as before recall) and waited for RECALL_HOOK_DEADLINE_MS at most,
 * the lock `lockDeadlineMs`; a daemon that does not answer the lock in time is not asked the recall.
 * An older memd answers MethodNotFound to the recall and takes the lock all the same.
 */
export async function startTurnWithRecall(
  socket: string,
  lock: QuickRequest,
  lockDeadlineMs: number,
  recall: Record<string, unknown>,
): Promise<void> {
  const { hookMs } = recallDeadlines(process.env);
  const [, answer] = await quickCalls(
    socket,
    [
      // MEMD_RECALL_DEADLINE_MS (a slow machine) lengthens the lock's wait too: the recall is asked after it.
      { ...lock, deadlineMs: Math.max(lockDeadlineMs, hookMs) },
      { method: 'recall.forPrompt', params: recall, deadlineMs: hookMs },
    ],
    Math.max(lockDeadlineMs, hookMs),
  );
  const context = contextOf(answer ?? null);
  if (context !== null) printContext('UserPromptSubmit', context);
}

/** The error a failed call reports: PostToolUseFailure's `error`, or an erring PostToolUse's response. */
function errorOf(input: Record<string, unknown> | null): string | null {
  const error = text(input, 'error');
  if (error !== null) return error;
  const response = object(input, 'tool_response');
  if (response === null || (response.is_error !== true && response.isError !== true)) return null;
  const content = response.content ?? response.error ?? response.stderr;
  return typeof content === 'string' && content !== '' ? content : JSON.stringify(content ?? null);
}

/** `recall.forFailure`'s params from the hook's stdin; null for a call that did not fail, an interrupt or memd's own tool. */
export function failureRecallParams(input: Record<string, unknown> | null): Record<string, unknown> | null {
  const sessionId = text(input, 'session_id');
  const toolName = text(input, 'tool_name');
  if (sessionId === null || toolName === null || toolName.startsWith(MEMD_TOOL_PREFIX)) return null;
  // The user pressed Esc: nothing failed.
  if (input?.is_interrupt === true) return null;
  const error = errorOf(input);
  if (error === null || error === 'null') return null;
  const command = text(object(input, 'tool_input'), 'command');
  const cwd = text(input, 'cwd');
  return {
    sessionId,
    toolName,
    error: error.slice(0, MAX_ERROR_CHARS),
    ...(command === null ? {} : { command: command.slice(0, MAX_COMMAND_CHARS) }),
    ...(cwd === null ? {} : { cwd }),
    deadlineMs: recallDeadlines(process.env).daemonMs,
  };
}

/** `memctl hook tool-failed`: Claude Code's PostToolUseFailure hook. */
export async function runFailureHook(): Promise<void> {
  process.on('uncaughtException', () => process.exit(0));
  process.on('unhandledRejection', () => process.exit(0));
  try {
    const params = failureRecallParams(await readJsonObject(FAILURE_STDIN_DEADLINE_MS));
    if (params === null) return;
    const answer = await quickCall(
      await socketPathOf(process.env),
      'recall.forFailure',
      params,
      recallDeadlines(process.env).hookMs,
    );
    const context = contextOf(answer);
    if (context !== null) printContext('PostToolUseFailure', context);
  } catch {
    // Fail open: the session goes on whatever happened here.
  } finally {
    process.exitCode = 0;
  }
}
