import { afterEach, describe, expect, it } from 'vitest';
import { createBus } from '../../../../daemon/bus/bus.js';
import { CIRCUIT_BREAKER_FAILURES } from '../../../../daemon/compaction/auto-runs.js';
import { type CompactionLayers, createCompactionService } from '../../../../daemon/compaction/service.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import type { EventPayloads, EventTopic } from '../../../../shared/protocol/events.js';
import type { ThresholdResult, ThresholdState } from '../../../../shared/protocol/sessions.js';
import { computeThresholds } from '../../../../shared/transcript/thresholds.js';
import { type IngestedFixture, ingestFixture } from '../../../helpers/compact.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

let fixture: IngestedFixture | undefined;
afterEach(() => fixture?.close());

function threshold(state: ThresholdState): ThresholdResult {
  return {
    model: 'm',
    tokens: 170_000,
    window: 200_000,
    effectiveWindow: 180_000,
    autoCompactAt: 167_000,
    warningAt: 147_000,
    errorAt: 147_000,
    blockingAt: 177_000,
    state,
    tokensLeft: 0,
    percentUsed: 100,
    autoCompactEnabled: true,
    autoCompactMode: 'threshold',
  };
}

async function setup(
  summary: CompactionLayers['summary'],
  state: ThresholdState = 'autocompact',
  more: Partial<CompactionLayers> = {},
  thresholds: () => ThresholdResult = () => threshold(state),
) {
  fixture = await ingestFixture('coding-loop');
  const events: { topic: EventTopic; payload: unknown }[] = [];
  const bus = createBus((error) => {
    throw error;
  });
  bus.listen(<T extends EventTopic>(topic: T, payload: EventPayloads[T]) => events.push({ topic, payload }));
  const layers: CompactionLayers = {
    micro: async (conversation) => ({ messages: conversation.messages, actions: [] }),
    sessionMemory: async () => null,
    summary,
    ...more,
  };
  const service = createCompactionService({
    transcripts: createTranscripts({ db: fixture.store.db, cache: fixture.cache }),
    bus,
    log: fakeLogger(),
    clock: () => 0,
    layers,
    thresholds,
    price: () => null,
  });
  return { service, events, sessionId: fixture.manifest.sessionId };
}

