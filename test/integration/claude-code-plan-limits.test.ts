/**
 * memd's status-line segments from the real Claude Code's (2.1.197) OWN status-line stdin (issue 31):
 * the 5-hour plan window (`5h 42% ↻1h52m`) and the reasoning effort beside the model.
 *
 * How 2.1.197 fills `rate_limits` (found in its binary): from every Messages API response's
 * `anthropic-ratelimit-unified-{5h,7d}-{utilization,reset}` headers (utilization 0-1, reset in
 * epoch seconds), and only when the session is a Claude.ai subscriber's: an OAuth token with the
 * `user:inference` scope. With an API key it reads no headers and sends no `rate_limits`. A
 * Claude.ai login is not needed for that: `CLAUDE_CODE_OAUTH_TOKEN` (what `claude setup-token`
 * prints, for CI) is such a token, with `user:inference` by default. Here it is a made-up string
 * that only the scripted API on 127.0.0.1 ever sees; the scripted API sends the headers.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code, and without tmux. Claude Code must never reach the internet: run it in
 * a network namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/bin/claude.exe \
 *     npx vitest run test/integration/claude-code-plan-limits.test.ts'
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerFirstRun,
  claudeCodeEnv,
  claudeCodeRuns,
  claudeCodeSuiteTitle,
  claudeCommand,
} from '../helpers/claude-code.js';
import { createClient } from '../helpers/client.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';
import { startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';
import { startTmux } from '../helpers/tmux.js';

const TITLE = claudeCodeSuiteTitle("memd's plan and effort segments from Claude Code's own status-line stdin", true);

const CLAUDE_TEST_TIMEOUT_MS = 150_000;
/** How long Claude Code may take to start and answer, or memd to catch up with it. */
const CLAUDE_DEADLINE_MS = 60_000;
/** The made-up OAuth token: the scripted API takes it as `Authorization: Bearer`, nothing else sees it. */
const OAUTH_TOKEN = 'test-oauth-token';
const REPLY = 'Hello from the scripted API.';
/** What the scripted API reports of the plan: 42 % of the 5-hour window, 12.5 % of the week. */
const FIVE_HOUR_UTILIZATION = 0.42;
const SEVEN_DAY_UTILIZATION = 0.125;
/** The 5-hour window resets this long after the test starts (1h52m, as the status line shows it, give or take the run). */
const FIVE_HOUR_RESET_IN_S = 112 * 60;
const SEVEN_DAY_RESET_IN_S = 3 * 86_400;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * The settings' statusLine command with a `tee` in front: Claude Code's stdin is kept, one object
 * per line, then goes on to memctl statusline unchanged.
 */
