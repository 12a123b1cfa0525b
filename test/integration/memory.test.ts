/** Session-memory extraction, its lock and its RPC methods over a real daemon. */
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { hasAllSections, SESSION_MEMORY_TEMPLATE, stripInstructions } from '../../daemon/extraction/template.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { type MessagesApi, startMessagesApi } from '../helpers/messages-api.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('session memory over a daemon', () => {
  let sandbox: Sandbox;
  let client: Client;
  const loop = manifest('coding-loop');

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
  });

  it('has no summary before the first extraction', async () => {
    expect(await client.memorySummary({ sessionId: loop.sessionId })).toMatchObject({
      text: null,
      lastUuid: null,
      summarizer: null,
    });
  });

  it('extracts on request: summary.md written whole, with all ten sections, recorded and announced', async () => {
    const events: unknown[] = [];
    await client.on('memory.extracted', (payload) => events.push(payload));
    const result = await client.memoryExtract({ sessionId: loop.sessionId });
    expect(result.summarizer).toBe('offline');
    expect(result.lastUuid).not.toBeNull();
    expect(existsSync(result.path)).toBe(true);
    const text = readFileSync(result.path, 'utf8');
    expect(text).toBe(result.text);
    expect(hasAllSections(text)).toBe(true);
    for (const file of loop.files.edited) expect(text).toContain(file.split('/').at(-1));
    await eventually(() => events.length > 0, 'memory.extracted');
    expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ done: 1, running: 0 });
  });

  it('does not compact by that session memory when it would keep the whole conversation and add the memory', async () => {
    // coding-loop's conversation is under the 10,000 tokens session memory keeps verbatim (issue
    // 28: a compaction never grows the context); compaction.test.ts compacts by session memory a
    // conversation it shrinks.
    const result = await client.compactAuto({ sessionId: loop.sessionId, force: true });
    expect(result.method).toBe('summary');
    expect(result.postTokens).toBeLessThan(result.preTokens);
  });

  it('memctl memory summary prints the file and its sections; memctl status counts the extraction', async () => {
    const run = await runMemctl(sandbox, ['memory', 'summary', loop.sessionId]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`session memory of ${loop.sessionId}`);
    expect(run.stdout).toContain('by the offline summarizer');
    expect(run.stdout).toContain('# Worklog');
    const status = await runMemctl(sandbox, ['status']);
    expect(status.stdout).toMatch(/memory +1 extractions done/);
    const usage = await runMemctl(sandbox, ['memory', 'nope']);
    expect(usage.code).toBe(2);
  });

  it('lets a main agent hold the lock; another owner is refused until it is released', async () => {
    expect(await client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-1', ttlMs: 30_000 })).toMatchObject({
      owner: 'agent-1',
    });
    await expect(client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-2' })).rejects.toMatchObject({
      code: 1003,
    });
    expect((await client.daemonStatus()).extraction.locks).toMatchObject([{ owner: 'agent-1' }]);
    expect(await client.memoryUnlock({ sessionId: loop.sessionId, owner: 'agent-1' })).toEqual({ released: true });
    expect(await client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-2' })).toMatchObject({
      owner: 'agent-2',
    });
    await client.memoryUnlock({ sessionId: loop.sessionId, owner: 'agent-2' });
  });

  it('answers memory.extract at once with Locked while an agent holds the lock, and runs it on request once released', async () => {
    const before = (await client.daemonStatus()).extraction.jobs.done ?? 0;
    await client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-1', ttlMs: 30_000 });
    const refused = await client.memoryExtract({ sessionId: loop.sessionId }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 1003, kind: 'Locked' });
    expect((refused as { data: { retryAt: string } }).data.retryAt).toMatch(/^\d{4}-/);
    expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ deferred: 1, running: 0, done: before });
    await client.memoryUnlock({ sessionId: loop.sessionId, owner: 'agent-1' });
    // The deferred job is made due by the request instead of waiting out its backoff.
    expect((await client.memoryExtract({ sessionId: loop.sessionId })).summarizer).toBe('offline');
    expect((await client.daemonStatus()).extraction.jobs).toMatchObject({ deferred: 0, done: before + 1 });
  });
});

describe('the anthropic summarizer over a daemon', () => {
  let api: MessagesApi;
  let client: Client;
  const loop = manifest('coding-loop');
  // What a model that keeps the structure answers: every heading and italic line, with notes under each.
  const modelNotes = SESSION_MEMORY_TEMPLATE.replace(/^(_.+_)$/gm, '$1\nNotes from the model.').trim();

  beforeAll(async () => {
    api = await startMessagesApi();
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    const daemon = await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
      MEMD_MODEL: 'claude-haiku-4-5',
    });
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return async () => {
      client.close();
      await api.close();
    };
  });

  it('retries an overloaded API, rejects a reply that lost the structure, and keeps the next one; tokens and cost recorded', async () => {
    const events: { rejectedReplies: number; summarizer: string }[] = [];
    await client.on('memory.extracted', (payload) => events.push(payload as (typeof events)[number]));
    api.script(
      { kind: 'status', status: 529, retryAfter: 0 },
      {
        kind: 'text',
        text: 'The session fixed the invoice service.',
        usage: { input_tokens: 1_000, output_tokens: 100 },
      },
      {
        kind: 'text',
        text: modelNotes,
        usage: { input_tokens: 1_200, output_tokens: 300, cache_read_input_tokens: 800 },
      },
    );
    const result = await client.memoryExtract({ sessionId: loop.sessionId });
    expect(result).toMatchObject({
      summarizer: 'anthropic',
      // Written without the template's instructions the model kept (issue 32).
      text: `${stripInstructions(modelNotes)}\n`,
      inputTokens: 2_200,
      outputTokens: 400,
    });
    expect(result.costUsd).toBeGreaterThan(0);
    expect(api.pending()).toBe(0);
    expect(api.requests.map((request) => request.status)).toEqual([529, 200, 200]);
    for (const request of api.requests) expect(request.problems).toEqual([]);
    expect((api.requests[0]?.body as { model: string }).model).toBe('claude-haiku-4-5');
    await eventually(() => events.length === 1, 'memory.extracted');
    expect(events[0]).toMatchObject({ summarizer: 'anthropic', rejectedReplies: 1, untaggedReplies: 2 });
  });

  it('falls back to the offline summary when the retried reply breaks the structure too', async () => {
    const events: { rejectedReplies: number; summarizer: string }[] = [];
    await client.on('memory.extracted', (payload) => events.push(payload as (typeof events)[number]));
    const seen = api.requests.length;
    api.script(
      { kind: 'text', text: modelNotes.replace('# Worklog', '# Log') },
      { kind: 'text', text: modelNotes.replace('# Learnings', 'Learnings:') },
    );
    const result = await client.memoryExtract({ sessionId: loop.sessionId });
    expect(result.summarizer).toBe('offline');
    expect(hasAllSections(result.text ?? '')).toBe(true);
    for (const file of loop.files.edited) expect(result.text).toContain(file.split('/').at(-1));
    // The model's tokens were spent all the same.
    expect(result.inputTokens).toBeGreaterThan(0);
    // The previous notes went to the model as the current ones.
    expect(api.requests[seen]?.raw).toContain('Notes from the model.');
    await eventually(() => events.length === 1, 'memory.extracted');
    expect(events[0]).toMatchObject({ summarizer: 'offline', rejectedReplies: 2 });
  });
});