/** Lets the auto-compaction started by a crossing settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('auto-compaction', () => {
  it('publishes compaction.ready after a crossing into autocompact, not for lower states', async () => {
    const { service, events, sessionId } = await setup(async () => ({
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'summary' }],
          uuids: [],
          messageId: null,
          isPrompt: false,
          isSummary: true,
        },
      ],
      summary: 'summary',
    }));
    service.onThresholdCrossed(sessionId, 'warning');
    await settle();
    expect(events).toEqual([]);
    service.onThresholdCrossed(sessionId, 'autocompact');
    for (let i = 0; i < 10 && events.length === 0; i++) await settle();
    expect(events).toMatchObject([{ topic: 'compaction.ready', payload: { sessionId, method: 'summary' } }]);
    // The survival score (issue 32): a one-word summary keeps none of coding-loop's facts, and names each lost one.
    const { survival } = (events[0]?.payload ?? {}) as EventPayloads['compaction.ready'];
    expect(survival?.kept).toBe(0);
    expect(survival?.lost).toBeGreaterThan(0);
    expect(survival?.items.length).toBeGreaterThan(0);
    expect(survival?.items.every((item) => !item.kept && item.text !== '')).toBe(true);
    expect(service.status()).toEqual({ autoRuns: 1, failing: [] });
  });

  it('stops after three failures in a row, shows it, and starts again after a success', async () => {
    let fail = true;
    const { service, events, sessionId } = await setup(async (conversation) => {
      if (fail) throw new Error('the summarizer is down');
      return { messages: conversation.messages.slice(0, 1), summary: 'ok' };
    });
    for (let n = 0; n < CIRCUIT_BREAKER_FAILURES + 2; n++) {
      service.onThresholdCrossed(sessionId, 'blocking');
      for (let i = 0; i < 10; i++) await settle();
    }
    expect(service.status()).toEqual({
      autoRuns: CIRCUIT_BREAKER_FAILURES,
      failing: [{ sessionId, failures: CIRCUIT_BREAKER_FAILURES, stopped: true, lastError: 'the summarizer is down' }],
    });
    expect(events).toEqual([]);
    fail = false;
    await expect(service.auto(sessionId, { force: true })).resolves.toMatchObject({ method: 'summary' });
    expect(service.status().failing).toEqual([]);
    service.onThresholdCrossed(sessionId, 'blocking');
    for (let i = 0; i < 10 && events.length === 0; i++) await settle();
    expect(events).toHaveLength(1);
  });

  it('refuses below the threshold unless forced, and counts an unknown session as no failure', async () => {
    const { service } = await setup(async (conversation) => ({ messages: conversation.messages, summary: 's' }), 'ok');
    await expect(service.auto('nope', { force: true })).rejects.toMatchObject({ code: ErrorCode.NotFound });
    expect(service.status().failing).toEqual([]);
    const refused = await service.auto(fixture?.manifest.sessionId ?? '', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toMatchObject({ kind: 'BelowThreshold' });
  });

  it('in reactive mode refuses below the window, says so, and fits compact.reactive into the window', async () => {
    // Claude Code 2.1.197 on Sonnet 4.5 with no auto-compact window compacts only when the API refuses, at 200K.
    let env: Record<string, string> = {};
    const { service, sessionId } = await setup(
      async (conversation) => ({ messages: conversation.messages.slice(0, 1), summary: 's' }),
      'ok',
      {},
      () => computeThresholds({ model: 'claude-sonnet-4-5', tokens: 180_000, env }),
    );
    const refused = await service.auto(sessionId, {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toEqual({
      kind: 'BelowThreshold',
      tokens: 180_000,
      autoCompactAt: 200_000,
      window: 200_000,
      autoCompactMode: 'reactive',
    });
    expect((refused as RpcError).message).toBe(
      `session ${sessionId} is at 180000 tokens, below its window of 200000, where Claude Code compacts when the API refuses the request; pass force to compact anyway`,
    );
    expect((await service.reactive(sessionId, undefined)).limitTokens).toBe(200_000);
    // With a 200K auto-compact window it compacts ahead, at 167K: 180K is past it.
    env = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' };
    expect((await service.reactive(sessionId, undefined)).limitTokens).toBe(167_000);
    await expect(service.auto(sessionId, {})).resolves.toMatchObject({ method: 'summary' });
  });

  it('names the auto-compact threshold in threshold mode', async () => {
    const { service, sessionId } = await setup(
      async (conversation) => ({ messages: conversation.messages, summary: 's' }),
      'error',
    );
    const refused = await service.auto(sessionId, {}).catch((error: unknown) => error);
    expect((refused as RpcError).data).toEqual({
      kind: 'BelowThreshold',
      tokens: 170_000,
      autoCompactAt: 167_000,
      window: 200_000,
      autoCompactMode: 'threshold',
    });
    expect((refused as RpcError).message).toContain('below its auto-compact threshold of 167000');
  });
});

describe('a summary implausibly short for its conversation', () => {
  const fragment = () =>
    new RpcError(
      ErrorCode.JobFailed,
      'ImplausibleSummary',
      'the summary is implausibly short: 21 tokens for a 51000-token conversation',
    );
  const rebuilt = (conversation: { messages: unknown[] }) => ({
    messages: [
      {
        role: 'user' as const,
        content: [{ type: 'text' as const, text: 'Summary:\n1. Primary Request and Intent: …' }],
        uuids: [],
        messageId: null,
        isPrompt: false,
        isSummary: true,
      },
    ],
    summary: `1. Primary Request and Intent: rebuilt from ${conversation.messages.length} messages`,
  });

  it('is replaced by the offline summary, which says so, and counts in the breaker', async () => {
    const { service, events, sessionId } = await setup(
      async () => {
        throw fragment();
      },
      'autocompact',
      { fallbackSummary: async (conversation) => rebuilt(conversation) },
    );
    const done = await service.auto(sessionId, { force: true });
    expect(done).toMatchObject({
      method: 'summary',
      summary: expect.stringContaining('rebuilt from'),
      fallback: { from: 'summary', reason: expect.stringContaining('implausibly short') },
    });
    expect(service.status().failing).toEqual([
      { sessionId, failures: 1, stopped: false, lastError: expect.stringContaining('implausibly short') },
    ]);
    // Fragments in a row open the breaker like any failure, although each was replaced.
    for (let n = 1; n < CIRCUIT_BREAKER_FAILURES + 1; n++) {
      service.onThresholdCrossed(sessionId, 'autocompact');
      for (let i = 0; i < 10; i++) await settle();
    }
    expect(service.status().failing).toMatchObject([{ sessionId, failures: CIRCUIT_BREAKER_FAILURES, stopped: true }]);
    expect(service.status().autoRuns).toBe(CIRCUIT_BREAKER_FAILURES - 1);
    expect(events).toHaveLength(CIRCUIT_BREAKER_FAILURES - 1);
  });

  it('fails the compaction when there is nothing to fall back on', async () => {
    const { service, sessionId } = await setup(async () => {
      throw fragment();
    });
    await expect(service.auto(sessionId, { force: true })).rejects.toMatchObject({ kind: 'ImplausibleSummary' });
    expect(service.status().failing).toMatchObject([{ sessionId, failures: 1 }]);
  });
});

describe('a cancelled auto-compaction', () => {
  /** A summarizer that answers only when told, and says whether its signal aborted. */
  function heldSummary() {
    const seen: AbortSignal[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const summary: CompactionLayers['summary'] = async (conversation, _instructions, signal) => {
      seen.push(signal);
      await Promise.race([
        released,
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
      ]);
      return { messages: conversation.messages.slice(0, 1), summary: 'ok' };
    };
    return { summary, seen, release: () => release() };
  }
  const started = async (seen: AbortSignal[]) => {
    for (let i = 0; i < 50 && seen.length === 0; i++) await settle();
    expect(seen).toHaveLength(1);
  };

  it('stops the summary once every caller cancelled, and counts no failure', async () => {
    const held = heldSummary();
    const { service, sessionId } = await setup(held.summary);
    const first = new AbortController();
    const second = new AbortController();
    const one = service.auto(sessionId, { force: true }, first.signal).catch((error: unknown) => error);
    const two = service.auto(sessionId, { force: true }, second.signal).catch((error: unknown) => error);
    await started(held.seen);
    first.abort();
    expect(await one).toBeInstanceOf(Error);
    // The other caller still waits: the run goes on.
    expect(held.seen[0]?.aborted).toBe(false);
    second.abort();
    expect(await two).toBeInstanceOf(Error);
    expect(held.seen[0]?.aborted).toBe(true);
    for (let i = 0; i < 10; i++) await settle();
    expect(service.status().failing).toEqual([]);
  });

  it('goes on while a caller without a signal (the threshold trigger) waits for it', async () => {
    const held = heldSummary();
    const { service, sessionId } = await setup(held.summary);
    const cancel = new AbortController();
    const trigger = service.auto(sessionId, { force: true });
    const cancelled = service.auto(sessionId, { force: true }, cancel.signal).catch((error: unknown) => error);
    await started(held.seen);
    cancel.abort();
    expect(await cancelled).toBeInstanceOf(Error);
    expect(held.seen[0]?.aborted).toBe(false);
    held.release();
    await expect(trigger).resolves.toMatchObject({ method: 'summary', summary: 'ok' });
  });
});
