/**
 * `usage.status` (issue 31) from the real daemon: the three forecasts of a session whose turns are
 * timed, before and after its status line reported the plan window and the prompt cache.
 * The session's six turns come four minutes apart and each grows the context by 5,000 tokens,
 * so the pace is known; it is the account's only spender, so the percent its USD buys is the
 * window's used percent over its own spend.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import type { UsageStatusResult } from '../../shared/protocol/forecast.js';
import { Methods } from '../../shared/protocol/methods.js';
import { createClient } from '../helpers/client.js';
import { mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SESSION = '5e55a7e0-0000-4000-8000-000000000031';
const CWD = '/home/user/forecast';
const MINUTE_MS = 60_000;
const TURNS = 6;
const TURN_MS = 4 * MINUTE_MS;
const GROWTH = 5_000;
/** Context after turn i: the final response's input + cache writes + cache reads + output. */
const contextAfter = (turn: number) => 10 + 1_000 + 20_000 + turn * GROWTH + 200;
/** Sonnet 4.5: USD per million tokens of a 1-hour cache write and of a cache read. */
const WRITE_1H = 6;
const READ = 0.3;

/** Six turns, the first 30 minutes ago: a prompt, a tool round, an answer, the turn's lines 1 s apart; returns the responses' instants. */
function writeSession(projectsDir: string, startMs: number): number[] {
  const writer = new TranscriptWriter({ sessionId: SESSION, cwd: CWD, version: '2.1.197' });
  const responseTimes: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const from = writer.lines.length;
    writer.prompt(`step ${turn}: go on with the parser`);
    const usage = { input: 10, cacheWrite: 1_000, cacheRead: 20_000 + turn * GROWTH - 2_000, output: 150 };
    writer.toolRound('Read', { file_path: `/src/p${turn}.ts` }, 'export const x = 1;', usage);
    writer.response([{ type: 'text', text: 'Done.' }], { ...usage, cacheRead: 20_000 + turn * GROWTH, output: 200 });
    writer.lines.slice(from).forEach((line, index) => {
      const at = startMs + turn * TURN_MS + index * 1_000;
      line.timestamp = new Date(at).toISOString();
      // The entry that counts for a response is its last one, which carries the stop reason.
      const message = line.message as { stop_reason?: string | null } | undefined;
      if (line.type === 'assistant' && message?.stop_reason != null) responseTimes.push(at);
    });
  }
  writeTranscript(mainPath(projectsDir, CWD, SESSION), writer);
  return responseTimes;
}

describe('usage.status', () => {
  let sandbox: Sandbox;
  let client: Client;
  let responseTimes: number[];
  const startMs = Date.now() - 30 * MINUTE_MS;
  const status = () => client.call(Methods.usageStatus, { sessionId: SESSION }) as Promise<UsageStatusResult>;

  beforeAll(async () => {
    sandbox = makeSandbox();
    responseTimes = writeSession(sandbox.projectsDir, startMs);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the session to be indexed');
  });

  it('forecasts auto-compact from the turns’ pace, and the cache from the last response, with no report', async () => {
    const summary = await client.sessionsGet({ sessionId: SESSION });
    expect(summary.contextTokens).toBe(contextAfter(TURNS - 1));
    const answer = await status();
    const left = summary.threshold.tokensLeft;
    expect(answer.autoCompact).toMatchObject({
      contextTokens: contextAfter(TURNS - 1),
      autoCompactAt: summary.threshold.autoCompactAt,
      tokensLeft: left,
      growthPerTurn: GROWTH,
      minutesPerTurn: 4,
      sampleTurns: TURNS,
      turns: Math.ceil(left / GROWTH) - 1,
      minutes: Math.round((left / GROWTH) * 4 * 10) / 10,
      provenance: 'estimated',
    });
    expect(answer.autoCompact.basis).toContain('the mean growth over the last 6 complete turns');
    expect(answer.limit).toMatchObject({ usedPercent: null, resetsAt: null, reachedAt: null, percentPerHour: null });
    expect(answer.limit.basis).toContain('Claude.ai plans');
    // The writer's responses write their cache for an hour; the expiry is the last response's plus that.
    expect(answer.cacheRebuild).toMatchObject({
      ttl: '1h',
      expiresAt: (responseTimes.at(-1) as number) + 60 * MINUTE_MS,
      expiresAtProvenance: 'estimated',
      tokens: contextAfter(TURNS - 1),
      provenance: 'estimated',
    });
    expect(answer.cacheRebuild.costUsd).toBeCloseTo((contextAfter(TURNS - 1) * (WRITE_1H - READ)) / 1e6, 4);
    expect(answer.reported).toEqual({ rateLimits: null, accountRateLimits: null, promptCache: null, effort: null });
  });

  it('forecasts the 5-hour limit at the session’s pace once the status line reported it', async () => {
    const now = Date.now();
    const resetsAt = now + 2 * 60 * MINUTE_MS;
    const expiresAt = now + 50 * MINUTE_MS;
    await client.call(Methods.sessionsReport, {
      sessionId: SESSION,
      rateLimits: { fiveHour: { usedPercent: 40, resetsAt } },
      promptCache: { ttl: '5m', expiresAt, warm: true },
    });
    let answer = await status();
    await eventually(async () => {
      answer = await status();
      return answer.limit.percentPerHour !== null;
    }, 'the usage book to hold the session');
    // Its spend is the whole window's: 40% over the span of its responses.
    const spanHours = ((responseTimes.at(-1) as number) - (responseTimes[0] as number)) / (60 * MINUTE_MS);
    expect(answer.limit).toMatchObject({ usedPercent: 40, resetsAt, resetFirst: false, provenance: 'estimated' });
    expect(answer.limit.percentPerHour).toBeCloseTo(40 / spanHours, 1);
    const reachedAt = answer.at + (60 / (40 / spanHours)) * 60 * MINUTE_MS;
    expect(Math.abs((answer.limit.reachedAt as number) - reachedAt)).toBeLessThan(60 * MINUTE_MS * 0.01);
    expect(answer.limit.basis).toMatch(/40% used \(official, from this session’s status line\)/);
    expect(answer.cacheRebuild).toMatchObject({ ttl: '5m', expiresAt, expiresAtProvenance: 'official' });
    expect(answer.reported.rateLimits?.provenance).toBe('official');
  });

  it('answers an unknown session with the error sessions.get gives', async () => {
    const unknown = '00000000-0000-4000-8000-00000000dead';
    const asGet = await client.sessionsGet({ sessionId: unknown }).catch((error: unknown) => error);
    const asStatus = await client.call(Methods.usageStatus, { sessionId: unknown }).catch((error: unknown) => error);
    expect(asStatus).toMatchObject({ code: ErrorCode.NotFound });
    expect((asStatus as Error).message).toBe((asGet as Error).message);
  });
});
