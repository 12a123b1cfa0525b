/**
 * Recall on each prompt with the real Claude Code (2.1.197, issue 33): after a prompt that matches
 * a past session, the passage memd recalled is in the model's request (UserPromptSubmit's
 * additionalContext, as Claude Code sends it); after one that matches nothing, nothing of memd's is.
 *
 * Optional: skipped unless MEMD_CLAUDE_BIN names the `claude` executable of the npm package
 * @anthropic-ai/claude-code. Claude Code must never reach the internet: run it in a network
 * namespace with loopback only, for example
 *
 *   unshare -n sh -c 'ip link set lo up && MEMD_CLAUDE_BIN=/opt/claude-code/node_modules/.bin/claude \
 *     npx vitest run test/integration/claude-code-recall.test.ts'
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerFirstRun,
  type ClaudeRun,
  claudeCodeEnv,
  claudeCodeRuns,
  claudeCodeSuiteTitle,
  runClaudeCode,
} from '../helpers/claude-code.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';
import { startStreamingMessagesApi } from '../helpers/streaming-messages-api.js';

const TITLE = claudeCodeSuiteTitle('recall in the real Claude Code', false);
const CLAUDE_TEST_TIMEOUT_MS = 150_000;
const CLAUDE_DEADLINE_MS = 60_000;
const API_KEY = 'test-key';
const MODEL = 'claude-sonnet-4-5';
const PAST = 'a0330000-0000-4000-8000-0000000cc033';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runClaude(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<ClaudeRun> {
  return runClaudeCode(args, { cwd, env, deadlineMs: CLAUDE_DEADLINE_MS });
}

describe.skipIf(!claudeCodeRuns(false))(TITLE, () => {
  it(
    'puts a recalled passage in the request after a matching prompt, and nothing after an unrelated one',
    async () => {
      const sandbox = makeSandbox();
      const claudeDir = sandbox.env.CLAUDE_CONFIG_DIR as string;
      const projects = join(claudeDir, 'projects');
      mkdirSync(projects, { recursive: true });
      const cwd = join(sandbox.root, 'project');
      mkdirSync(cwd);
      // A past session of this project, as Claude Code would have written it.
      const past = new TranscriptWriter({ sessionId: PAST, cwd, version: '2.1.197' });
      past.prompt('The checkout retry test is flaky: it times out waiting for the payment webhook.');
      past.response(
        [{ type: 'text', text: 'Fixed the flaky checkout retry test: the payment webhook stub now answers at once.' }],
        growingUsage(0),
      );
      writeTranscript(mainPath(projects, cwd, PAST), past);
      // This machine is shared: the hooks give memd more than their 35 ms (no assertion is timed).
      const memdEnv = { MEMD_PROJECTS_DIR: projects, MEMD_RECALL_DEADLINE_MS: '4000' };
      await startDaemon(sandbox, undefined, memdEnv);
      const client = createClient({ env: { ...sandbox.env, ...memdEnv }, autostart: false });
      cleanups.push(() => client.close());
      await eventually(
        async () => ((await client.searchQuery({ query: 'webhook' }).catch(() => null))?.hits.length ?? 0) > 0,
        'the past session to be indexed',
      );
      expect(await runMemctl(sandbox, ['install-hooks'], memdEnv)).toMatchObject({ code: 0, stderr: '' });
      const api = await startStreamingMessagesApi({ apiKey: API_KEY });
      cleanups.push(() => api.close());
      answerFirstRun(claudeDir, cwd, API_KEY);
      const env = claudeCodeEnv({ ...sandbox.env, ...memdEnv }, api.url, API_KEY);

      const sent = async (prompt: string, sessionId: string) => {
        api.script({ kind: 'text', text: 'Noted.' });
        const from = api.requests.length;
        const run = await runClaude(['-p', prompt, '--model', MODEL, '--session-id', sessionId], cwd, env);
        expect(run, run.stderr).toMatchObject({ code: 0 });
        const scripted = api.requests.slice(from).filter((request) => request.scripted);
        expect(scripted).toHaveLength(1);
        return JSON.stringify((scripted[0]?.body as { messages?: unknown } | null)?.messages ?? null);
      };
      const matching = await sent(
        'How did we fix the flaky checkout retry test that timed out on the payment webhook?',
        'a0330000-0000-4000-8000-0000000cc034',
      );
      expect(matching).toContain('memd recall:');
      expect(matching).toContain(`memctl search --context ${PAST.slice(0, 8)}:`);
      expect(matching).toContain('payment webhook stub now answers at once');
      const unrelated = await sent(
        'Draft the quarterly invoice export as a landscape PDF',
        'a0330000-0000-4000-8000-0000000cc035',
      );
      expect(unrelated).not.toContain('memd recall:');
    },
    CLAUDE_TEST_TIMEOUT_MS,
  );
});
