/**
 * The window and the tokens left that memd shows, beside what the real Claude Code (2.1.197)
 * shows for the same session (issue 28): its `/context` (`30k/1m tokens`, `Free space: 970k`),
 * memd's status line under it, and `memctl status SESSION`; on the default model (Opus 4.8, 1M)
 * and on a 200K model; and the auto-compact point, with and without an auto-compact window.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code, and without tmux. Claude Code must never reach the internet: run it in
 * a network namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/node_modules/.bin/claude \
 *     npx vitest run test/integration/claude-code-window.test.ts'
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ThresholdResult } from '../../shared/protocol/sessions.js';
import {
  answerFirstRun,
  claudeCodeEnv,
  claudeCodeRuns,
  claudeCodeSuiteTitle,
  claudeCommand,
} from '../helpers/claude-code.js';
import { createClient } from '../helpers/client.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';
import { type StreamingMessagesApi, startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';
import { startTmux, type TmuxSession } from '../helpers/tmux.js';

const TITLE = claudeCodeSuiteTitle("memd's window beside Claude Code's /context", true);

const CLAUDE_TEST_TIMEOUT_MS = 150_000;
/** How long Claude Code may take to start and answer, or memd to catch up with it. */
const CLAUDE_DEADLINE_MS = 60_000;
const API_KEY = 'test-key';
const REPLY = 'Hello from the scripted API.';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Run {
  tmux: TmuxSession;
  api: StreamingMessagesApi;
  memctl: (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;
  threshold: () => Promise<ThresholdResult>;
}

/**
 * Claude Code in tmux with memd's hooks and status line, one exchange whose response reports
 * `contextTokens` of cache writes. `env` goes to both Claude Code and memd (the daemon's
 * environment supplies Claude Code's overrides, as a user's systemd unit would).
 */
async function exchange(
  sessionId: string,
  options: { model?: string; contextTokens: number; env?: Record<string, string> },
): Promise<Run> {
  const sandbox = makeSandbox();
  const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
  const projects = join(claudeDir, 'projects');
  mkdirSync(projects, { recursive: true });
  const memdEnv = { MEMD_PROJECTS_DIR: projects, ...options.env };
  await startDaemon(sandbox, undefined, memdEnv);
  const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
  cleanups.push(() => client.close());
  expect(await runMemctl(sandbox, ['install-hooks'], memdEnv)).toMatchObject({ code: 0, stderr: '' });
  expect(await runMemctl(sandbox, ['install-statusline'], memdEnv)).toMatchObject({ code: 0, stderr: '' });
  const cwd = join(sandbox.root, 'project');
  mkdirSync(cwd);
  const api = await startStreamingMessagesApi({ apiKey: API_KEY });
  cleanups.push(() => api.close());
  answerFirstRun(claudeDir, cwd, API_KEY);
  const env = {
    ...claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, API_KEY),
    // A user's Claude Code talks to api.anthropic.com; against any other base URL 2.1.197 runs its
    // native-1M models (Opus 4.8) at 200K. This makes it take the scripted API for the real one.
    _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL: '1',
    TERM: 'xterm-256color',
  };
  api.script({
    kind: 'text',
    text: REPLY,
    usage: {
      input_tokens: 4,
      cache_creation_input_tokens: options.contextTokens,
      cache_read_input_tokens: 0,
      output_tokens: 12,
    },
  });
  const model = options.model === undefined ? [] : ['--model', options.model];
  const tmux = await startTmux({
    socket: join(sandbox.root, 'tmux.sock'),
    cwd,
    env,
    command: claudeCommand([...model, '--session-id', sessionId]),
    width: 200,
    height: 60,
  });
  cleanups.push(() => tmux.kill());
  await tmux.waitFor((screen) => screen.includes('❯'), 'the prompt', CLAUDE_DEADLINE_MS);
  await typeLine(tmux, 'Say hello');
  await tmux.waitFor((screen) => screen.includes(REPLY), 'the reply', CLAUDE_DEADLINE_MS);
  const threshold = async () => (await client.sessionsGet({ sessionId })).threshold;
  await eventually(
    async () => (await client.sessionsGet({ sessionId }).catch(() => null))?.usage.main.assistantMessages === 1,
    'memd to index the response',
    CLAUDE_DEADLINE_MS,
  );
  return { tmux, api, memctl: (args) => runMemctl(sandbox, args, memdEnv), threshold };
}

