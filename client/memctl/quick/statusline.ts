/**
 * `memctl statusline`: Claude Code's statusLine command. Claude Code runs it after each assistant
 * message with the session's JSON on stdin and shows the first line of stdout. The line comes
 * from memd when it answers within STATUS_DAEMON_DEADLINE_MS, else from the stdin fields alone
 * (marked `no memd`). It never starts a daemon, never writes to stderr and always exits 0: a
 * status line that fails or lags gets in the user's way on every message.
 */
import type { EffortReport } from '../../../shared/protocol/reports.js';
import { MAX_STATED_WINDOW, MIN_STATED_WINDOW } from '../../../shared/protocol/window.js';
import {
  DEFAULT_STATUS_COLUMNS,
  formatStatusLine,
  planFacts,
  type StatusFacts,
} from '../../../shared/statusline/format.js';
import type { Command } from '../context.js';
import { type QuickNotification, quickCall, socketPathOf } from './call.js';
import { effortOf, reportsOf, type StdinReports } from './reports.js';
import { number, object, readJsonObject, text } from './stdin.js';
import { thresholdOf } from './threshold-check.js';

/** memd's answer is worth this much wait; Claude Code debounces the command by ~300 ms and cancels a slow one. */
export const STATUS_DAEMON_DEADLINE_MS = 150;
/** stdin is written at once; a status line must not hang on a writer that keeps it open. */
const STATUS_STDIN_DEADLINE_MS = 500;

/** sessions.get takes model ids up to this long. */
const MAX_MODEL_ID_CHARS = 200;

/** The facts of a `sessions.get` answer, or null when it is not one. */
export function factsFromSummary(summary: unknown, stdinCost: number | null): StatusFacts | null {
  if (typeof summary !== 'object' || summary === null) return null;
  const record = summary as Record<string, unknown>;
  // The line is drawn from the threshold; the other figures are shown when present.
  const threshold = thresholdOf(record.threshold);
  if (threshold === null) return null;
  const compactions = number(object(record, 'compactions'), 'count');
  const total = object(object(record, 'usage'), 'total');
  const extractedAt = text(object(record, 'sessionMemory'), 'extractedAt');
  const memoryAt = extractedAt === null ? null : Date.parse(extractedAt);
  const deletedNotHeld = number(record, 'deletedNotHeld');
  const kept = number(object(record, 'lastCompaction'), 'kept');
  const lost = number(object(record, 'lastCompaction'), 'lost');
  return {
    threshold,
    compactions,
    memoryAt: Number.isFinite(memoryAt) ? memoryAt : null,
    costUsd: number(total, 'costUsd') ?? stdinCost,
    note: null,
    ...(deletedNotHeld === null ? {} : { deletedNotHeld }),
    ...(kept === null || lost === null ? {} : { lastKept: { kept, total: kept + lost } }),
    ...reportedFacts(object(record, 'reported')),
    ...modelFacts(text(record, 'model'), object(object(object(record, 'reported'), 'effort'), 'value')),
  };
}

/** The model segment's facts: only with an effort (shared/statusline/format.ts, modelText). */
function modelFacts(model: string | null, effort: Record<string, unknown> | null): Pick<StatusFacts, 'model'> {
  const level = effortOf(effort === null ? null : { effort })?.level;
  return level === undefined ? {} : { model: { id: model, effort: level } };
}

/**
 * The plan and cache facts memd kept (`reported`, issue 31): the session's 5-hour window, else the
 * account's; the session's cache. Checked field by field, as stdin is: a memd is another program.
 */
function reportedFacts(reported: Record<string, unknown> | null): Pick<StatusFacts, 'fiveHour' | 'cache'> {
  const limits = object(object(reported, 'rateLimits') ?? object(reported, 'accountRateLimits'), 'value');
  const fiveHour = object(limits, 'fiveHour');
  const used = number(fiveHour, 'usedPercent');
  const cache = object(object(reported, 'promptCache'), 'value');
  const causes = cache?.lastMissCauses;
  const cause = Array.isArray(causes) && typeof causes[0] === 'string' ? causes[0] : null;
  return {
    ...(used === null ? {} : { fiveHour: { usedPercent: used, resetsAt: number(fiveHour, 'resetsAt') } }),
    ...(cache === null
      ? {}
      : {
          cache: {
            warm: typeof cache.warm === 'boolean' ? cache.warm : null,
            expiresAt: number(cache, 'expiresAt'),
            lastMissCause: cause,
          },
        }),
  };
}

/** What Claude Code says of the session's window: `context_window.context_window_size` and `model.id`. */
export function statedByInput(input: Record<string, unknown> | null): { window?: number; model?: string } {
  const size = number(object(input, 'context_window'), 'context_window_size');
  const model = text(object(input, 'model'), 'id');
  return {
    ...(size !== null && Number.isSafeInteger(size) && size >= MIN_STATED_WINDOW && size <= MAX_STATED_WINDOW
      ? { window: size }
      : {}),
    ...(model !== null && model.length > 0 && model.length <= MAX_MODEL_ID_CHARS ? { model } : {}),
  };
}

/**
 * The context from Claude Code's own fields: `context_window.current_usage` (the last response's
 * input + cache + output, as memd counts it), else its used percentage of the window; the
 * thresholds are Claude Code's, computed here with the same environment it runs with.
 */
