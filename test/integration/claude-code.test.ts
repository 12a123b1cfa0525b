/**
 * memd with the real Claude Code (2.1.197): `memctl install-hooks` and `memctl install-statusline`
 * set up in a sandboxed CLAUDE_CONFIG_DIR, Claude Code run against a scripted streaming Messages API
 * on 127.0.0.1, and what memd made of it checked against what the API answered.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code (its bin/claude.exe, or a cli.js run with node). Claude Code must never
 * reach the internet: run the test in a network namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/node_modules/.bin/claude \
 *     npx vitest run test/integration/claude-code.test.ts'
 *
 * The interactive test needs tmux on the PATH, and is skipped without it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { TURN_OWNER } from '../../client/memctl/quick/turn.js';
import type { SessionSummary } from '../../shared/protocol/sessions.js';
import { answerFirstRun, type ClaudeRun, claudeCodeEnv, claudeCommand, runClaudeCode } from '../helpers/claude-code.js';
import { createClient } from '../helpers/client.js';
import {
  type DaemonProcess,
  eventually,
  makeSandbox,
  runMemctl,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';
import {
  type RecordedRequest,
  type StreamingMessagesApi,
  startStreamingMessagesApi,
  type Usage,
} from '../helpers/streaming-messages-api.js';
import { startTmux } from '../helpers/tmux.js';

const CLAUDE_BIN = process.env.MEMD_CLAUDE_BIN ?? '';
const SUITE = 'memd with the real Claude Code';
const TITLE =
  CLAUDE_BIN === ''
    ? `${SUITE} (skipped: set MEMD_CLAUDE_BIN to the claude executable of @anthropic-ai/claude-code 2.1.197, and run it in a network namespace with loopback only)`
    : `${SUITE} (${CLAUDE_BIN})`;

/** The interactive test drives Claude Code's TUI through tmux; without it, that test is skipped. */
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** Claude Code starts in a few seconds; a turn against the local API takes well under one. */
const CLAUDE_TEST_TIMEOUT_MS = 120_000;
/** How long Claude Code may take to start and finish a scripted turn, or memd to catch up with it. */
const CLAUDE_DEADLINE_MS = 60_000;
const API_KEY = 'test-key';
const MODEL = 'claude-sonnet-4-5';

/** What a test opened, closed after it whatever happened (the sandbox's own cleanup then removes its files). */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  sandbox: Sandbox;
  daemon: DaemonProcess;
  client: Client;
  api: StreamingMessagesApi;
  /** The project Claude Code runs in. */
  cwd: string;
  claudeDir: string;
  /** Claude Code's environment (its hooks and status line inherit it). */
  env: NodeJS.ProcessEnv;
}

/**
 * A memd watching the sandbox's CLAUDE_CONFIG_DIR/projects (where Claude Code writes), memd's hooks
 * (and status line) installed there by memctl, and a scripted API. Claude Code's first-run dialogs
 * (theme, API key, folder trust) are answered in its global config beforehand.
 */
async function setUp(options: { statusLine: boolean; duringTurn?: (client: Client) => Promise<void> }): Promise<World> {
  const sandbox = makeSandbox();
  const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
  const projects = join(claudeDir, 'projects');
  mkdirSync(projects, { recursive: true });
  const memdEnv = { MEMD_PROJECTS_DIR: projects };
  const daemon = await startDaemon(sandbox, undefined, memdEnv);
  const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
  cleanups.push(() => client.close());

  const hooks = await runMemctl(sandbox, ['install-hooks'], memdEnv);
  expect(hooks).toMatchObject({ code: 0, stderr: '' });
  if (options.statusLine)
    expect(await runMemctl(sandbox, ['install-statusline'], memdEnv)).toMatchObject({ code: 0, stderr: '' });

  const cwd = join(sandbox.root, 'project');
  mkdirSync(cwd);
  const { duringTurn } = options;
  // Claude Code waits for the scripted answer in the middle of its turn.
  const api = await startStreamingMessagesApi({
    apiKey: API_KEY,
    ...(duringTurn === undefined ? {} : { beforeReply: () => duringTurn(client) }),
  });
  cleanups.push(() => api.close());
  answerFirstRun(claudeDir, cwd, API_KEY);
  const env = claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, API_KEY);
  return { sandbox, daemon, client, api, cwd, claudeDir, env };
}

function runClaude(world: World, args: string[]): Promise<ClaudeRun> {
  return runClaudeCode(args, { cwd: world.cwd, env: world.env, deadlineMs: CLAUDE_DEADLINE_MS });
}

