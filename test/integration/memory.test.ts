/** Session-memory extraction, its lock and its RPC methods over a real daemon. */
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../client/index.js';
import { hasAllSections } from '../../daemon/summarize/memory-template.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, startDaemon, type Sandbox } from '../helpers/sandbox.js';

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
    expect(await client.memorySummary({ sessionId: loop.sessionId })).toMatchObject({ text: null, lastUuid: null, summarizer: null });
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

  it('compacts by that session memory, keeping what follows the last summarized message', async () => {
    const result = await client.compactAuto({ sessionId: loop.sessionId, force: true });
    expect(result.method).toBe('session-memory');
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
    expect(await client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-1', ttlMs: 30_000 })).toMatchObject({ owner: 'agent-1' });
    await expect(client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-2' })).rejects.toMatchObject({ code: 1003 });
    expect((await client.daemonStatus()).extraction.locks).toMatchObject([{ owner: 'agent-1' }]);
    expect(await client.memoryUnlock({ sessionId: loop.sessionId, owner: 'agent-1' })).toEqual({ released: true });
    expect(await client.memoryLock({ sessionId: loop.sessionId, owner: 'agent-2' })).toMatchObject({ owner: 'agent-2' });
    await client.memoryUnlock({ sessionId: loop.sessionId, owner: 'agent-2' });
  });
});
