// `npm run forecast [-- --fixture DIR] [--turns N] [--json] [--out FILE]`: replays a recorded
// Claude Code session (test/fixtures/forecast/) into a real memd turn by turn and checks
// usage.status's forecasts against what happened (issue 31's closing note):
//   - auto-compact: at each turn, the predicted whole turns (and minutes) until the context passes
//     autoCompactAt, beside the turn it actually passed it (and the compact_boundary Claude Code
//     wrote the turn after);
//   - the 5-hour limit: the predicted time the window reaches 100%, beside the time it did under
//     OUR plan model (used % = this session's cumulative cost / a budget; Claude Code's own formula
//     is not public). The harness sends it as the status line would (sessions.report).
// The recording's turns ran seconds apart; the replay retimes them to a human, varying pace
// (PACE below; each turn's entries keep their offsets from its start) and runs memd with its clock
// at the replayed turn's time (bench/forecast-clock.mjs), so that it answers as it would have live.
// 127.0.0.1 nowhere: memd on a unix socket in temp dirs; every wait is a poll with a deadline.

import { spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DAEMON_MAIN, LoopClient, makeSandbox, median, ROOT, STEP_DEADLINE_MS, waitForSocket } from './lib.js';

const { costOf, priceFor } = await import(join(ROOT, 'dist/shared/transcript/models.js'));

const DEFAULT_FIXTURE = join(ROOT, 'test/fixtures/forecast/auto-compact');
const CLOCK_PRELOAD = join(ROOT, 'bench/forecast-clock.mjs');
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Claude Code's plan window. */
const FIVE_HOURS_MS = 5 * HOUR_MS;
/** Where the replayed session starts (a fixed time, so that every run prints the same table). */
const SESSION_START = Date.parse('2026-12-01T09:12:00.000Z');
/**
 * Our plan model's budget: this share of the whole session's cost fills the 5-hour window, so the
 * limit falls about three quarters into the session whatever the fixture.
 */
const BUDGET_SHARE = 0.75;
/** The status line refreshes a few seconds after a response: memd's clock is set there for the turn's questions. */
const STATUS_LINE_LAG_MS = 5_000;
/** The clock file's line: two epoch ms and spaces, always this long. */
const CLOCK_LINE_CHARS = 40;
/**
 * Turns land at least this far apart (Claude Code's are seconds apart). chokidar drops a second
 * change of a file within 50 ms, and memd's re-check that makes up for it runs on its clock, which
 * the replay moves between turns; closer appends could wait for memd's 30 s sweep instead.
 */
const MIN_APPEND_GAP_MS = 60;
/** How far memd's shifted clock may be from the turn's time when the answer is taken (the replay's own pace). */
const CLOCK_SLACK_MS = 10_000;

/**
 * Minutes from one prompt to the next, by the turn's number: a varying pace (steady, a fast
 * burst, a long pause, slower work), the same every run. The pace is ours, not the recording's.
 */
function paceMinutes(turn) {
  const wobble = ((turn * 7919) % 10) / 10; // 0..0.9, fixed per turn
  if (turn <= 10) return 2 + 3 * wobble;
  if (turn <= 20) return 1 + wobble;
  if (turn === 21) return 35;
  return 3 + 4 * wobble;
}

/** The real prompt that opens a turn (not a tool result, a meta line or a compaction's summary). */
function isPrompt(entry) {
  if (entry.type !== 'user' || entry.isMeta === true || entry.isCompactSummary === true) return false;
  const content = entry.message?.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && content.length > 0 && content.every((block) => block?.type === 'text');
}

const isBoundary = (entry) => entry.type === 'system' && entry.subtype === 'compact_boundary';

/**
 * The transcript's lines cut into turns: each turn from the lines Claude Code wrote at its start
 * (queue operations, a compaction) through its prompt and responses, to the next turn's.
 */
