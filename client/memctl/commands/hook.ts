/**
 * `memctl hook pre-compact|session-start|post-compact` (and turn-start|turn-end, see quick/turn.ts): the commands Claude Code runs as hooks
 * (configured by `memctl install-hooks`). Each reads the hook's JSON on stdin, asks the daemon
 * (pre-compact and post-compact start it and wait; session-start starts it in the background and
 * does not), prints what Claude Code takes from stdout, and always exits 0 within its deadline,
 * whatever fails: a hook that errors or hangs would get in the way of the user.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { handoffContextBlock, SESSION_START_MAX_CHARS } from '../../../shared/handoff/context.js';
import { HANDOFF_RELATIVE_PATH } from '../../../shared/handoff/gitignore.js';
import { renderPartialHandoff } from '../../../shared/handoff/render.js';
import { HANDOFF_TAIL_BYTES, transcriptTailText } from '../../../shared/handoff/tail.js';
import { HANDOFF_FILE } from '../../../shared/paths.js';
import { redactSecrets } from '../../../shared/text/redact.js';
import { type Command, type CommandContext, UsageError } from '../context.js';
import { type StartOutcome, startUnlessRunning } from '../daemon-start.js';
import { judgeHandoffFile, recordHandoff } from '../handoff-binding.js';
import { PRIVATE_FILE_MODE, pinnedFromTranscript, writeHandoffFile } from '../handoff-file.js';
import { hookNotes } from '../hook-log.js';
import { HOOK_STDIN_DEADLINE_MS, sessionStartSources } from '../quick/session-start.js';
import { object, readJsonObject, text } from '../quick/stdin.js';
import { readTextInWorkTree, writeInWorkTree } from '../work-tree.js';

/** Claude Code's PreCompact hook gets 60 s (install-hooks); memd answers within this, or falls back. */
const PRE_COMPACT_DEADLINE_MS = 50_000;
/** SessionStart and PostCompact hooks get 15 s. */
const SHORT_DEADLINE_MS = 12_000;
/** handoff.sessionStart's bound on `model`: a longer one is no model id, and is not passed on. */
const MAX_MODEL_CHARS = 200;

interface HookInput {
  sessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  trigger: string | null;
  source: string | null;
  compactSummary: string | null;
  /** SessionStart's `model` (2.1.197: `claude-opus-4-8[1m]`), null when absent or not a model id. */
  model: string | null;
}

/**
 * The hook's `model`: a string in Claude Code 2.1.197 (only SessionStart carries it); the status
 * line's `{id, display_name}` shape is taken too, should a version send that.
 */
function modelOf(record: Record<string, unknown>): string | null {
  const model = text(record, 'model') ?? text(object(record, 'model'), 'id');
  return model !== null && model.length <= MAX_MODEL_CHARS ? model : null;
}

/** The fields memd's hooks read, from the hook's stdin object. */
function hookInputOf(record: Record<string, unknown>): HookInput {
  return {
    sessionId: text(record, 'session_id'),
    transcriptPath: text(record, 'transcript_path'),
    cwd: text(record, 'cwd'),
    trigger: text(record, 'trigger'),
    source: text(record, 'source'),
    compactSummary: typeof record.compact_summary === 'string' ? record.compact_summary : null,
    model: modelOf(record),
  };
}

function deadline(env: NodeJS.ProcessEnv, fallbackMs: number): number {
  const override = Number(env.MEMD_HOOK_DEADLINE_MS);
  return Number.isSafeInteger(override) && override > 0 ? override : fallbackMs;
}

/** The call's result, or the reason it gave none in time. */
async function within<T>(
  ms: number,
  work: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: false; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `memd gave no answer within ${ms} ms` }), ms);
  });
  const answered = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, reason: (error as Error).message }),
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