/** The daemon's JSON log lines with this message. */
function logLines(daemon: DaemonProcess, msg: string): Record<string, unknown>[] {
  return daemon
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

function sumUsage(usages: Usage[]) {
  return {
    input: usages.reduce((sum, usage) => sum + usage.input_tokens, 0),
    output: usages.reduce((sum, usage) => sum + usage.output_tokens, 0),
    cacheCreation: usages.reduce((sum, usage) => sum + usage.cache_creation_input_tokens, 0),
    cacheRead: usages.reduce((sum, usage) => sum + usage.cache_read_input_tokens, 0),
  };
}

async function sessionOnceIndexed(
  client: Client,
  sessionId: string,
  assistantMessages: number,
): Promise<SessionSummary> {
  let summary: SessionSummary | undefined;
  await eventually(
    async () => {
      summary = await client.sessionsGet({ sessionId }).catch(() => undefined);
      return summary !== undefined && summary.usage.main.assistantMessages === assistantMessages;
    },
    `memd to index the session's ${assistantMessages} assistant messages`,
    CLAUDE_DEADLINE_MS,
  );
  return summary as SessionSummary;
}

/** The transcript Claude Code writes for a session started in `cwd`. */
function transcriptPath(world: World, sessionId: string): string {
  return join(world.claudeDir, 'projects', world.cwd.replaceAll(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
}

function transcriptEntries(world: World, sessionId: string): Record<string, unknown>[] {
  return readFileSync(transcriptPath(world, sessionId), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * What hooks put into the session for the model: hook attachments (`hook_success` with a hook's
 * stdout, `hook_additional_context`, hook errors). memd's turn and start-up hooks print nothing, so
 * Claude Code records none of them.
 */
function hookAttachments(entries: Record<string, unknown>[]): Record<string, unknown>[] {
  return entries.filter((entry) => {
    const type = (entry.attachment as { type?: unknown } | undefined)?.type;
    return typeof type === 'string' && type.startsWith('hook');
  });
}

/** Interactive Claude Code's record of each Stop's hooks (bookkeeping, not sent to the model). */
function stopHookSummaries(entries: Record<string, unknown>[]): Record<string, unknown>[] {
  return entries.filter((entry) => entry.type === 'system' && entry.subtype === 'stop_hook_summary');
}

/** The messages the model was sent, the sandbox's path (which holds "memd-t-") taken out. */
function messagesSent(world: World, request: RecordedRequest | undefined): string {
  return JSON.stringify((request?.body as { messages?: unknown } | null)?.messages ?? null).replaceAll(
    world.sandbox.root,
    '<sandbox>',
  );
}

/** The turn hooks' lock on this session, as the daemon logged taking and releasing it. */
function turnLockLog(
  world: World,
  sessionId: string,
): { taken: Record<string, unknown>[]; released: Record<string, unknown>[] } {
  const ours = (line: Record<string, unknown>) =>
    line.owner === TURN_OWNER && typeof line.dir === 'string' && line.dir.endsWith(`/${sessionId}/session-memory`);
  return {
    taken: logLines(world.daemon, 'memory lock taken').filter(ours),
    released: logLines(world.daemon, 'memory lock released').filter(ours),
  };
}

describe.skipIf(CLAUDE_BIN === '')(TITLE, () => {
  it(
    'claude -p with a tool call: memd indexes the session, the turn holds the lock, the hooks stay out of the context, the usage adds up',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-00000000c0de';
      const locksDuringTurn: unknown[] = [];
      const world = await setUp({
        statusLine: false,
        duringTurn: async (client) => void locksDuringTurn.push((await client.daemonStatus()).extraction.locks),
      });
      const { api } = world;
      api.script(
        {
          kind: 'tool_use',
          // A text block before the tool call: Claude Code writes one transcript entry per block, one API response.
          text: 'I will run it.',
          name: 'Bash',
          input: { command: 'echo hi', description: 'Print hi' },
          usage: {
            input_tokens: 3,
            cache_creation_input_tokens: 24_000,
            cache_read_input_tokens: 0,
            output_tokens: 40,
          },
        },
        {
          kind: 'text',
          text: 'The command printed hi.',
          usage: {
            input_tokens: 5,
            cache_creation_input_tokens: 200,
            cache_read_input_tokens: 24_000,
            output_tokens: 9,
          },
        },
      );
      const prompt = 'Run echo hi and tell me what it printed.';
      const run = await runClaude(world, [
        '-p',
        prompt,
        '--model',
        MODEL,
        '--session-id',
        sessionId,
        '--dangerously-skip-permissions',
        '--output-format',
        'json',
      ]);
      expect(run, run.stderr).toMatchObject({ code: 0 });
      const result = JSON.parse(run.stdout) as {
        result: string;
        session_id: string;
        modelUsage: Record<string, { costUSD: number }>;
      };
      expect(result).toMatchObject({ result: 'The command printed hi.', session_id: sessionId });

      // The script ran as written: the tool ran and its output went back to the model.
      expect(api.pending()).toBe(0);
      expect(api.unknown()).toEqual([]);
      expect(
        api.requests
          .map((request) => `${request.method} ${request.path} ${request.status}`)
          .filter((line) => !line.endsWith(' 200')),
      ).toEqual([]);
      const scripted = api.requests.filter((request) => request.scripted);
      expect(scripted).toHaveLength(2);
      expect(messagesSent(world, scripted[1])).toMatch(
        /"tool_use_id":"toolu_stream_0001","type":"tool_result","content":"hi"/,
      );

      // memd indexed the session as Claude Code wrote it.
      const summary = await sessionOnceIndexed(world.client, sessionId, 2);
      expect(summary).toMatchObject({
        cwd: world.cwd,
        model: MODEL,
        title: prompt,
        hasMainTranscript: true,
        badLines: 0,
        compactions: { count: 0 },
      });
      // Three entries for two responses: the first response's text and tool_use blocks are written apart.
      const entries = transcriptEntries(world, sessionId);
      expect(entries.filter((entry) => entry.type === 'assistant')).toHaveLength(3);

      // The turn held the session memory from the prompt to its end: at both API calls, and let go by Stop.
      const lockDir = join(world.claudeDir, 'projects', summary.project, sessionId, 'session-memory');
      expect(locksDuringTurn).toEqual([
        [expect.objectContaining({ owner: TURN_OWNER, sessionDir: lockDir })],
        [expect.objectContaining({ owner: TURN_OWNER, sessionDir: lockDir })],
      ]);
      await eventually(() => turnLockLog(world, sessionId).released.length > 0, 'the daemon to log the release');
      const log = turnLockLog(world, sessionId);
      expect(log.taken).toHaveLength(1);
      expect(log.released).toEqual([expect.objectContaining({ reason: 'unlocked' })]);
      expect(Date.parse(String(log.taken[0]?.time))).toBeLessThan(Date.parse(String(log.released[0]?.time)));
      expect(summary.sessionMemory.lock).toBeNull();
      expect((await world.client.daemonStatus()).extraction.locks).toEqual([]);

      // No hook of memd's said anything: nothing in the transcript, nothing in what the model was sent.
      expect(hookAttachments(entries)).toEqual([]);
      expect(stopHookSummaries(entries)).toEqual([]);
      for (const request of scripted)
        expect(messagesSent(world, request)).not.toMatch(/memd|memctl|user-prompt-submit-hook/i);
      expect(messagesSent(world, scripted[0])).toContain(prompt);

      // memd's accounting is the usage the API returned, counted once per response, and Claude Code's own cost.
      const sent = sumUsage(scripted.map((request) => request.reply?.usage as Usage));
      expect(summary.usage.main).toMatchObject({
        ...sent,
        cache5m: sent.cacheCreation,
        cache1h: 0,
        assistantMessages: 2,
      });
      expect(summary.usage.sidechain.assistantMessages).toBe(0);
      expect(summary.usage.main.costUsd).toBeCloseTo(result.modelUsage[MODEL]?.costUSD ?? Number.NaN, 9);
      const last = scripted[1]?.reply?.usage as Usage;
      expect(summary.contextTokens).toBe(
        last.input_tokens + last.cache_creation_input_tokens + last.cache_read_input_tokens + last.output_tokens,
      );
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it.skipIf(!HAS_TMUX)(
    "interactive, under tmux (skipped without tmux on the PATH): memd's status line shows memd's figures after one exchange, and Stop lets go of the lock",
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-0000000071e7';
      const locksDuringTurn: unknown[] = [];
      const world = await setUp({
        statusLine: true,
        duringTurn: async (client) => void locksDuringTurn.push((await client.daemonStatus()).extraction.locks),
      });
      const { api } = world;
      const reply = 'Hello from the scripted API.';
      api.script({
        kind: 'text',
        text: reply,
        usage: { input_tokens: 4, cache_creation_input_tokens: 30_000, cache_read_input_tokens: 0, output_tokens: 12 },
      });
      const tmux = await startTmux({
        socket: join(world.sandbox.root, 'tmux.sock'),
        cwd: world.cwd,
        env: { ...world.env, TERM: 'xterm-256color' },
        command: claudeCommand(['--model', MODEL, '--session-id', sessionId]),
        width: 200,
        height: 50,
      });
      cleanups.push(() => tmux.kill());
      // Ready for input, and the status line is memd's from the start: no transcript yet, so not indexed.
      await tmux.waitFor(
        (screen) => screen.includes('❯') && screen.includes('memd: not indexed yet'),
        'the prompt and the first status line',
        CLAUDE_DEADLINE_MS,
      );
      const prompt = 'Say hello';
      await tmux.sendKeys([prompt], { literal: true });
      // The prompt's marker is followed by a no-break space.
      await tmux.waitFor((screen) => new RegExp(`❯\\s${prompt}`).test(screen), 'the typed prompt');
      await tmux.sendKeys(['Enter']);
      // Sonnet 4.5 has no auto-compact window in 2.1.197: it compacts when the API refuses, and the
      // meter says "N% context used" of the window (reactive mode, issue 28).
      const memdLine = /▕[█░]{8}▏ (\d+)% context used · (\d+)K left · 0 compactions · mem \S+ · \$(\d+\.\d\d)(?: |$)/m;
      const screen = await tmux.waitFor(
        (text) => text.includes(reply) && memdLine.test(text),
        "the reply and memd's status line after it",
        CLAUDE_DEADLINE_MS,
      );

      const summary = await sessionOnceIndexed(world.client, sessionId, 1);
      const [, percent, thousandsLeft, cost] = memdLine.exec(screen) as RegExpExecArray;
      expect(summary.threshold.autoCompactMode).toBe('reactive');
      expect(Number(percent)).toBe(summary.threshold.percentUsed);
      expect(Number(thousandsLeft)).toBe(Math.round(summary.threshold.tokensLeft / 1000));
      expect(cost).toBe((summary.usage.total.costUsd ?? Number.NaN).toFixed(2));
      expect(screen).not.toMatch(/no memd|not indexed yet/);
      const usage = api.requests.find((request) => request.scripted)?.reply?.usage as Usage;
      expect(summary.contextTokens).toBe(
        usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens,
      );

      // The turn held the lock while the API answered, and Stop let go of it while Claude Code still runs.
      expect(locksDuringTurn).toEqual([
        [
          expect.objectContaining({
            owner: TURN_OWNER,
            sessionDir: expect.stringMatching(`/${sessionId}/session-memory$`),
          }),
        ],
      ]);
      await eventually(
        () => turnLockLog(world, sessionId).released.length > 0,
        'the Stop hook to release the lock',
        CLAUDE_DEADLINE_MS,
      );
      expect(turnLockLog(world, sessionId)).toMatchObject({
        taken: [expect.anything()],
        released: [expect.objectContaining({ reason: 'unlocked' })],
      });
      expect(await tmux.exited()).toBe(false);
      expect(api.pending()).toBe(0);
      expect(
        api.requests
          .map((request) => `${request.method} ${request.path} ${request.status}`)
          .filter((line) => !line.endsWith(' 200')),
      ).toEqual([]);
      // Its Stop hook (memd's only) said nothing and failed nothing, as Claude Code recorded it.
      await eventually(
        () => stopHookSummaries(transcriptEntries(world, sessionId)).length > 0,
        'the Stop hooks to be recorded',
      );
      const entries = transcriptEntries(world, sessionId);
      expect(stopHookSummaries(entries)).toEqual([
        expect.objectContaining({
          hookCount: 1,
          hookInfos: [expect.objectContaining({ command: expect.stringMatching(/bin\/memctl\.cjs' hook turn-end$/) })],
          hasOutput: false,
          hookErrors: [],
          hookAdditionalContext: [],
          preventedContinuation: false,
        }),
      ]);
      expect(hookAttachments(entries)).toEqual([]);

      // /exit: SessionEnd runs turn-end too, which finds nothing held and leaves nothing behind.
      await tmux.sendKeys(['/exit'], { literal: true });
      await tmux.waitFor((screen) => /❯\s\/exit/.test(screen), 'the typed /exit');
      await tmux.sendKeys(['Enter']);
      await eventually(() => tmux.exited(), 'Claude Code to exit', CLAUDE_DEADLINE_MS);
      expect(turnLockLog(world, sessionId).released).toHaveLength(1);
      expect((await world.client.daemonStatus()).extraction.locks).toEqual([]);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