export function splitTurns(lines) {
  const entries = lines.map((line) => JSON.parse(line));
  const starts = [];
  for (let i = 0; i < entries.length; i++) {
    if (!isPrompt(entries[i])) continue;
    let start = i;
    // What Claude Code writes before the prompt at a run's start belongs to that turn.
    while (start > 0 && !['assistant', 'last-prompt', 'mode'].includes(entries[start - 1].type)) start--;
    if (starts.length === 0) start = 0;
    starts.push(start);
  }
  return starts.map((start, n) => {
    const end = starts[n + 1] ?? entries.length;
    return { lines: lines.slice(start, end), entries: entries.slice(start, end) };
  });
}

/** The turn's main-agent responses, one per message id (Claude Code writes a line per content block). */
function responsesOf(entries) {
  const byId = new Map();
  for (const entry of entries) {
    const message = entry.message;
    if (entry.type !== 'assistant' || entry.isSidechain === true || message?.usage === undefined) continue;
    if (message.model === '<synthetic>') continue;
    byId.set(message.id ?? entry.uuid, entry);
  }
  return [...byId.values()];
}

function costOfResponse(entry) {
  const price = priceFor(entry.message.model ?? null);
  if (price === null) return 0;
  const usage = entry.message.usage;
  const split = usage.cache_creation ?? {};
  return costOf(
    {
      input: usage.input_tokens ?? 0,
      output: usage.output_tokens ?? 0,
      cacheCreation: usage.cache_creation_input_tokens ?? 0,
      cacheRead: usage.cache_read_input_tokens ?? 0,
      cache5m: split.ephemeral_5m_input_tokens ?? 0,
      cache1h: split.ephemeral_1h_input_tokens ?? 0,
    },
    price,
  );
}

/** Each turn's lines with their timestamps moved to the replay's pace (offsets within the turn kept). */
function retime(turns) {
  let at = SESSION_START;
  return turns.map((turn, index) => {
    const stamps = turn.entries.map((entry) => Date.parse(entry.timestamp)).filter(Number.isFinite);
    const origin = stamps.length > 0 ? Math.min(...stamps) : 0;
    const start = at;
    const entries = turn.entries.map((entry) => {
      const ms = Date.parse(entry.timestamp);
      return Number.isFinite(ms) ? { ...entry, timestamp: new Date(start + (ms - origin)).toISOString() } : entry;
    });
    const end = Math.max(start, ...entries.map((entry) => Date.parse(entry.timestamp)).filter(Number.isFinite));
    at = Math.max(end, start + paceMinutes(index + 1) * MINUTE_MS);
    return { number: index + 1, start, end, entries, lines: entries.map((entry) => JSON.stringify(entry)) };
  });
}

/** Our plan model: the used percentage after each turn, and when the window reached 100%. */
function planModel(turns) {
  const responses = turns.flatMap((turn) =>
    responsesOf(turn.entries).map((entry) => ({ at: Date.parse(entry.timestamp), usd: costOfResponse(entry) })),
  );
  const total = responses.reduce((sum, response) => sum + response.usd, 0);
  const budget = total * BUDGET_SHARE;
  const opened = Math.floor(responses[0].at / HOUR_MS) * HOUR_MS; // ccusage's block: the hour of the first response
  const resetsAt = opened + FIVE_HOURS_MS;
  const last = turns[turns.length - 1].end;
  if (last >= resetsAt) throw new Error('the replayed session outlasts one 5-hour window; shorten PACE');
  let spent = 0;
  let reachedAt = null;
  for (const response of responses) {
    spent += response.usd;
    if (reachedAt === null && spent >= budget) reachedAt = response.at;
  }
  const usedAt = (ms) =>
    Math.min(100, (100 * responses.filter((r) => r.at <= ms).reduce((sum, r) => sum + r.usd, 0)) / budget);
  return { budget, total, opened, resetsAt, reachedAt, usedAt };
}

class Rpc {
  constructor(client) {
    this.client = client;
    this.id = 0;
  }

  async call(method, params) {
    const answer = await this.client.roundTrip(
      `${JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params })}\n`,
    );
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  }
}