function transcriptTail(path: string | null): string {
  if (path === null) return '(Claude Code gave no transcript path)';
  try {
    // Non-blocking and regular files only: a FIFO at the transcript path must not hang the hook.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return '(the transcript path is not a regular file; nothing was read)';
      const size = stats.size;
      const length = Math.min(size, HANDOFF_TAIL_BYTES);
      // One byte more before the window tells whether it starts at a line's beginning.
      const before = size > length ? 1 : 0;
      const buffer = Buffer.alloc(length + before);
      readSync(fd, buffer, 0, length + before, size - length - before);
      const startsMidLine = before === 1 && buffer[0] !== 0x0a;
      return transcriptTailText(buffer.subarray(before).toString('utf8'), startsMidLine);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return `(the transcript could not be read: ${(error as Error).message})`;
  }
}

/** Without the daemon: the HANDOFF_AUTO_PARTIAL file, written here. */
function writeFallbackHandoff(input: HookInput, reason: string, ctx: CommandContext): void {
  if (input.cwd === null || !isAbsolute(input.cwd)) {
    ctx.out.err(`memctl hook: no handoff written (${reason}; and the hook gave no absolute cwd)`);
    return;
  }
  const path = join(input.cwd, HANDOFF_FILE);
  let document: string;
  try {
    // The transcript's tail goes into the repo: redacted (issue 27); the record is of what was written.
    document = redactSecrets(
      renderPartialHandoff({
        sessionId: input.sessionId,
        cwd: input.cwd,
        trigger: input.trigger ?? 'unknown',
        generatedAt: new Date().toISOString(),
        reason,
        tail: transcriptTail(input.transcriptPath),
      }),
    );
    writeInWorkTree(input.cwd, HANDOFF_RELATIVE_PATH, document, PRIVATE_FILE_MODE);
  } catch (error) {
    ctx.out.err(`memctl hook: ${reason}; the partial handoff could not be written either: ${(error as Error).message}`);
    return;
  }
  try {
    // Recorded as memd's, for this session, so that SessionStart uses it (issue 27).
    recordHandoff(ctx.env, input.cwd, document, input.sessionId);
    ctx.out.err(`memctl hook: ${reason}; wrote a partial handoff to ${path}`);
  } catch (error) {
    ctx.out.err(
      `memctl hook: ${reason}; wrote a partial handoff to ${path}, but memd's record of it was not written, so SessionStart will not use it: ${(error as Error).message}`,
    );
  }
}

/** The user's rules without a daemon, from the transcript: pinned for the compaction all the same (issue 29). */
function printFallbackPinned(input: HookInput, ctx: CommandContext): void {
  if (input.transcriptPath === null) return;
  try {
    const pinned = pinnedFromTranscript(input.transcriptPath);
    if (pinned !== '') ctx.out.out(pinned);
  } catch (error) {
    ctx.out.err(
      `memctl hook pre-compact: the user's rules could not be read from the transcript: ${(error as Error).message}`,
    );
  }
}

/** A memd older than `writeFile` refuses the field: it is asked again without it, and writes the file itself. */
const refusesWriteFile = (error: unknown) =>
  (error as { kind?: string }).kind === 'InvalidParams' && String((error as Error).message).includes('writeFile');