/** The prompt's input row: the last line that starts with Claude Code's prompt marker. */
function inputRow(screen: string): string {
  const rows = screen.split('\n').filter((row) => row.startsWith('❯'));
  return (rows[rows.length - 1] ?? '❯').slice(1).trim();
}

async function typeLine(tmux: TmuxSession, text: string): Promise<void> {
  // A command run from its completion menu can leave its name in the input: cleared first.
  const left = inputRow(await tmux.capture());
  if (left !== '') await tmux.sendKeys(Array.from({ length: left.length }, () => 'BSpace'));
  await tmux.waitFor((screen) => inputRow(screen) === '', 'an empty input');
  await tmux.sendKeys([text], { literal: true });
  // The prompt's marker is followed by a no-break space.
  await tmux.waitFor(
    (screen) => screen.includes(`❯\u00a0${text}`) || screen.includes(`❯ ${text}`),
    `the typed ${text}`,
  );
  await tmux.sendKeys(['Enter']);
}

/** `30k` → 30,000; `18.4k` → 18,400; `1m` → 1,000,000. */
function tokensOf(text: string): number {
  const match = /^([\d.]+)([km]?)$/i.exec(text);
  if (match === null) throw new Error(`not a token count: ${text}`);
  const unit = { '': 1, k: 1_000, m: 1_000_000 }[(match[2] ?? '').toLowerCase()] ?? Number.NaN;
  return Math.round(Number(match[1]) * unit);
}

interface ContextView {
  used: number;
  window: number;
  percent: number;
  /** What /context counts as free: without an auto-compact window, the window less what is used. */
  free: number;
  autocompactBuffer: number | null;
}

/** Claude Code's /context, as it draws it. */
async function context(run: Run): Promise<ContextView> {
  await typeLine(run.tmux, '/context');
  const screen = await run.tmux.waitFor(
    (text) => /Free space|Autocompact buffer/.test(text) && /tokens \(\d+%\)/.test(text),
    'the /context view',
    CLAUDE_DEADLINE_MS,
  );
  const total = /([\d.]+[km]?)\/([\d.]+[km]?) tokens \((\d+)%\)/.exec(screen) as RegExpExecArray;
  const free = /Free space: ([\d.]+[km]?)/.exec(screen);
  const buffer = /Autocompact buffer: ([\d.]+[km]?) tokens/.exec(screen);
  return {
    used: tokensOf(total[1] as string),
    window: tokensOf(total[2] as string),
    percent: Number(total[3]),
    free: free === null ? 0 : tokensOf(free[1] as string),
    autocompactBuffer: buffer === null ? null : tokensOf(buffer[1] as string),
  };
}

/** memd's status line under Claude Code's prompt: its percentage, its words and the tokens left. */
async function memdLine(run: Run): Promise<{ percent: number; words: string; left: number }> {
  const line = /▕[█░]{8}▏ (\d+)% (context used|used of auto-compact) · ([\d.]+[KM]?) left/;
  const screen = await run.tmux.waitFor(
    (text) => line.test(text),
    "memd's status line with its figures",
    CLAUDE_DEADLINE_MS,
  );
  const [, percent, words, left] = line.exec(screen) as RegExpExecArray;
  return { percent: Number(percent), words: words as string, left: tokensOf(left as string) };
}

/** `memctl status SESSION`: its tokens left and its window. */
async function memctlStatus(run: Run, sessionId: string): Promise<{ left: number; window: number }> {
  const status = await run.memctl(['status', sessionId]);
  expect(status).toMatchObject({ code: 0, stderr: '' });
  const match = /, ([\d.]+[KM]?) tokens left · .* window ([\d.]+[KM]?)/.exec(status.stdout) as RegExpExecArray;
  return { left: tokensOf(match[1] as string), window: tokensOf(match[2] as string) };
}

/** Both round to the same thousand, as Claude Code and memd print them. */
function sameThousands(a: number, b: number): boolean {
  return Math.round(a / 1_000) === Math.round(b / 1_000);
}

/** Claude Code's compaction request: the conversation, then its summary instructions as the last user message. */
function isCompaction(body: unknown): boolean {
  const messages = (body as { messages?: unknown } | null)?.messages;
  const last = Array.isArray(messages) ? messages[messages.length - 1] : undefined;
  return JSON.stringify(last ?? null).includes('an <analysis> block followed by a <summary> block');
}