async function until(what, probe) {
  const deadline = Date.now() + STEP_DEADLINE_MS;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 10));
  }
  throw new Error(`timed out after ${STEP_DEADLINE_MS} ms waiting for ${what}`);
}

function startMemd(env) {
  const child = spawn(process.execPath, ['--import', CLOCK_PRELOAD, DAEMON_MAIN, '--foreground'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk) => (log = (log + chunk.toString()).slice(-20_000)));
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
  return {
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Replays the fixture, asking usage.status after each turn; returns the rows and what happened. */
export async function replay(fixture, maxTurns) {
  const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8'));
  const projectDir = readdirSync(join(fixture, 'projects'))[0];
  const file = `${manifest.sessionId}.jsonl`;
  const raw = readFileSync(join(fixture, 'projects', projectDir, file), 'utf8')
    .split('\n')
    .filter(Boolean);
  const turns = retime(splitTurns(raw)).slice(0, maxTurns);
  const plan = planModel(turns);

  const sandbox = makeSandbox();
  const clockFile = join(sandbox.root, 'clock');
  // One write of a fixed length in place: the preload never reads a truncated file.
  writeFileSync(clockFile, ' '.repeat(CLOCK_LINE_CHARS));
  const clockFd = openSync(clockFile, 'r+');
  const setClock = (at) => writeSync(clockFd, `${at} ${Date.now()}`.padEnd(CLOCK_LINE_CHARS), 0);
  setClock(turns[0].start);
  const env = {
    ...sandbox.env,
    ...manifest.claudeCodeEnv,
    MEMD_BENCH_CLOCK_FILE: clockFile,
    // Nothing but the replay runs: no extraction beside it.
    MEMD_BACKFILL_EXTRACTIONS: '0',
  };
  const memd = startMemd(env);
  const rows = [];
  let client;
  try {
    await waitForSocket(sandbox.socketPath);
    client = await LoopClient.open(sandbox.socketPath);
    const rpc = new Rpc(client);
    const dir = join(sandbox.env.MEMD_PROJECTS_DIR, projectDir);
    mkdirSync(dir, { recursive: true });
    let responses = 0;
    /** usage.status once memd's clock reads `now` (the preload applies a new time a moment after it is written). */
    const clockAt = async (now, number) => {
      // Written again each time: a turn that memd indexed only at its 30 s sweep must not leave its
      // clock that far past the turn. With the clock stepped minutes forward between turns, about one
      // append in 70 waited for that sweep (its watcher's event lost); with memd's clock unshifted,
      // none of 216 did.
      setClock(now);
      let lastAt = null;
      try {
        return await until(`memd's clock at turn ${number}`, async () => {
          const answer = await rpc.call('usage.status', { sessionId: manifest.sessionId });
          lastAt = answer.at;
          return Math.abs(answer.at - now) <= CLOCK_SLACK_MS ? answer : undefined;
        });
      } catch (error) {
        const file = readFileSync(clockFile, 'utf8').trim();
        throw new Error(
          `${error.message} (it read ${lastAt === null ? '-' : lastAt - now} ms off; clock file "${file}")`,
        );
      }
    };
    let appendedAt = 0;
    for (const turn of turns) {
      // The clock moves before the turn's lines land, never between them and memd's reading them.
      const now = turn.end + STATUS_LINE_LAG_MS;
      if (turn.number > 1) await clockAt(now, turn.number);
      else setClock(now);
      await until('the pace floor between appends', () =>
        Date.now() - appendedAt >= MIN_APPEND_GAP_MS ? true : undefined,
      );
      appendFileSync(join(dir, file), `${turn.lines.join('\n')}\n`);
      appendedAt = Date.now();
      responses += responsesOf(turn.entries).length;
      const summary = await until(`memd to index turn ${turn.number}`, async () => {
        const got = await rpc.call('sessions.get', { sessionId: manifest.sessionId }).catch(() => undefined);
        return got !== undefined && got.usage.main.assistantMessages >= responses ? got : undefined;
      });
      const indexMs = Date.now() - appendedAt;
      await rpc.call('sessions.report', {
        sessionId: manifest.sessionId,
        rateLimits: { fiveHour: { usedPercent: plan.usedAt(turn.end), resetsAt: plan.resetsAt } },
      });
      const status = await clockAt(now, turn.number);
      rows.push({
        turn: turn.number,
        at: now,
        promptAt: turn.start,
        end: turn.end,
        compacted: turn.entries.some(isBoundary),
        context: summary.contextTokens,
        autoCompactAt: summary.threshold.autoCompactAt,
        indexMs,
        status,
      });
    }
  } catch (error) {
    throw new Error(`${error.message}\n--- memd's log ---\n${memd.log()}`);
  } finally {
    client?.close();
    await memd.stop();
    closeSync(clockFd);
    sandbox.cleanup();
  }
  return { manifest, plan, rows };
}

/** Predicted beside actual, per turn, and the summary errors. */
export function compare({ manifest, plan, rows }) {
  const table = rows.map((row, index) => {
    // The turn whose context first passes autoCompactAt from here on, before the next compaction.
    let passed = null;
    for (const later of rows.slice(index + 1)) {
      if (later.compacted) break;
      if (later.context >= later.autoCompactAt) {
        passed = later;
        break;
      }
    }
    const boundary = rows.slice(index + 1).find((later) => later.compacted) ?? null;
    const forecast = row.status.autoCompact;
    const limit = row.status.limit;
    const actualTurns = passed === null ? null : passed.turn - row.turn - 1;
    const actualMinutes = passed === null ? null : (passed.end - row.at) / MINUTE_MS;
    const limitAhead = plan.reachedAt !== null && plan.reachedAt > row.at;
    const predictedLimitMinutes = limit.reachedAt === null ? null : (limit.reachedAt - row.status.at) / MINUTE_MS;
    const actualLimitMinutes = limitAhead ? (plan.reachedAt - row.at) / MINUTE_MS : null;
    return {
      turn: row.turn,
      at: new Date(row.at).toISOString(),
      context: row.context,
      autoCompactAt: row.autoCompactAt,
      compactBoundary: row.compacted,
      predictedTurns: forecast.turns,
      actualTurns,
      errorTurns: forecast.turns === null || actualTurns === null ? null : forecast.turns - actualTurns,
      predictedMinutes: forecast.minutes,
      actualMinutes: actualMinutes === null ? null : round1(actualMinutes),
      errorMinutes:
        forecast.minutes === null || actualMinutes === null ? null : round1(forecast.minutes - actualMinutes),
      nextBoundaryTurn: boundary?.turn ?? null,
      usedPercent: round1(limit.usedPercent ?? 0),
      predictedLimitAt:
        limit.reachedAt === null ? null : new Date(limit.reachedAt - row.status.at + row.at).toISOString(),
      resetFirst: limit.resetFirst,
      indexMs: row.indexMs,
      actualLimitAt: plan.reachedAt === null ? null : new Date(plan.reachedAt).toISOString(),
      limitErrorMinutes:
        predictedLimitMinutes === null || actualLimitMinutes === null
          ? null
          : round1(predictedLimitMinutes - actualLimitMinutes),
    };
  });
  const abs = (key) =>
    table
      .map((row) => row[key])
      .filter((value) => value !== null)
      .map(Math.abs);
  const stats = (values) => ({
    n: values.length,
    medianAbs: values.length === 0 ? null : median(values),
    maxAbs: values.length === 0 ? null : Math.max(...values),
  });
  const limitRows = table.filter(
    (row) => row.actualLimitAt !== null && Date.parse(row.actualLimitAt) > Date.parse(row.at),
  );
  return {
    fixture: manifest.sessionId,
    model: manifest.model,
    claudeCodeEnv: manifest.claudeCodeEnv,
    planModel: {
      statement: `ours: used % = this session's cumulative cost / $${plan.budget.toFixed(2)} (${BUDGET_SHARE * 100}% of its whole cost), window opened ${new Date(plan.opened).toISOString()}`,
      budgetUsd: round2(plan.budget),
      resetsAt: new Date(plan.resetsAt).toISOString(),
      reachedAt: plan.reachedAt === null ? null : new Date(plan.reachedAt).toISOString(),
    },
    compactions: {
      contextPassedAt: table.filter((row) => row.context >= row.autoCompactAt).map((row) => row.turn),
      boundaryAt: table.filter((row) => row.compactBoundary).map((row) => row.turn),
    },
    summary: {
      autoCompactTurns: stats(abs('errorTurns')),
      autoCompactMinutes: stats(abs('errorMinutes')),
      limitMinutes: stats(abs('limitErrorMinutes')),
      limitPredictions: limitRows.filter((row) => row.predictedLimitAt !== null).length,
      limitTurnsBeforeReached: limitRows.length,
      slowestIndexMs: Math.max(...table.map((row) => row.indexMs)),
    },
    rows: table,
  };
}

const round1 = (value) => Math.round(value * 10) / 10;
const round2 = (value) => Math.round(value * 100) / 100;
const cell = (value) => (value === null ? '-' : String(value));

function printTable(result) {
  const head = [
    'turn',
    'time',
    'context',
    'acAt',
    'pred turns',
    'actual',
    'err',
    'pred min',
    'actual',
    'err',
    'used%',
    'pred limit',
    'err min',
  ];
  const lines = [head.join('\t')];
  for (const row of result.rows) {
    lines.push(
      [
        `${row.turn}${row.compactBoundary ? '*' : ''}`,
        row.at.slice(11, 16),
        row.context,
        row.autoCompactAt,
        cell(row.predictedTurns),
        cell(row.actualTurns),
        cell(row.errorTurns),
        cell(row.predictedMinutes),
        cell(row.actualMinutes),
        cell(row.errorMinutes),
        row.usedPercent,
        row.predictedLimitAt === null ? (row.resetFirst ? 'reset first' : '-') : row.predictedLimitAt.slice(11, 16),
        cell(row.limitErrorMinutes),
      ].join('\t'),
    );
  }
  const { summary, compactions, planModel } = result;
  lines.push(
    '',
    `* = compact_boundary written in this turn (Claude Code compacted before its request)`,
    `context passed autoCompactAt at turns ${compactions.contextPassedAt.join(', ')}; boundaries at ${compactions.boundaryAt.join(', ')}`,
    `plan model (${planModel.statement}): 100% at ${planModel.reachedAt}, reset ${planModel.resetsAt}`,
    `auto-compact turns: n=${summary.autoCompactTurns.n} median |err| ${cell(summary.autoCompactTurns.medianAbs)} max ${cell(summary.autoCompactTurns.maxAbs)}`,
    `auto-compact minutes: n=${summary.autoCompactMinutes.n} median |err| ${cell(summary.autoCompactMinutes.medianAbs)} max ${cell(summary.autoCompactMinutes.maxAbs)}`,
    `memd indexed a turn within ${summary.slowestIndexMs} ms of its append at most`,
    `5h limit minutes: n=${summary.limitMinutes.n} of ${summary.limitTurnsBeforeReached} turns before it; median |err| ${cell(summary.limitMinutes.medianAbs)} max ${cell(summary.limitMinutes.maxAbs)}`,
  );
  console.log(lines.join('\n'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const parsed = parseArgs({
    options: {
      fixture: { type: 'string', default: DEFAULT_FIXTURE },
      turns: { type: 'string' },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  const maxTurns = parsed.values.turns === undefined ? undefined : Number(parsed.values.turns);
  const result = compare(await replay(parsed.values.fixture, maxTurns));
  if (parsed.values.out !== undefined) writeFileSync(parsed.values.out, `${JSON.stringify(result, null, 2)}\n`);
  if (parsed.values.json) console.log(JSON.stringify(result, null, 2));
  else printTable(result);
}