async function preCompact(input: HookInput, ctx: CommandContext): Promise<void> {
  if (input.cwd === null) {
    ctx.out.err('memctl hook pre-compact: the hook input has no cwd; nothing to do');
    return;
  }
  const limit = deadline(ctx.env, PRE_COMPACT_DEADLINE_MS);
  // The hook's deadline is the call's too: the client's 3 s default would cut a model's handoff short.
  const client = ctx.client({ timeoutMs: limit });
  try {
    const cwd = input.cwd;
    // The hook writes the file, as the user: memd's service may not write in the project (issue 29).
    const trigger = input.trigger === null ? {} : { trigger: input.trigger };
    // writeFile first: an older memd names the first field it does not know, whichever form is asked.
    const generate = (source: { sessionId: string } | { transcriptPath: string }) =>
      client.handoffGenerate({ writeFile: false, ...source, cwd, ...trigger }).catch((error: unknown) => {
        if (!refusesWriteFile(error)) throw error;
        return client.handoffGenerate({ ...source, cwd, ...trigger });
      });
    const ask = async () => {
      if (input.sessionId !== null) {
        try {
          return await generate({ sessionId: input.sessionId });
        } catch (error) {
          // Not indexed yet (a brand-new session): the transcript path names it all the same.
          if ((error as { kind?: string }).kind !== 'NotFound' || input.transcriptPath === null) throw error;
        }
      }
      if (input.transcriptPath === null) throw new Error('the hook input names neither a session nor a transcript');
      return generate({ transcriptPath: input.transcriptPath });
    };
    const answer = await within(limit, ask());
    if (!answer.ok) {
      // Whatever failed, the rules are pinned first: the file is for after the compaction.
      printFallbackPinned(input, ctx);
      writeFallbackHandoff(input, answer.reason, ctx);
      return;
    }
    if (answer.value.pinned !== '') ctx.out.out(redactSecrets(answer.value.pinned));
    // `written` absent: a memd older than issue 29 wrote the file itself.
    if (answer.value.written !== false) return;
    const text: unknown = answer.value.text;
    if (typeof text !== 'string') {
      ctx.out.err('memctl hook pre-compact: memd answered without the handoff text; nothing written');
      return;
    }
    try {
      const { gitignoreSkipped } = writeHandoffFile(cwd, text);
      if (gitignoreSkipped !== null)
        ctx.out.err(`memctl hook pre-compact: .gitignore left as it is: ${gitignoreSkipped}`);
    } catch (error) {
      ctx.out.err(
        `memctl hook pre-compact: the handoff was made but could not be written to ${answer.value.path}: ${(error as Error).message}`,
      );
    }
  } finally {
    client.close();
  }
}

/** Whatever a daemon (of any version) or the handoff file gives, no secret reaches the model (issue 27). */
function printContext(context: string, ctx: CommandContext): void {
  ctx.out.out(
    JSON.stringify({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: redactSecrets(context) },
    }),
  );
}

/**
 * SessionStart is Claude Code's first contact with a session, so memd is started here when nothing
 * answers: in the background, the hook not waiting for it (it adds milliseconds, not a daemon's
 * start-up). The status line and the turn hooks never start it: they run on every message and
 * prompt, and would bring back a daemon the user stopped on purpose within seconds.
 */
async function sessionStart(input: HookInput, ctx: CommandContext): Promise<void> {
  const paths = ctx.client({ autostart: false }).paths;
  const daemon = await startUnlessRunning(paths, ctx.env, ctx.autostart);
  if (
    input.source === null ||
    !sessionStartSources(ctx.env).includes(input.source) ||
    input.cwd === null ||
    input.sessionId === null
  )
    return;
  // An unusable socket is the client's to refuse or wait for, with its own words.
  const answer =
    daemon === 'started' || daemon === 'disabled'
      ? { ok: false as const, reason: DOWN_REASON[daemon] }
      : await askSessionStart(input, input.cwd, input.sessionId, input.source, ctx);
  if (answer.ok) {
    if (answer.value.additionalContext !== null) printContext(answer.value.additionalContext, ctx);
    return;
  }
  // Without the daemon, the handoff file alone still carries the work over.
  ctx.out.err(`memctl hook session-start: ${answer.reason}; using the handoff file alone`);
  printHandoffFile(input, input.cwd, input.source, ctx);
}

/** Why SessionStart did without memd, by what startUnlessRunning found. */
const DOWN_REASON: Record<Extract<StartOutcome, 'started' | 'disabled'>, string> = {
  started: 'memd was not running (started now, in the background)',
  disabled: 'memd is not running (autostart is off)',
};

async function askSessionStart(input: HookInput, cwd: string, sessionId: string, source: string, ctx: CommandContext) {
  // The probe found memd: a call that fails now is not a reason to start another one.
  const client = ctx.client({ autostart: false });
  try {
    const params = { sessionId, cwd, source };
    // A memd older than `model` refuses the field: asked again without it, the context still comes.
    const ask = () =>
      input.model === null
        ? client.handoffSessionStart(params)
        : client.handoffSessionStart({ ...params, model: input.model }).catch((error: unknown) => {
            if ((error as { data?: { field?: unknown } }).data?.field !== 'params.model') throw error;
            return client.handoffSessionStart(params);
          });
    return await within(deadline(ctx.env, SHORT_DEADLINE_MS), ask());
  } finally {
    client.close();
  }
}