describe.skipIf(!claudeCodeRuns(true))(TITLE, () => {
  it(
    'the default model (Opus 4.8 at 1M): the same window and tokens left as /context, in the status line and memctl status',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-00000000a1f1';
      const run = await exchange(sessionId, { contextTokens: 30_000 });
      const cc = await context(run);
      const threshold = await run.threshold();
      expect(cc).toMatchObject({ window: 1_000_000, autocompactBuffer: null });
      expect(threshold).toMatchObject({ window: cc.window, autoCompactMode: 'reactive', tokens: 30_016 });
      expect(sameThousands(threshold.tokensLeft, cc.free)).toBe(true);
      expect(threshold.percentUsed).toBe(cc.percent);
      expect(await memdLine(run)).toEqual({ percent: cc.percent, words: 'context used', left: cc.free });
      expect(await memctlStatus(run, sessionId)).toEqual({ left: cc.free, window: cc.window });
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    'a 200K model (Sonnet 4.5) near its limit: the same window and tokens left, and no compaction before the next request',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-00000000a1f2';
      const run = await exchange(sessionId, { model: 'claude-sonnet-4-5', contextTokens: 175_000 });
      const cc = await context(run);
      const threshold = await run.threshold();
      expect(cc).toMatchObject({ window: 200_000, autocompactBuffer: null });
      expect(threshold).toMatchObject({ window: cc.window, autoCompactMode: 'reactive', state: 'error' });
      expect(sameThousands(threshold.tokensLeft, cc.free)).toBe(true);
      expect(threshold.percentUsed).toBe(cc.percent);
      expect(await memdLine(run)).toEqual({ percent: cc.percent, words: 'context used', left: cc.free });
      expect(await memctlStatus(run, sessionId)).toEqual({ left: cc.free, window: cc.window });

      // Past the old 167K point, the next prompt goes to the API as it is: 2.1.197 compacts only when refused.
      const before = run.api.requests.length;
      await typeLine(run.tmux, 'Say more');
      await eventually(
        () => run.api.requests.slice(before).some((request) => request.scripted),
        'the next request',
        CLAUDE_DEADLINE_MS,
      );
      expect(
        run.api.requests
          .slice(before)
          .filter((request) => request.path === '/v1/messages' && isCompaction(request.body)),
      ).toEqual([]);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );

  it(
    'with CLAUDE_CODE_AUTO_COMPACT_WINDOW: /context keeps an auto-compact buffer, memd counts to the same point, and Claude Code compacts there',
    async () => {
      const sessionId = '5e55e55e-0000-4000-8000-00000000a1f3';
      const run = await exchange(sessionId, {
        model: 'claude-sonnet-4-5',
        contextTokens: 150_000,
        env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' },
      });
      const cc = await context(run);
      const threshold = await run.threshold();
      expect(threshold).toMatchObject({ window: cc.window, autoCompactMode: 'threshold', autoCompactAt: 167_000 });
      // /context: what is used, the buffer above the auto-compact point, and the rest free.
      expect(cc.window - (cc.autocompactBuffer ?? 0)).toBe(threshold.autoCompactAt);
      expect(sameThousands(threshold.tokensLeft, cc.free)).toBe(true);
      expect(await memdLine(run)).toMatchObject({ words: 'used of auto-compact', left: cc.free });
      expect(await memctlStatus(run, sessionId)).toEqual({ left: cc.free, window: cc.window });

      // Past that point (memd: state autocompact), the next prompt makes Claude Code compact first.
      run.api.script({
        kind: 'text',
        text: REPLY,
        usage: {
          input_tokens: 4,
          cache_creation_input_tokens: 20_000,
          cache_read_input_tokens: 150_000,
          output_tokens: 12,
        },
      });
      await typeLine(run.tmux, 'Say more');
      await eventually(
        async () => (await run.threshold()).state === 'autocompact',
        'memd to reach the auto-compact point',
        CLAUDE_DEADLINE_MS,
      );
      const before = run.api.requests.length;
      await typeLine(run.tmux, 'And more');
      await eventually(() => run.api.requests.length > before + 1, 'the next requests', CLAUDE_DEADLINE_MS);
      const next = run.api.requests.slice(before).filter((request) => request.path === '/v1/messages');
      expect(next.map((request) => isCompaction(request.body))).toEqual([true, false]);
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
