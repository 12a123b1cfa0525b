/**
 * Sync with the real Claude Code (2.1.197): a session run on the "laptop" reaches the "desktop"
 * through the sync folder (rsync), is restored there byte for byte, and `claude --resume` goes on
 * with it on the desktop; the desktop's turn comes back to the laptop, and both count each response
 * once. Optional (MEMD_CLAUDE_BIN, in a network namespace with loopback only), as the other
 * Claude Code tests.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionList } from '../../shared/protocol/sessions.js';
import type { UsageReportResult } from '../../shared/protocol/usage.js';
import {
  answerFirstRun,
  type ClaudeRun,
  claudeCodeEnv,
  claudeCodeRuns,
  claudeCodeSuiteTitle,
  runClaudeCode,
} from '../helpers/claude-code.js';
import { eventually, runMemctl } from '../helpers/sandbox.js';
import { type StreamingMessagesApi, startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';
import {
  call,
  carryAll,
  type Machine,
  makeMachine,
  rsyncUsable,
  start,
  stop,
  syncStatus,
} from '../helpers/sync-pair.js';

const API_KEY = 'test-key';
const MODEL = 'claude-sonnet-4-5';
const SESSION_ID = '5e55e55e-0000-4000-8000-0000000055cc';
/** Claude Code starts in a few seconds; memd catches up with it in well under one. */
const CLAUDE_DEADLINE_MS = 60_000;

interface Place {
  machine: Machine;
  cwd: string;
  projects: string;
  env: NodeJS.ProcessEnv;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A machine whose memd watches the projects dir its Claude Code writes to. */
function place(name: string, api: StreamingMessagesApi): Place {
  const machine = makeMachine(name);
  const claudeDir = machine.sandbox.env.CLAUDE_CONFIG_DIR as string;
  const projects = join(claudeDir, 'projects');
  mkdirSync(projects, { recursive: true });
  machine.sandbox.env.MEMD_PROJECTS_DIR = projects;
  const cwd = join(machine.sandbox.root, 'project');
  mkdirSync(cwd);
  answerFirstRun(claudeDir, cwd, API_KEY);
  cleanups.push(() => stop(machine));
  return { machine, cwd, projects, env: claudeCodeEnv(machine.sandbox.env, api.url, API_KEY) };
}

function runClaude(at: Place, args: string[]): Promise<ClaudeRun> {
  return runClaudeCode(args, { cwd: at.cwd, env: at.env, deadlineMs: CLAUDE_DEADLINE_MS });
}

const folderOf = (cwd: string) => cwd.replaceAll(/[^a-zA-Z0-9]/g, '-');
const totals = async (machine: Machine) =>
  (await call<UsageReportResult>(machine, 'usage.report', { timezone: 'UTC' })).totals;
const listed = async (machine: Machine) =>
  (await call<SessionList>(machine, 'sessions.list', { all: true })).sessions.find(
    (row) => row.sessionId === SESSION_ID,
  );
const usage = (input: number, output: number) => ({
  input_tokens: input,
  cache_creation_input_tokens: 1_000,
  cache_read_input_tokens: 0,
  output_tokens: output,
});

describe.skipIf(!claudeCodeRuns(false) || rsyncUsable() !== null)(
  claudeCodeSuiteTitle('a session restored from another machine resumes in real Claude Code', false),
  () => {
    it('restored byte for byte, resumed with claude --resume, and its responses counted once on both machines', async () => {
      const api = await startStreamingMessagesApi({ apiKey: API_KEY });
      cleanups.push(() => api.close());
      const laptop = place('laptop', api);
      const desktop = place('desktop', api);
      await Promise.all([start(laptop.machine), start(desktop.machine)]);

      api.script({ kind: 'text', text: 'Hello from the laptop.', usage: usage(3, 7) });
      const first = await runClaude(laptop, [
        '-p',
        'Say hello',
        '--model',
        MODEL,
        '--session-id',
        SESSION_ID,
        '--output-format',
        'json',
      ]);
      expect(first, first.stderr).toMatchObject({ code: 0 });
      const laptopFile = join(laptop.projects, folderOf(laptop.cwd), `${SESSION_ID}.jsonl`);
      // A live transcript is archived after five quiet minutes or at shutdown: the laptop stops, as a user's would.
      await eventually(
        async () => (await listed(laptop.machine)) !== undefined,
        'the laptop indexes the session',
        CLAUDE_DEADLINE_MS,
      );
      await stop(laptop.machine);
      await start(laptop.machine);
      await eventually(async () => ((await syncStatus(laptop.machine)).self?.files ?? 0) >= 1, 'the laptop mirrors it');

      carryAll([laptop.machine, desktop.machine]);
      await eventually(async () => (await listed(desktop.machine))?.devices?.[0] === 'laptop', 'the desktop lists it');
      // Restored into the desktop's own project folder (its cwd differs from the laptop's).
      const target = join(desktop.projects, folderOf(desktop.cwd));
      const restored = await runMemctl(desktop.machine.sandbox, ['archive', 'restore', SESSION_ID, '--to', target]);
      expect(restored.code, restored.stderr).toBe(0);
      const desktopFile = join(target, `${SESSION_ID}.jsonl`);
      expect(readFileSync(desktopFile).equals(readFileSync(laptopFile))).toBe(true);

      api.script({ kind: 'text', text: 'Resumed on the desktop.', usage: usage(5, 11) });
      const resumed = await runClaude(desktop, [
        '-p',
        'Go on',
        '--resume',
        SESSION_ID,
        '--model',
        MODEL,
        '--output-format',
        'json',
      ]);
      expect(resumed, resumed.stderr).toMatchObject({ code: 0 });
      expect(JSON.parse(resumed.stdout)).toMatchObject({ result: 'Resumed on the desktop.' });
      const resumedId = (JSON.parse(resumed.stdout) as { session_id: string }).session_id;
      await stop(desktop.machine);
      await start(desktop.machine);

      // Both machines end with the same sessions and totals: the laptop's response once, the desktop's once.
      await eventually(
        async () => {
          carryAll([laptop.machine, desktop.machine]);
          const [a, b] = [await totals(laptop.machine), await totals(desktop.machine)];
          return a.responses >= 2 && JSON.stringify(a) === JSON.stringify(b);
        },
        'both machines count both responses',
        CLAUDE_DEADLINE_MS,
      );
      // The scripted replies' usage: 7 + 11 output tokens, each response counted once.
      expect(await totals(laptop.machine)).toMatchObject({ responses: 2, input: 8, output: 18 });
      const onLaptop = await call<SessionList>(laptop.machine, 'sessions.list', { all: true });
      expect(onLaptop.sessions.map((row) => row.sessionId)).toContain(resumedId);
    }, 240_000);
  },
);