function teeStatusLine(settingsPath: string, capture: string): void {
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { statusLine: { command: string } };
  const quoted = `'${capture.replaceAll("'", `'\\''`)}'`;
  settings.statusLine.command = `{ cat; echo; } | tee -a ${quoted} | ${settings.statusLine.command}`;
  writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
}

function capturedStdin(capture: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(capture, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe.skipIf(!claudeCodeRuns(true))(TITLE, () => {
  it(
    'a Claude.ai token: the headers reach Claude Code, its stdin carries rate_limits and effort, memd shows `5h 42% ↻…` and keeps them as official',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-0000000031c1';
      const sandbox = makeSandbox();
      const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
      const projects = join(claudeDir, 'projects');
      mkdirSync(projects, { recursive: true });
      const memdEnv = { MEMD_PROJECTS_DIR: projects };
      await startDaemon(sandbox, undefined, memdEnv);
      const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
      cleanups.push(() => client.close());
      expect(await runMemctl(sandbox, ['install-hooks'], memdEnv)).toMatchObject({ code: 0, stderr: '' });
      expect(await runMemctl(sandbox, ['install-statusline'], memdEnv)).toMatchObject({ code: 0, stderr: '' });
      const capture = join(sandbox.root, 'statusline-stdin.jsonl');
      teeStatusLine(join(claudeDir, 'settings.json'), capture);
      const cwd = join(sandbox.root, 'project');
      mkdirSync(cwd);
      const startedS = Math.floor(Date.now() / 1000);
      const api = await startStreamingMessagesApi({
        apiKey: OAUTH_TOKEN,
        replyHeaders: () => ({
          'anthropic-ratelimit-unified-status': 'allowed',
          'anthropic-ratelimit-unified-5h-utilization': String(FIVE_HOUR_UTILIZATION),
          'anthropic-ratelimit-unified-5h-reset': String(startedS + FIVE_HOUR_RESET_IN_S),
          'anthropic-ratelimit-unified-7d-utilization': String(SEVEN_DAY_UTILIZATION),
          'anthropic-ratelimit-unified-7d-reset': String(startedS + SEVEN_DAY_RESET_IN_S),
        }),
      });
      cleanups.push(() => api.close());
      answerFirstRun(claudeDir, cwd, OAUTH_TOKEN);
      const env = claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, OAUTH_TOKEN);
      // A subscriber's session: the OAuth token, and no API key beside it (which would take precedence).
      delete env.ANTHROPIC_API_KEY;
      Object.assign(env, {
        CLAUDE_CODE_OAUTH_TOKEN: OAUTH_TOKEN,
        _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL: '1',
        TERM: 'xterm-256color',
      });
      api.script({
        kind: 'text',
        text: REPLY,
        usage: { input_tokens: 4, cache_creation_input_tokens: 30_000, cache_read_input_tokens: 0, output_tokens: 12 },
      });
      const tmux = await startTmux({
        socket: join(sandbox.root, 'tmux.sock'),
        cwd,
        env,
        command: claudeCommand(['--session-id', sessionId]),
        width: 200,
        height: 60,
      });
      cleanups.push(() => tmux.kill());
      await tmux.waitFor((screen) => screen.includes('❯'), 'the prompt', CLAUDE_DEADLINE_MS);
      await tmux.sendKeys(['Say hello'], { literal: true });
      await tmux.sendKeys(['Enter']);
      await tmux.waitFor((screen) => screen.includes(REPLY), 'the reply', CLAUDE_DEADLINE_MS);

      // memd's status line under the prompt, from Claude Code's own stdin: the 5-hour window and its reset.
      const screen = await tmux.waitFor(
        (text) => /5h 42% ↻1h5\dm/.test(text),
        "memd's 5-hour segment",
        CLAUDE_DEADLINE_MS,
      );
      expect(screen).toMatch(/5h 42% ↻1h5\dm/);
      // The model Claude Code runs (Sonnet 5 for a token without a plan type) at its default effort, first on memd's line.
      expect(screen).toMatch(/Sonnet 5 \(high\) · ▕[█░]{8}▏ \d+% [^·]+ · 5h 42%/);

      // What Claude Code sent: rate_limits as the headers said (utilization × 100, reset in epoch seconds), and the effort.
      const sent = capturedStdin(capture);
      const withLimits = sent.filter((input) => input.rate_limits !== undefined);
      expect(withLimits.length).toBeGreaterThan(0);
      expect(withLimits.at(-1)).toMatchObject({
        session_id: sessionId,
        model: { id: 'claude-sonnet-5' },
        effort: { level: 'high' },
        rate_limits: {
          five_hour: { used_percentage: expect.closeTo(42, 6), resets_at: startedS + FIVE_HOUR_RESET_IN_S },
          seven_day: { used_percentage: expect.closeTo(12.5, 6), resets_at: startedS + SEVEN_DAY_RESET_IN_S },
        },
      });
      // Before the first response Claude Code knows no limits: the first stdin has none.
      expect(sent[0]?.rate_limits).toBeUndefined();

      // memd kept what the status line told it, marked as Claude Code's.
      await eventually(
        async () => (await client.sessionsGet({ sessionId }).catch(() => null))?.reported?.rateLimits != null,
        'memd to keep the reported limits',
        CLAUDE_DEADLINE_MS,
      );
      const reported = (await client.sessionsGet({ sessionId })).reported;
      expect(reported?.rateLimits).toMatchObject({
        provenance: 'official',
        value: { fiveHour: { usedPercent: expect.closeTo(42, 6), resetsAt: (startedS + FIVE_HOUR_RESET_IN_S) * 1000 } },
      });
      expect(reported?.effort).toMatchObject({ provenance: 'official', value: { level: 'high' } });
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
