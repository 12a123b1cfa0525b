/**
 * Records test/fixtures/forecast/: a real Claude Code 2.1.197 session, one `claude -p` run per
 * turn (`--session-id`, then `--resume`), against a scripted streaming Messages API whose replies
 * report a growing, irregular context, so that Claude Code itself auto-compacts at its
 * auto-compact window (CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 on Sonnet 4.5: at 67,000 tokens).
 * bench/forecast.js replays it into memd and checks usage.status's forecasts against it.
 *
 * Run by hand only (it rewrites the fixture): MEMD_CLAUDE_BIN names the `claude` executable and
 * MEMD_FORECAST_RECORD the directory to write, in a network namespace with loopback only:
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/path/to/claude \
 *     MEMD_FORECAST_RECORD=test/fixtures/forecast/auto-compact \
 *     npx vitest run test/integration/claude-code-forecast-recording.test.ts'
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerFirstRun, CLAUDE_BIN, claudeCodeEnv, claudeCommand } from '../helpers/claude-code.js';
import { makeSandbox } from '../helpers/sandbox.js';
import { seededRandom } from '../helpers/seeded-random.mjs';
import { type StreamingMessagesApi, startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';

const OUT = process.env.MEMD_FORECAST_RECORD ?? '';
const TITLE =
  CLAUDE_BIN === '' || OUT === ''
    ? 'recording the forecast fixture (skipped: set MEMD_CLAUDE_BIN and MEMD_FORECAST_RECORD, in a network namespace with loopback only)'
    : `recording the forecast fixture with ${CLAUDE_BIN} into ${OUT}`;

const API_KEY = 'test-key';
const MODEL = 'claude-sonnet-4-5';
const SESSION_ID = 'f03eca57-0000-4000-8000-000000000031';
/** Where the recording's paths are rewritten to, as test/fixtures/claude-code/ does. */
const NEUTRAL_CWD = '/home/user/src/forecast';
const NEUTRAL_PROJECT_DIR = '-home-user-src-forecast';
const NEUTRAL_CLAUDE_DIR = '/home/user/.claude';
/** Enough turns for two auto-compactions at the pace below. */
const TURNS = 36;
/** Claude Code's window for the session: with Sonnet 4.5's 20,000 reserve, auto-compact at 67,000. */
const AUTO_COMPACT_WINDOW = '100000';
/** The first request's context (system prompt, tools, CLAUDE.md) as a real session's is, roughly. */
const START_CONTEXT = 16_000;
/** What a compaction leaves: the summary and the re-read files, roughly. */
const AFTER_COMPACT_CONTEXT = 14_000;
const SEED = 31;
const TURN_DEADLINE_MS = 90_000;
const SUMMARY =
  '<analysis>Replay session.</analysis>\n<summary>The user asks for small changes turn by turn.</summary>';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function isCompaction(body: unknown): boolean {
  const messages = (body as { messages?: unknown } | null)?.messages;
  const last = Array.isArray(messages) ? messages[messages.length - 1] : undefined;
  return JSON.stringify(last ?? null).includes('an <analysis> block followed by a <summary> block');
}

function offersTools(body: unknown): boolean {
  const tools = (body as { tools?: unknown } | null)?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/** Irregular growth per turn: mostly small edits, sometimes a big read or test log. */
function growthOf(random: () => number): number {
  const roll = random();
  if (roll < 0.15) return 9_000 + Math.round(random() * 5_000);
  if (roll < 0.35) return 300 + Math.round(random() * 700);
  return 1_500 + Math.round(random() * 3_500);
}

function runClaude(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  const [command, ...rest] = claudeCommand(args) as [string, ...string[]];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, rest, { cwd, env, stdio: ['ignore', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), TURN_DEADLINE_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
}

describe.skipIf(CLAUDE_BIN === '' || OUT === '')(TITLE, () => {
  it(
    'drives Claude Code turn by turn past its auto-compact point and writes the transcript and manifest',
    async () => {
      const sandbox = makeSandbox();
      const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
      mkdirSync(join(claudeDir, 'projects'), { recursive: true });
      const cwd = join(sandbox.root, 'project');
      mkdirSync(cwd);
      // A turn's reply reads what is in context when it is asked: after a compaction, only what it left.
      const now = { turnStart: 0, context: START_CONTEXT, compacted: false };
      const api: StreamingMessagesApi = await startStreamingMessagesApi({
        apiKey: API_KEY,
        isScripted: (body) => offersTools(body) && !isCompaction(body),
        beforeReply: async (_request, step) => {
          now.compacted = api.requests
            .slice(now.turnStart)
            .some((request) => request.path === '/v1/messages' && isCompaction(request.body));
          if (step?.usage !== undefined && now.compacted) step.usage.cache_read_input_tokens = AFTER_COMPACT_CONTEXT;
        },
        sideReplyText: SUMMARY,
        maxRequests: TURNS * 8,
      });
      cleanups.push(() => api.close());
      answerFirstRun(claudeDir, cwd, API_KEY);
      const env = {
        ...claudeCodeEnv(sandbox.env, api.url, API_KEY),
        CLAUDE_CODE_AUTO_COMPACT_WINDOW: AUTO_COMPACT_WINDOW,
      };
      const random = seededRandom(SEED);
      const turns: { turn: number; context: number; growth: number; compactedBefore: boolean }[] = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        now.turnStart = api.requests.length;
        now.compacted = false;
        const growth = growthOf(random);
        api.script({
          kind: 'text',
          text: `Turn ${turn}: done; the change is in place and the tests pass.`,
          usage: {
            input_tokens: 3 + Math.round(random() * 40),
            cache_read_input_tokens: now.context,
            cache_creation_input_tokens: growth,
            output_tokens: 120 + Math.round(random() * 900),
          },
        });
        const session = turn === 1 ? ['--session-id', SESSION_ID] : ['--resume', SESSION_ID];
        const prompt = `Step ${turn}: change module_${turn}.ts as planned and run its tests.`;
        const code = await runClaude(['-p', prompt, '--model', MODEL, ...session], cwd, env);
        expect(code, `claude -p, turn ${turn}`).toBe(0);
        expect(api.pending(), `turn ${turn} took its scripted reply`).toBe(0);
        const read = now.compacted ? AFTER_COMPACT_CONTEXT : now.context;
        now.context = read + growth;
        turns.push({ turn, context: now.context, growth, compactedBefore: now.compacted });
      }

      const projectDir = readdirSync(join(claudeDir, 'projects'))[0] as string;
      const transcript = readFileSync(join(claudeDir, 'projects', projectDir, `${SESSION_ID}.jsonl`), 'utf8');
      const neutral = transcript
        .split(claudeDir)
        .join(NEUTRAL_CLAUDE_DIR)
        .split(cwd)
        .join(NEUTRAL_CWD)
        .split(projectDir)
        .join(NEUTRAL_PROJECT_DIR);
      const out = resolve(OUT);
      rmSync(out, { recursive: true, force: true });
      mkdirSync(join(out, 'projects', NEUTRAL_PROJECT_DIR), { recursive: true });
      writeFileSync(join(out, 'projects', NEUTRAL_PROJECT_DIR, `${SESSION_ID}.jsonl`), neutral);
      writeFileSync(
        join(out, 'manifest.json'),
        `${JSON.stringify(
          {
            sessionId: SESSION_ID,
            model: MODEL,
            claudeCodeEnv: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: AUTO_COMPACT_WINDOW },
            seed: SEED,
            turns,
          },
          null,
          2,
        )}\n`,
      );
    },
    TURNS * TURN_DEADLINE_MS,
  );
});