export async function factsFromInput(
  input: Record<string, unknown> | null,
  env: NodeJS.ProcessEnv,
  note: string,
): Promise<StatusFacts> {
  const model = text(object(input, 'model'), 'id');
  const window = object(input, 'context_window');
  const usage = object(window, 'current_usage');
  let tokens: number | null = null;
  if (usage !== null) {
    tokens = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'].reduce(
      (sum, key) => sum + (number(usage, key) ?? 0),
      0,
    );
  } else {
    const percent = number(window, 'used_percentage');
    const size = number(window, 'context_window_size');
    if (percent !== null && size !== null) tokens = Math.round((percent / 100) * size);
  }
  // Loaded only here: the model tables are the largest module of this command, and memd's answer needs none.
  const { window: stated } = statedByInput(input);
  const threshold =
    model === null || tokens === null
      ? null
      : (await import('../../../shared/transcript/thresholds.js')).computeThresholds({
          model,
          tokens,
          env,
          window: stated,
        });
  return {
    threshold,
    compactions: null,
    memoryAt: undefined,
    costUsd: number(object(input, 'cost'), 'total_cost_usd'),
    note,
  };
}

/**
 * The plan and cache segments' facts from stdin, which is the newest word on them (memd only keeps
 * what the status lines told it): they replace memd's, which show only when stdin has none.
 */
export function planFactsOf(reports: StdinReports): Pick<StatusFacts, 'fiveHour' | 'cache'> {
  const fiveHour = reports.rateLimits?.fiveHour;
  const cache = reports.promptCache;
  return planFacts(fiveHour, cache);
}

/**
 * `sessions.report` with what stdin reported, or nothing when it reported none (Claude Code before
 * 2.1.80, an API key, a model without effort). The effort goes in a report of its own: a memd that
 * predates it refuses the field, and so would lose the limits beside it.
 */
function reportNotifications(
  sessionId: string,
  reports: StdinReports,
  effort: EffortReport | undefined,
): QuickNotification[] {
  return [
    ...(reports.rateLimits === undefined && reports.promptCache === undefined
      ? []
      : [{ method: 'sessions.report', params: { sessionId, ...reports } }]),
    ...(effort === undefined ? [] : [{ method: 'sessions.report', params: { sessionId, effort } }]),
  ];
}

export async function statusLineFor(
  input: Record<string, unknown> | null,
  env: NodeJS.ProcessEnv,
  now: number,
): Promise<string> {
  const sessionId = text(input, 'session_id');
  const stdinCost = number(object(input, 'cost'), 'total_cost_usd');
  let facts: StatusFacts | null = null;
  let note = 'no memd';
  const reports = reportsOf(input);
  const effort = effortOf(input);
  if (sessionId !== null) {
    const stated = statedByInput(input);
    const answer = await quickCall(
      await socketPathOf(env),
      'sessions.get',
      { sessionId, ...stated },
      STATUS_DAEMON_DEADLINE_MS,
      reportNotifications(sessionId, reports, effort),
    );
    if (answer?.ok === true) facts = factsFromSummary(answer.result, stdinCost);
    // memd never overrides a window Claude Code stated (a memd older than `window` ignores it):
    // its tokens are kept and the thresholds computed again on the stated window.
    if (facts?.threshold != null && stated.window !== undefined && facts.threshold.window !== stated.window) {
      const { computeThresholds } = await import('../../../shared/transcript/thresholds.js');
      facts.threshold = computeThresholds({
        model: facts.threshold.model,
        tokens: facts.threshold.tokens,
        env,
        window: stated.window,
      });
    }
    // A session's first message can come before memd has read its first line.
    else if (answer?.ok === false && answer.kind === 'NotFound') note = 'memd: not indexed yet';
  }
  facts ??= await factsFromInput(input, env, note);
  Object.assign(facts, planFactsOf(reports));
  // Stdin's model and effort are the ones this very line is drawn for.
  if (effort !== undefined) facts.model = { id: text(object(input, 'model'), 'id'), effort: effort.level };
  const columns = Number.parseInt(env.COLUMNS ?? '', 10);
  return formatStatusLine(facts, {
    color: env.NO_COLOR === undefined || env.NO_COLOR === '',
    columns: Number.isSafeInteger(columns) && columns > 0 ? columns : DEFAULT_STATUS_COLUMNS,
    now,
  });
}

export async function runStatusLine(): Promise<void> {
  // Nothing reaches stderr and nothing fails the command, whatever happens below.
  process.on('uncaughtException', () => process.exit(0));
  process.on('unhandledRejection', () => process.exit(0));
  process.stdout.on('error', () => process.exit(0));
  try {
    const input = await readJsonObject(STATUS_STDIN_DEADLINE_MS);
    process.stdout.write(`${await statusLineFor(input, process.env, Date.now())}\n`);
  } catch {
    // A line that cannot be made is no line: Claude Code then shows none.
  }
  process.exitCode = 0;
}

/** The same through the command line (`memctl --no-autostart statusline`): flags do not change it. */
export const statusLineCommand: Command = async () => {
  await runStatusLine();
  return 0;
};
