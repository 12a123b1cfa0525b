/**
 * Compaction over a real daemon: every method on ingested fixtures, tool results in full, and
 * auto-compaction when a live session crosses its threshold (compaction.ready).
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { RpcError } from '../../shared/protocol/errors.js';
import { type CompactionReadyEvent, compactionReadyEventSchema } from '../../shared/protocol/events.js';
import { SUMMARY_SECTIONS } from '../../shared/transcript/compaction-texts.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects, FIXTURES } from '../helpers/ingest.js';
import { startMessagesApi } from '../helpers/messages-api.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('compaction over ingested fixtures', () => {
  let sandbox: Sandbox;
  let client: Client;
  const big = manifest('big-outputs');
  const compactions = manifest('compactions');

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['big-outputs', 'compactions']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
  });

  it('reports a compaction in context tokens: big-outputs keeps its system prompt and tools after the summary', async () => {
    const { contextTokens } = await client.sessionsGet({ sessionId: big.sessionId });
    const result = await client.compactAuto({ sessionId: big.sessionId, force: true });
    expect(result.preTokens).toBe(contextTokens);
    // Its tool results, whole in the messages, exceed what the context held: the figure must not go to 0.
    const messagesAfter = Math.ceil((Math.ceil(JSON.stringify(result.messages).length / 4) * 4) / 3);
    expect(result.postTokens).toBeGreaterThan(messagesAfter + 10_000);
    expect(result.postTokens).toBeLessThan(result.preTokens);
  });

  it('micro-compacts big-outputs, keeping what Claude Code persisted where it is', async () => {
    const result = await client.compactMicro({ sessionId: big.sessionId });
    expect(result.method).toBe('micro');
    const persisted = result.actions
      .filter((action) => action.kind === 'persisted')
      .map((action) => action.id)
      .sort();
    expect(persisted).toEqual(big.persistedToolResults.map((item) => item.toolUseId).sort());
    expect(result.postTokens).toBeLessThanOrEqual(result.preTokens);
    expect(await client.compactMicro({ sessionId: big.sessionId })).toEqual(result);
  });

  it('returns a persisted tool result in full', async () => {
    const result = await client.toolResultsGet({
      sessionId: big.sessionId,
      toolUseId: 'toolu_01uUgp7hiyuJjEHHOUyODbbD',
    });
    expect(result).toMatchObject({ source: 'persisted', chars: 120_012, isError: false });
    await expect(client.toolResultsGet({ sessionId: big.sessionId, toolUseId: 'toolu_nope' })).rejects.toMatchObject({
      code: 1001,
    });
  });

  it('refuses auto-compaction below the threshold unless forced, then summarizes in 9 sections', async () => {
    const refused = await client.compactAuto({ sessionId: compactions.sessionId }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toMatchObject({ kind: 'BelowThreshold' });
    const result = await client.compactAuto({
      sessionId: compactions.sessionId,
      force: true,
      instructions: 'Keep the expiry rules.',
    });
    expect(result.method).toBe('summary');
    for (const heading of [
      'Primary Request and Intent',
      'Key Technical Concepts',
      'Files and Code Sections',
      'Errors and fixes',
      'Problem Solving',
      'All user messages',
      'Pending Tasks',
      'Current Work',
      'Optional Next Step',
    ]) {
      expect(result.summary).toContain(heading);
    }
    expect(result.messages).toHaveLength(1);
    expect(result.boundary).toMatchObject({ trigger: 'auto' });
  });

  it('compacts by session memory once summary.md has content, when that makes the conversation smaller', async () => {
    const memory =
      '# Session Title\n_A short title_\n\nIdempotency keys with expiry\n\n# Current State\n_What is happening now_\n\nLogging duplicate replays.\n';
    for (const fixture of [big, compactions]) {
      const project = dirname(fixture.transcript).split('/').at(-1) as string;
      const path = join(sandbox.projectsDir, project, fixture.sessionId, 'session-memory', 'summary.md');
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, memory);
    }
    const result = await client.compactAuto({ sessionId: big.sessionId, force: true });
    expect(result.method).toBe('session-memory');
    expect(result.summary).toContain('Idempotency keys with expiry');
    expect(result.postTokens).toBeLessThan(result.preTokens);
    // compactions' last segment is short: session memory would keep all of it and add the memory
    // (issue 28); the summary replaces it all.
    const short = await client.compactAuto({ sessionId: compactions.sessionId, force: true });
    expect(short.method).toBe('summary');
    expect(short.postTokens).toBeLessThan(short.preTokens);
  });

  it('fits a reactive compaction to a limit, and says why when it cannot', async () => {
    // A limit covers the whole request: the overhead plus JSON length / 4 times the session's margin (docs/protocol.md).
    const full = await client.compactReactive({ sessionId: compactions.sessionId, limitTokens: 10_000_000 });
    const whole = full.estimate as { tokens: number; margin: number; overheadTokens: number };
    expect(full.overheadTokens).toBe(whole.overheadTokens);
    expect(whole.tokens).toBe(
      whole.overheadTokens + Math.ceil((JSON.stringify(full.messages).length * whole.margin) / 4),
    );
    const limit = whole.overheadTokens + Math.ceil((whole.tokens - whole.overheadTokens) * 0.7);
    const result = await client.compactReactive({ sessionId: compactions.sessionId, limitTokens: limit });
    expect((result.estimate as { tokens: number }).tokens).toBeLessThanOrEqual(limit);
    // preTokens and postTokens are context tokens, as sessions.get counts them.
    expect(result.preTokens).toBe((await client.sessionsGet({ sessionId: compactions.sessionId })).contextTokens);
    expect(result.postTokens).toBeLessThan(result.preTokens);
    await expect(client.compactReactive({ sessionId: compactions.sessionId, limitTokens: 10 })).rejects.toMatchObject({
      code: -32602,
      data: { kind: 'LimitTooSmall', limitTokens: 10 },
    });
  });

  it('plans cache edits with the API parameter', async () => {
    const result = await client.compactCacheEdits({ sessionId: big.sessionId, keep: 2 });
    expect(result.contextManagement).toMatchObject({
      edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 2 } }],
    });
    expect(result.postTokens).toBeLessThan(result.preTokens);
  });

  it('memctl compact below the threshold names its --force flag, not the RPC param', async () => {
    const run = await runMemctl(sandbox, ['compact', compactions.sessionId]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`memctl compact ${compactions.sessionId} --force`);
    expect(run.stderr).not.toContain('pass force');
  });

  it('memctl compact prints the method, the tokens and what was lost', async () => {
    const run = await runMemctl(sandbox, [
      'compact',
      compactions.sessionId,
      '--method',
      'reactive',
      '--limit',
      '20000',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('reactive compaction of');
    expect(run.stdout).toMatch(/tokens +\S+ → \S+/);
    expect(run.stdout).toMatch(/lost +(nothing|\d+ items?)/);
    const json = await runMemctl(sandbox, ['compact', big.sessionId, '--method', 'micro', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ method: 'micro', sessionId: big.sessionId });
  });
});

describe('auto-compaction on a threshold crossing', () => {
  it('publishes compaction.ready when a live session reaches its auto-compact threshold', async () => {
    const sandbox = makeSandbox();
    const found = manifest('compactions');
    const source = join(FIXTURES, 'compactions', found.transcript);
    const target = join(sandbox.projectsDir, found.transcript.replace(/^projects\//, ''));
    const lines = readFileSync(source, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const crossing = lines.findIndex(
      (line) => line.includes('"4c1f2589-b7a8-45bc-a371-5ea7575f0a1d"') && line.includes('"type":"assistant"'),
    );
    expect(crossing).toBeGreaterThan(0);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${lines.slice(0, crossing).join('\n')}\n`);
    // The fixture was recorded on a 200K window; claude-opus-4-8 is 1M by default since Claude Code 2.1.197.
    await startDaemon(sandbox, undefined, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      const ready: CompactionReadyEvent[] = [];
      await client.on('compaction.ready', (payload) => ready.push(payload));
      appendFileSync(target, `${lines[crossing]}\n`);
      await eventually(() => ready.length > 0, 'compaction.ready');
      expect(ready[0]).toMatchObject({ sessionId: found.sessionId, method: 'summary' });
      expect(ready[0]?.postTokens).toBeLessThan(ready[0]?.preTokens ?? 0);
      // The survival score rides with the event (issue 32): what a client shows without asking again.
      expect(compactionReadyEventSchema.parse(ready[0], 'compaction.ready').survival).toMatchObject({
        kept: expect.any(Number),
        lost: expect.any(Number),
      });
      expect(ready[0]?.survival?.items.every((item) => !item.kept)).toBe(true);
      const status = await client.daemonStatus();
      expect(status.compaction).toMatchObject({ autoRuns: 1, failing: [] });
      const printed = await runMemctl(sandbox, ['status']);
      expect(printed.stdout).toContain('1 auto-compaction run');
    } finally {
      client.close();
    }
  });
});

describe('the anthropic summarizer', () => {
  it('summarizes through the SDK against the scripted Messages API when configured with a key', async () => {
    const api = await startMessagesApi();
    try {
      // A summary the size a model writes for this conversation: a fragment would be refused.
      const modelSummary = SUMMARY_SECTIONS.map(
        (title, index) =>
          `${index + 1}. ${title}:\n   Idempotency keys for charges, expiring after 24 hours; section ${index + 1}.`,
      ).join('\n\n');
      api.script({ kind: 'text', text: `<analysis>notes</analysis><summary>${modelSummary}</summary>` });
      const sandbox = makeSandbox();
      copyFixtureProjects(sandbox.projectsDir, ['compactions']);
      await startDaemon(sandbox, undefined, {
        MEMD_SUMMARIZER: 'anthropic',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: api.url,
        MEMD_MODEL: 'claude-haiku-4-5',
      });
      const client = createClient({ env: sandbox.env, autostart: false });
      try {
        await eventually(() => caughtUp(client), 'ingest to catch up');
        const result = await client.compactAuto({ sessionId: manifest('compactions').sessionId, force: true });
        expect(result).toMatchObject({ method: 'summary', summary: modelSummary });
        expect(result.fallback).toBeUndefined();
        expect(api.requests).toHaveLength(1);
        expect(api.requests[0]?.problems).toEqual([]);
        expect((api.requests[0]?.body as { model: string }).model).toBe('claude-haiku-4-5');
      } finally {
        client.close();
      }
    } finally {
      await api.close();
    }
  });
});
