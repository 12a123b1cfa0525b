/**
 * A user's first run with the real Claude Code (2.1.197), as issue 29 describes it: memd's three
 * installers (hooks, status line, MCP server) run with no daemon, Claude Code starts, and one turn
 * later memd is up (its SessionStart hook started it) and the status line shows memd's figures.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code, and without tmux. Claude Code must never reach the internet: run it in
 * a network namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/node_modules/.bin/claude \
 *     npx vitest run test/integration/claude-code-first-run.test.ts'
 */
import { mkdirSync } from 'node:fs';
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
import { eventually, makeSandbox, runMemctl } from '../helpers/sandbox.js';
import { startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';
import { startTmux } from '../helpers/tmux.js';

const TITLE = claudeCodeSuiteTitle('a first run of the real Claude Code with memd installed and not running', true);
const CLAUDE_TEST_TIMEOUT_MS = 150_000;
const CLAUDE_DEADLINE_MS = 60_000;
const API_KEY = 'test-key';
const REPLY = 'Hello from the scripted API.';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!claudeCodeRuns(true))(TITLE, () => {
  it(
    'install the three, start claude with no daemon, one turn: memd is up and the status line shows its figures',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-00000000f125';
      const sandbox = makeSandbox();
      const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
      const projects = join(claudeDir, 'projects');
      mkdirSync(projects, { recursive: true });
      const memdEnv = { MEMD_PROJECTS_DIR: projects };
      const cwd = join(sandbox.root, 'project');
      mkdirSync(cwd);
      answerFirstRun(claudeDir, cwd, API_KEY);
      for (const install of ['install-hooks', 'install-statusline', 'install-mcp']) {
        const run = await runMemctl(sandbox, [install], memdEnv);
        expect(run, `${install}: ${run.stderr}`).toMatchObject({ code: 0, stderr: '' });
      }
      const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
      cleanups.push(() => client.close());
      await expect(client.daemonStatus()).rejects.toThrow();

      const api = await startStreamingMessagesApi({ apiKey: API_KEY });
      cleanups.push(() => api.close());
      api.script({
        kind: 'text',
        text: REPLY,
        usage: { input_tokens: 4, cache_creation_input_tokens: 30_000, cache_read_input_tokens: 0, output_tokens: 12 },
      });
      const env = { ...claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, API_KEY), TERM: 'xterm-256color' };
      const tmux = await startTmux({
        socket: join(sandbox.root, 'tmux.sock'),
        cwd,
        env,
        command: claudeCommand(['--model', 'claude-sonnet-4-5', '--session-id', sessionId]),
        width: 200,
        height: 50,
      });
      cleanups.push(() => tmux.kill());
      await tmux.waitFor((screen) => screen.includes('❯'), 'the prompt', CLAUDE_DEADLINE_MS);
      // Claude Code's SessionStart hook started memd, detached.
      await eventually(
        async () => (await client.daemonStatus().catch(() => null)) !== null,
        'memd to answer, started by the SessionStart hook',
        CLAUDE_DEADLINE_MS,
      );

      await tmux.sendKeys(['Say hello'], { literal: true });
      await tmux.waitFor((screen) => /❯\sSay hello/.test(screen), 'the typed prompt');
      await tmux.sendKeys(['Enter']);
      const memdLine = /▕[█░]{8}▏ (\d+)% context used · (\d+)K left · 0 compactions/;
      const screen = await tmux.waitFor(
        (text) => text.includes(REPLY) && memdLine.test(text),
        "the reply and memd's status line with its figures",
        CLAUDE_DEADLINE_MS,
      );
      expect(screen).not.toMatch(/no memd/);
      const summary = await client.sessionsGet({ sessionId });
      const [, percent, left] = memdLine.exec(screen) as RegExpExecArray;
      expect(Number(percent)).toBe(summary.threshold.percentUsed);
      expect(Number(left)).toBe(Math.round(summary.threshold.tokensLeft / 1000));
      // The MCP server is registered where Claude Code reads it.
      const doctor = await runMemctl(sandbox, ['doctor'], memdEnv);
      expect(doctor.stdout).toMatch(/ok +mcp +memctl mcp registered in /);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
