/**
 * What background extraction may spend (issue 16): with the anthropic summarizer it runs on the
 * user's key, so a daily budget stops it for the day, `memctl memory pause` stops it until resumed
 * (across restarts), and status shows the spend today and per session. Requested extractions run
 * whatever the budget or the pause say. The anthropic compaction summary and handoff narrative
 * spend on the same key: the ledger keeps each kind apart and the budget counts them all (issue 32).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { SESSION_MEMORY_TEMPLATE } from '../../daemon/extraction/template.js';
import { sessionSummaryPath } from '../../shared/paths.js';
import { SUMMARY_SECTIONS } from '../../shared/transcript/compaction-texts.js';
import { createClient } from '../helpers/client.js';
import { type Manifest, manifest } from '../helpers/fixtures.js';
import { appendPrompt, copyFixtureProjects } from '../helpers/ingest.js';
import { startMessagesApi } from '../helpers/messages-api.js';
import { eventually, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
const compactions = manifest('compactions');
const corrections = manifest('corrections');
const MODEL_NOTES = SESSION_MEMORY_TEMPLATE.replace(/^(_.+_)$/gm, '$1\nNotes from the model.').trim();

const transcriptOf = (sandbox: Sandbox, session: Manifest) =>
  join(sandbox.projectsDir, session.transcript.replace(/^projects\//, ''));
const summaryOf = (sandbox: Sandbox, session: Manifest) =>
  sessionSummaryPath(sandbox.projectsDir, session.transcript.split('/')[1] as string, session.sessionId);

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('the daily budget of background extraction', () => {
  it('stops background extraction for the day once spent, shows the spend, and still runs requested ones', async () => {
    const api = await startMessagesApi();
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop', 'corrections']);
    await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
      MEMD_EXTRACTION_DAILY_BUDGET_USD: '0.001',
    });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      // Haiku 4.5 at $1 / $5 per million: 2,000 in and 500 out is $0.0045, past the budget.
      api.script({ kind: 'text', text: MODEL_NOTES, usage: { input_tokens: 2_000, output_tokens: 500 } });
      const first = await runMemctl(sandbox, ['memory', 'extract', loop.sessionId]);
      expect(first.code).toBe(0);
      const status = await client.daemonStatus();
      expect(status.extraction.budget).toMatchObject({ dailyUsd: 0.001, reached: true });
      expect(status.extraction.budget.spentTodayUsd).toBeCloseTo(0.0045, 6);
      expect(status.extraction.spentToday).toEqual([
        { sessionId: loop.sessionId, usd: status.extraction.budget.spentTodayUsd },
      ]);
      expect((await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.spentUsd).toBeCloseTo(0.0045, 6);

      // A live change makes the other session due: its job waits for tomorrow, and no request is made.
      const requests = api.requests.length;
      appendPrompt(
        transcriptOf(sandbox, corrections),
        corrections.sessionId,
        'one more thing',
        '71000000-0000-4000-8000-000000000001',
      );
      await eventually(
        async () => (await client.daemonStatus()).extraction.jobs.queued === 1,
        'the background job to be queued',
      );
      expect(api.requests.length).toBe(requests);
      expect(existsSync(summaryOf(sandbox, corrections))).toBe(false);
      const printed = await runMemctl(sandbox, ['status']);
      expect(printed.stdout).toMatch(
        /spend +\$0\.00 of \$0\.00 today on extraction \(4be41908 \$0\.00\); budget reached, background extraction waits until tomorrow/,
      );

      // Asked for, it runs all the same (and counts).
      api.script({ kind: 'text', text: MODEL_NOTES, usage: { input_tokens: 1_000, output_tokens: 100 } });
      const asked = await runMemctl(sandbox, ['memory', 'extract', corrections.sessionId]);
      expect(asked.code).toBe(0);
      expect(existsSync(summaryOf(sandbox, corrections))).toBe(true);
      expect((await client.daemonStatus()).extraction.spentToday.map((spent) => spent.sessionId)).toEqual([
        loop.sessionId,
        corrections.sessionId,
      ]);
    } finally {
      client.close();
      await api.close();
    }
  });
});

describe('what the anthropic summarizer spends, in tokens', () => {
  it("reads the grown session's conversation prefix from the cache on the next extraction, and the ledger shows it", async () => {
    const api = await startMessagesApi({ cache: true });
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
    });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      // Only the requested extractions below: none in the background between them.
      expect((await runMemctl(sandbox, ['memory', 'pause'])).code).toBe(0);
      api.script({ kind: 'text', text: `<analysis>first</analysis>\n<summary>\n${MODEL_NOTES}\n</summary>` });
      expect((await runMemctl(sandbox, ['memory', 'extract', loop.sessionId])).code).toBe(0);
      const once = (await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.spentTokens;
      expect(once.cacheRead).toBe(0);
      expect(once.cacheWrite).toBeGreaterThan(0);

      const entries = (await client.sessionsGet({ sessionId: loop.sessionId })).entries;
      appendPrompt(
        transcriptOf(sandbox, loop),
        loop.sessionId,
        'one more thing',
        '71000000-0000-4000-8000-000000000003',
      );
      await eventually(
        async () => (await client.sessionsGet({ sessionId: loop.sessionId })).entries > entries,
        'the appended prompt to be ingested',
      );
      api.script({ kind: 'text', text: `<analysis>second</analysis>\n<summary>\n${MODEL_NOTES}\n</summary>` });
      expect((await runMemctl(sandbox, ['memory', 'extract', loop.sessionId])).code).toBe(0);
      const twice = (await client.sessionsGet({ sessionId: loop.sessionId })).sessionMemory.spentTokens;
      // What the first extraction wrote to the cache, the second read back.
      expect(twice.cacheRead).toBe(once.cacheWrite);
      expect(twice.cacheWrite).toBeGreaterThan(once.cacheWrite);
      const printed = await runMemctl(sandbox, ['status', loop.sessionId]);
      expect(printed.stdout).toMatch(/spent on it \(\S+ tokens read from cache\)/);
      const summary = await readFile(summaryOf(sandbox, loop), 'utf8');
      expect(summary).not.toContain('<summary>');
      expect(summary).not.toContain('second');
    } finally {
      client.close();
      await api.close();
    }
  });
});

describe('the spend of compactions and handoffs (issue 32)', () => {
  it('records the anthropic compaction summary and handoff narrative in the ledger by kind, and status shows them', async () => {
    const api = await startMessagesApi();
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions']);
    await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
      MEMD_MODEL: 'claude-haiku-4-5',
      MEMD_HANDOFF_MODEL: 'claude-sonnet-4-6',
    });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      // No background extraction takes the scripted replies below.
      expect((await runMemctl(sandbox, ['memory', 'pause'])).code).toBe(0);
      const modelSummary = SUMMARY_SECTIONS.map(
        (title, index) =>
          `${index + 1}. ${title}:\n   Idempotency keys for charges, expiring after 24 hours; section ${index + 1}.`,
      ).join('\n\n');
      // Haiku 4.5 at $1 / $5 per million: 2,000 in and 500 out is $0.0045, 1,000 read from the cache $0.0001.
      api.script({
        kind: 'text',
        text: `<analysis>notes</analysis><summary>${modelSummary}</summary>`,
        usage: {
          input_tokens: 2_000,
          output_tokens: 500,
          cache_read_input_tokens: 1_000,
          cache_creation_input_tokens: 0,
        },
      });
      const compacted = await client.compactAuto({ sessionId: compactions.sessionId, force: true });
      expect(compacted).toMatchObject({ method: 'summary', summary: modelSummary });
      const narrative = {
        task: 'Add idempotency keys to charges',
        completedTasks: ['keys stored'],
        currentState: ['expiry pending'],
        issues: [],
        openQuestions: [],
        nextSteps: ['expire keys after 24 hours'],
        resumePrompt: 'Continue with the expiry.',
      };
      // Sonnet 4.6 at $3 / $15 per million: $0.0135.
      api.script({
        kind: 'text',
        text: JSON.stringify(narrative),
        usage: { input_tokens: 2_000, output_tokens: 500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      });
      const cwd = join(sandbox.root, 'payments');
      mkdirSync(cwd);
      expect((await runMemctl(sandbox, ['handoff', compactions.sessionId, '--cwd', cwd])).code).toBe(0);
      expect(api.requests).toHaveLength(2);

      const { sessionMemory } = await client.sessionsGet({ sessionId: compactions.sessionId });
      expect(sessionMemory.spentUsd).toBe(0);
      expect(sessionMemory.spentByKind?.map((spent) => [spent.kind, spent.runs, spent.tokens])).toEqual([
        ['compaction', 1, { input: 2_000, output: 500, cacheRead: 1_000, cacheWrite: 0 }],
        ['handoff', 1, { input: 2_000, output: 500, cacheRead: 0, cacheWrite: 0 }],
      ]);
      expect(sessionMemory.spentByKind?.[0]?.usd).toBeCloseTo(0.0046, 9);
      expect(sessionMemory.spentByKind?.[1]?.usd).toBeCloseTo(0.0135, 9);
      const { budget, spentToday } = (await client.daemonStatus()).extraction;
      expect(budget.spentTodayUsd).toBeCloseTo(0.0181, 9);
      expect(budget.byKind?.extraction).toBe(0);
      expect(budget.byKind?.compaction).toBeCloseTo(0.0046, 9);
      expect(spentToday.map((spent) => spent.sessionId)).toEqual([compactions.sessionId]);

      expect((await runMemctl(sandbox, ['status'])).stdout).toMatch(
        /spend +\$0\.02 of \$1\.00 today on compaction \$0\.00, handoff \$0\.01 \(\w{8} \$0\.02\)/,
      );
      expect((await runMemctl(sandbox, ['status', compactions.sessionId])).stdout).toMatch(
        /api spend compaction \$0\.0046 \(1 call, 1(\.0)?K tokens read from cache\), handoff \$0\.0135 \(1 call\)/,
      );
    } finally {
      client.close();
      await api.close();
    }
  });
});

describe('memctl memory pause and resume', () => {
  it('holds background extraction until resumed, across a restart, and says so in status', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    let client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    const paused = await runMemctl(sandbox, ['memory', 'pause']);
    expect(paused.stdout).toContain('background session-memory extraction paused');
    expect((await client.daemonStatus()).extraction.paused).toBe(true);

    client.close();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    await startDaemon(sandbox);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up after the restart');
    expect((await client.daemonStatus()).extraction.paused).toBe(true);
    expect((await runMemctl(sandbox, ['status'])).stdout).toContain(
      'background extraction paused (memctl memory resume)',
    );

    appendPrompt(transcriptOf(sandbox, loop), loop.sessionId, 'one more thing', '71000000-0000-4000-8000-000000000002');
    await eventually(
      async () => (await client.daemonStatus()).extraction.jobs.queued === 1,
      'the background job to be queued',
    );
    expect(existsSync(summaryOf(sandbox, loop))).toBe(false);

    const resumed = await runMemctl(sandbox, ['memory', 'resume', '--json']);
    expect(JSON.parse(resumed.stdout)).toEqual({ paused: false });
    await eventually(() => existsSync(summaryOf(sandbox, loop)), 'the held job to run once resumed');
    client.close();
  });
});
