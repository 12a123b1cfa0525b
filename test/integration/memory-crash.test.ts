/**
 * kill -9 of the daemon while an extraction runs: after a restart the job runs again, and
 * summary.md is never torn (it is absent or old until the new text replaces it whole).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { hasAllSections, SESSION_MEMORY_TEMPLATE, stripInstructions } from '../../daemon/extraction/template.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { startMessagesApi } from '../helpers/messages-api.js';
import { eventually, makeSandbox, startDaemon } from '../helpers/sandbox.js';

const FILLED = SESSION_MEMORY_TEMPLATE.replace(/^(_.*_)$/gm, '$1\n\nWritten after the restart.');

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('an extraction interrupted by kill -9', () => {
  it('runs again after the restart and leaves summary.md whole', async () => {
    const api = await startMessagesApi();
    try {
      // The first attempt hangs in the model call; the daemon dies meanwhile.
      api.script(
        { kind: 'slow', delayMs: 30_000, then: { kind: 'text', text: FILLED } },
        { kind: 'text', text: FILLED },
      );
      const sandbox = makeSandbox();
      copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
      const env = { MEMD_SUMMARIZER: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url };
      const first = await startDaemon(sandbox, undefined, env);
      const sessionId = manifest('coding-loop').sessionId;
      let client = createClient({ env: sandbox.env, autostart: false });
      await eventually(() => caughtUp(client), 'ingest to catch up');
      const pending = client.memoryExtract({ sessionId }).catch((error: unknown) => error);
      await eventually(() => api.requests.length === 1, 'the model call to start');
      const path = (await client.memorySummary({ sessionId })).path;
      first.child.kill('SIGKILL');
      await first.exited;
      client.close();
      await pending;
      expect(existsSync(path)).toBe(false);

      await startDaemon(sandbox, undefined, env);
      client = createClient({ env: sandbox.env, autostart: false });
      try {
        await eventually(
          async () => (await client.memorySummary({ sessionId })).text !== null,
          'the job to run again',
          20_000,
        );
        const text = readFileSync(path, 'utf8');
        // The model's reply, without the template's instructions (issue 32: they stay out of summary.md).
        expect(text.trim()).toBe(stripInstructions(FILLED).trim());
        expect(hasAllSections(text)).toBe(true);
        // The file is written under the lock, and the job recorded done just after: waited for, not raced.
        await eventually(
          async () => (await client.daemonStatus()).extraction.jobs.done === 1,
          'the job to be recorded done',
        );
        expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ done: 1, running: 0, queued: 0 });
        expect(api.requests.length).toBe(2);
        // Tokens and cost of the extraction, at the summarizer model's (claude-haiku-4-5) prices.
        const recorded = await client.memorySummary({ sessionId });
        expect(recorded).toMatchObject({ summarizer: 'anthropic' });
        expect(recorded.inputTokens).toBeGreaterThan(0);
        expect(recorded.costUsd).toBeGreaterThan(0);
      } finally {
        client.close();
      }
    } finally {
      await api.close();
    }
  }, 60_000);
});
