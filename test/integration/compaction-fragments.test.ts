/**
 * Issue 12 item 2 over a real daemon: `compact.auto` never replaces a conversation with a
 * fragment. Sessions are written in Claude Code 2.1's shapes (test/helpers/real-shapes.ts): tests
 * run in the background, each notice a `<task-notification>` user message holding a `<summary>`.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { startMessagesApi } from '../helpers/messages-api.js';
import { backgroundTaskSession, mainPath, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/poller';
const RAW_XML =
  /<\/?(?:task-notification|task-id|output-file|system-reminder|command-name|command-message|command-args)>/;
const FRAGMENT =
  '<analysis>The user ran tests.</analysis>\n<summary>Background command "Run SessionLive tests" completed (exit code 0)</summary>';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

function writeBackgroundSession(sandbox: Sandbox, sessionId: string, rounds: number): void {
  writeTranscript(mainPath(sandbox.projectsDir, CWD, sessionId), backgroundTaskSession(sessionId, CWD, rounds));
}

describe('compact.auto with no session memory', () => {
  it('summarizes a session full of task notifications offline in full, each notice one line, no generated XML', async () => {
    const sandbox = makeSandbox();
    const sessionId = '5e551071-0000-4000-8000-0000000000a1';
    writeBackgroundSession(sandbox, sessionId, 36);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      const result = await client.compactAuto({ sessionId, force: true });
      console.log(`offline, background-task session of 36 rounds: ${result.preTokens} → ${result.postTokens} tokens`);
      expect(result.method).toBe('summary');
      expect(result.fallback).toBeUndefined();
      expect(result.preTokens).toBeGreaterThan(50_000);
      expect(result.postTokens).toBeGreaterThan(result.preTokens * 0.01);
      expect(result.summary).toMatch(/^1\. Primary Request and Intent:\n {3}Make the SessionLive tests pass/);
      expect(result.summary).toContain('9. Optional Next Step:');
      expect(result.summary).toContain('"[background task "Run SessionLive tests 35" completed, exit 0]"');
      expect(result.summary).not.toMatch(RAW_XML);
      const printed = await runMemctl(sandbox, ['compact', sessionId, '--force']);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toContain('summary compaction of');
      expect(printed.stdout).not.toContain('fallback');
    } finally {
      client.close();
    }
  });

  it("replaces a model's fragment of a summary by the offline one, and counts it in the circuit breaker", async () => {
    const api = await startMessagesApi();
    try {
      const sandbox = makeSandbox();
      const sessionId = '5e551071-0000-4000-8000-0000000000a2';
      writeBackgroundSession(sandbox, sessionId, 36);
      await startDaemon(sandbox, undefined, {
        MEMD_SUMMARIZER: 'anthropic',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: api.url,
        MEMD_MODEL: 'claude-haiku-4-5',
      });
      const client = createClient({ env: sandbox.env, autostart: false });
      try {
        await eventually(() => caughtUp(client), 'ingest to catch up');
        api.script({ kind: 'text', text: FRAGMENT });
        const result = await client.compactAuto({ sessionId, force: true });
        console.log(
          `anthropic fragment, background-task session of 36 rounds: ${result.preTokens} → ${result.postTokens} tokens (fallback: ${result.fallback === undefined ? 'none' : 'offline'})`,
        );
        expect(api.requests).toHaveLength(1);
        expect(result.method).toBe('summary');
        expect(result.fallback).toMatchObject({
          from: 'summary',
          reason: expect.stringContaining('implausibly short'),
        });
        expect(result.summary).not.toContain('Background command');
        expect(result.summary).toMatch(/^1\. Primary Request and Intent:/);
        expect(result.postTokens).toBeGreaterThan(result.preTokens * 0.01);
        expect((await client.daemonStatus()).compaction.failing).toEqual([
          { sessionId, failures: 1, stopped: false, lastError: expect.stringContaining('implausibly short') },
        ]);

        api.script({ kind: 'text', text: FRAGMENT }, { kind: 'text', text: FRAGMENT });
        const printed = await runMemctl(sandbox, ['compact', sessionId, '--force']);
        expect(printed.stdout).toContain('fallback the offline summary: the summary is implausibly short');
        await client.compactAuto({ sessionId, force: true });
        expect((await client.daemonStatus()).compaction.failing).toMatchObject([
          { sessionId, failures: 3, stopped: true },
        ]);
      } finally {
        client.close();
      }
    } finally {
      await api.close();
    }
  });
});