function printHandoffFile(input: HookInput, cwd: string, source: string, ctx: CommandContext): void {
  let handoff: string;
  try {
    handoff = readTextInWorkTree(cwd, HANDOFF_RELATIVE_PATH) ?? '';
    // Only the handoff memd (or this hook) wrote for this session, unchanged since (issue 27).
    const trust = handoff.trim() === '' ? null : judgeHandoffFile(ctx.env, cwd, handoff, input.sessionId);
    if (trust?.trusted === false) {
      ctx.out.err(`memctl hook session-start: the handoff is not used: ${trust.reason}`);
      return;
    }
  } catch (error) {
    ctx.out.err(`memctl hook session-start: the handoff was not read: ${(error as Error).message}`);
    return;
  }
  if (handoff.trim() === '') return;
  const path = join(cwd, HANDOFF_FILE);
  const head = `memd: context for this session after "${source}" (memd did not answer: the handoff file alone).`;
  printContext(
    `${head}\n\n${handoffContextBlock(handoff, path, SESSION_START_MAX_CHARS - head.length - 2, `[cut to fit; the whole handoff is ${path}]`)}`,
    ctx,
  );
}

async function postCompact(input: HookInput, ctx: CommandContext): Promise<void> {
  if (input.sessionId === null || input.compactSummary === null) return;
  const client = ctx.client();
  try {
    const answer = await within(
      deadline(ctx.env, SHORT_DEADLINE_MS),
      client.handoffPostCompact({
        sessionId: input.sessionId,
        trigger: input.trigger ?? 'unknown',
        compactSummary: input.compactSummary,
      }),
    );
    if (!answer.ok) ctx.out.err(`memctl hook post-compact: the summary was not recorded: ${answer.reason}`);
  } finally {
    client.close();
  }
}

const HOOKS: Record<string, (input: HookInput, ctx: CommandContext) => Promise<void>> = {
  'pre-compact': preCompact,
  'session-start': sessionStart,
  'post-compact': postCompact,
};

/** Run by quick/turn.ts, which main.ts loads directly; here when flags (`--json`) sent them through the command line. */
const TURN_HOOKS = new Set<string>(['turn-start', 'turn-end', 'turn-failed', 'instructions-loaded']);

export const hook: Command = async (ctx) => {
  const [name, ...rest] = ctx.args;
  if (name !== undefined && TURN_HOOKS.has(name) && rest.length === 0) {
    const turn = await import('../quick/turn.js');
    await turn.runTurnHook(name as (typeof turn.TURN_HOOK_NAMES)[number]);
    return 0;
  }
  if (name === 'tool-failed' && rest.length === 0) {
    await (await import('../quick/recall.js')).runFailureHook();
    return 0;
  }
  const run = name === undefined ? undefined : HOOKS[name];
  if (run === undefined || rest.length > 0)
    throw new UsageError(`hook takes one of ${[...Object.keys(HOOKS), ...TURN_HOOKS, 'tool-failed'].join(', ')}`);
  // A hook writes nothing to stderr whatever happens: its notes go to the state dir's hooks.log.
  const quiet: CommandContext = { ...ctx, out: { ...ctx.out, err: hookNotes(ctx.env) } };
  const record = await readJsonObject(HOOK_STDIN_DEADLINE_MS);
  const input = record === null ? null : hookInputOf(record);
  if (input === null) {
    quiet.out.err(`memctl hook ${name}: stdin is not the hook's JSON object; nothing to do`);
    return 0;
  }
  try {
    await run(input, quiet);
  } catch (error) {
    quiet.out.err(`memctl hook ${name}: ${(error as Error).message}`);
  }
  return 0;
};
