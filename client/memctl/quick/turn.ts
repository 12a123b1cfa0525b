/**
 * `memctl hook turn-start|turn-end`: Claude Code's UserPromptSubmit and Stop / SessionEnd hooks.
 * The main agent's turn holds the session-memory lock (DESIGN.md §6), so extraction never writes
 * while the agent works and runs at the break after it. The hold lasts while the transcript grows
 * (`whileActive`): a turn that crashed without its Stop is let go TURN_TTL_MS after its last line.
 *
 * These run on every prompt: they never start a daemon, never wait more than TURN_DEADLINE_MS for
 * one, print nothing (UserPromptSubmit's stdout would go into the model's context) and exit 0.
 */
import { quickCall, socketPathOf } from './call.js';
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

export async function runTurnHook(which: 'turn-start' | 'turn-end'): Promise<void> {
  process.on('uncaughtException', () => process.exit(0));
  process.on('unhandledRejection', () => process.exit(0));
  try {
    const input = await readJsonObject(TURN_STDIN_DEADLINE_MS);
    const sessionId = text(input, 'session_id');
    if (sessionId === null) return;
    const transcriptPath = text(input, 'transcript_path');
    const where = transcriptPath === null ? {} : { transcriptPath };
    const params =
      which === 'turn-start'
        ? { sessionId, owner: TURN_OWNER, ttlMs: ttlFrom(process.env), whileActive: true, ...where }
        : { sessionId, owner: TURN_OWNER, ...where };
    await quickCall(
      socketPathOf(process.env),
      which === 'turn-start' ? 'memory.lock' : 'memory.unlock',
      params,
      TURN_DEADLINE_MS,
    );
  } catch {
    // Fail open: the prompt goes on whatever happened here.
  } finally {
    process.exitCode = 0;
  }
}
