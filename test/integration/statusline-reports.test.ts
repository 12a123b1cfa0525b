/**
 * The plan limits and the prompt cache Claude Code reports on the status line's stdin (issue 31):
 * shown from stdin with memd or without, and kept by memd (`sessions.report`, sent by memctl
 * statusline ahead of `sessions.get`) for the other clients, marked official.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { Methods } from '../../shared/protocol/methods.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
const HOUR_S = 3_600;

/** A fixture's stdin for the coding-loop session, its times moved to now (the line counts down from the real clock). */
function stdin(name: string, sessionId: string, nowS: number): string {
  const input = JSON.parse(readFileSync(join('test/fixtures/statusline', name), 'utf8')) as Record<string, unknown>;
  const limits = input.rate_limits as Record<string, { resets_at: number }> | undefined;
  if (limits?.five_hour !== undefined) limits.five_hour.resets_at = nowS + 2 * HOUR_S - 30;
  if (limits?.seven_day !== undefined) limits.seven_day.resets_at = nowS + 50 * HOUR_S;
  const cache = input.prompt_cache as Record<string, number> | undefined;
  if (cache !== undefined) cache.expires_at = nowS + 10 * 60 + 30;
  return JSON.stringify({ ...input, session_id: sessionId, cwd: loop.cwd });
}

describe('memctl statusline and what Claude Code reports of plan limits and the cache', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.sessionsList({})).sessions.length > 0, 'the fixture to be indexed');
  });

  it('shows them and memd keeps them for other clients, official, the account figures too', async () => {
    const nowS = Math.floor(Date.now() / 1000);
    const run = await runMemctl(
      sandbox,
      ['statusline'],
      { COLUMNS: '200' },
      stdin('stdin-2.1.251-warm.json', loop.sessionId, nowS),
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/ · 5h 42% ↻1h5\dm · \d+K left · cache 10m · /);
    expect(run.stdout).not.toContain('no memd');
    await eventually(
      async () => (await client.sessionsGet({ sessionId: loop.sessionId })).reported?.promptCache != null,
      'memd to keep the report',
    );
    const { reported } = await client.sessionsGet({ sessionId: loop.sessionId });
    if (reported === undefined) throw new Error('no reported');
    expect(reported.rateLimits).toMatchObject({
      provenance: 'official',
      sessionId: loop.sessionId,
      value: {
        fiveHour: { usedPercent: 42.00000000000001, resetsAt: (nowS + 2 * HOUR_S - 30) * 1000 },
        sevenDay: { usedPercent: 12.5, resetsAt: (nowS + 50 * HOUR_S) * 1000 },
      },
    });
    expect(reported.accountRateLimits).toEqual(reported.rateLimits);
    expect(reported.promptCache).toMatchObject({
      provenance: 'official',
      value: { ttl: '1h', warm: true, hitRatio: 0.88, misses: 0, expectedRebuilds: 0 },
    });
    // Another session's report is the account's latest, not this session's.
    const other = '77777777-0000-4000-8000-000000000007';
    await runMemctl(sandbox, ['statusline'], {}, stdin('stdin-2.1.260.json', other, nowS));
    await eventually(
      async () =>
        (await client.sessionsGet({ sessionId: loop.sessionId })).reported?.accountRateLimits?.sessionId === other,
      "the other session's report",
    );
    const after = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(after.reported?.rateLimits?.sessionId).toBe(loop.sessionId);
    expect(after.reported?.promptCache?.value.warm).toBe(true);
  });

  it("shows 2.1.197's reasoning effort beside the model, and memd keeps it for memctl status, official", async () => {
    const nowS = Math.floor(Date.now() / 1000);
    // Claude Code's own stdin (captured from 2.1.197 by claude-code-plan-limits.test.ts): Sonnet 5 at high effort.
    const input = stdin('stdin-2.1.197-oauth-captured.json', loop.sessionId, nowS);
    const run = await runMemctl(sandbox, ['statusline'], { COLUMNS: '200' }, input);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Sonnet 5 \(high\) · ▕[█░]{8}▏ \d+% /);
    await eventually(
      async () => (await client.sessionsGet({ sessionId: loop.sessionId })).reported?.effort != null,
      'memd to keep the effort',
    );
    const { reported } = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(reported?.effort).toMatchObject({ provenance: 'official', value: { level: 'high' } });
    const status = await runMemctl(sandbox, ['status', loop.sessionId], { NO_COLOR: '1' });
    expect(status.stdout).toMatch(/ {2}model {5}\S+ · effort high {2}\(official: Claude Code reported it/);
  });

  it('shows nothing of them from a 2.1.197 stdin without rate_limits, and stores nothing', async () => {
    const session = '66666666-0000-4000-8000-000000000006';
    const run = await runMemctl(sandbox, ['statusline'], {}, stdin('stdin-2.1.197-api-key.json', session, 0));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).not.toMatch(/5h|cache/);
    expect(await client.call(Methods.sessionsReport, { sessionId: session })).toEqual({ stored: false });
  });
});

describe('memctl statusline without memd', () => {
  it('shows the plan window and the cache from stdin alone', async () => {
    const nowS = Math.floor(Date.now() / 1000);
    const run = await runMemctl(makeSandbox(), ['statusline'], {}, stdin('stdin-2.1.260.json', 's', nowS));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/ · 5h 42% ↻1h5\dm · \d+K left · cache cold: tools · \$0\.50 · no memd\n$/);
  });
});
