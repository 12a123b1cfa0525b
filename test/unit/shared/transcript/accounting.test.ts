import { describe, expect, it } from 'vitest';
import { computeSessionAccounting } from '../../../../shared/transcript/accounting.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';

type Raw = Record<string, unknown>;

function file(...lines: Raw[]): IndexedEntry[] {
  return lines.map((line, index) => {
    const entry = parseEntry(line, index * 1_000, 999);
    if (!entry) throw new Error('not an object');
    return entry;
  });
}

interface UsageInput {
  input?: number;
  output?: number;
  write5m?: number;
  write1h?: number;
  read?: number;
}

function usage({ input = 0, output = 0, write5m = 0, write1h = 0, read = 0 }: UsageInput): Raw {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
  };
}

const user = (uuid: string, parentUuid: string | null, content: unknown = 'hi'): Raw => ({
  type: 'user',
  uuid,
  parentUuid,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content },
});

interface Reply {
  uuid: string;
  parent: string | null;
  id: string;
  usage: UsageInput;
  content?: unknown[];
  model?: string;
  requestId?: string;
}

const assistant = (reply: Reply): Raw => ({
  type: 'assistant',
  uuid: reply.uuid,
  parentUuid: reply.parent,
  requestId: reply.requestId ?? `req_${reply.id}`,
  message: {
    id: reply.id,
    model: reply.model ?? 'claude-sonnet-4-5-20250929',
    content: reply.content ?? [{ type: 'text', text: 'ok' }],
    usage: usage(reply.usage),
  },
});

const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: {} });
const toolResult = (id: string, content: string) => [{ type: 'tool_result', tool_use_id: id, content }];

const none = { env: {} };

describe('context tokens', () => {
  it("counts a split response's usage once and estimates what came after its first entry", () => {
    const split = { input: 10, read: 1_000, write5m: 90, output: 50 };
    const entries = file(
      user('u1', null),
      assistant({
        uuid: 'a1',
        parent: 'u1',
        id: 'm1',
        usage: split,
        content: [{ type: 'text', text: 'x'.repeat(40) }],
      }),
      assistant({ uuid: 'a2', parent: 'a1', id: 'm1', usage: split, content: [toolUse('t1')] }),
      user('r1', 'a2', toolResult('t1', 'y'.repeat(400))),
    );
    const result = computeSessionAccounting(entries, [], none);
    expect(result.context.usageTokens).toBe(1_150);
    // 'Bash{}' (6 → 2) of the second entry + 400 chars of tool result (100).
    expect(result.context.estimatedTokens).toBe(102);
    expect(result.contextTokens).toBe(1_252);
    expect(result.context.anchorUuid).toBe('a1');
    expect(result.usage.main.assistantMessages).toBe(1);
    expect(result.lastResponseHasToolCalls).toBe(true);
  });

  it('skips synthetic responses and counts what follows the last real one', () => {
    const entries = file(
      user('u1', null),
      assistant({ uuid: 'a1', parent: 'u1', id: 'm1', usage: { input: 500, output: 20 } }),
      user('u2', 'a1', 'abcdefgh'),
      assistant({
        uuid: 'a2',
        parent: 'u2',
        id: 'm2',
        usage: {},
        model: '<synthetic>',
        content: [{ type: 'text', text: 'No response requested.' }],
      }),
    );
    const result = computeSessionAccounting(entries, [], none);
    expect(result.context.usageTokens).toBe(520);
    expect(result.context.estimatedTokens).toBe(2 + 6); // 'abcdefgh' + 'No response requested.' (22 → 6)
    expect(result.usage.main.assistantMessages).toBe(1);
    expect(result.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('estimates the whole conversation after a boundary until a response arrives, ignoring preserved usage', () => {
    const entries = file(
      user('u1', null),
      assistant({
        uuid: 'a1',
        parent: 'u1',
        id: 'm1',
        usage: { input: 150_000, output: 100 },
        content: [{ type: 'text', text: 'abcd' }],
      }),
      {
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b1',
        parentUuid: null,
        logicalParentUuid: 'a1',
        compactMetadata: {
          trigger: 'auto',
          preTokens: 150_100,
          postTokens: 30,
          preservedSegment: { headUuid: 'a1', anchorUuid: 's1', tailUuid: 'a1' },
        },
      },
      user('s1', 'b1', 's'.repeat(100)),
    );
    const result = computeSessionAccounting(entries, [], none);
    expect(result.context.usageTokens).toBe(0);
    expect(result.context.anchorUuid).toBeNull();
    expect(result.contextTokens).toBe(25 + 1); // summary + the preserved response's text
    expect(result.compactions).toEqual({ count: 1, lastTrigger: 'auto', lastPreTokens: 150_100, lastPostTokens: 30 });
    expect(result.usage.main.input).toBe(150_000); // cumulative usage still has it
  });

  it('infers the 1M window when a prompt alone passed 200K', () => {
    const entries = file(
      user('u1', null),
      assistant({ uuid: 'a1', parent: 'u1', id: 'm1', usage: { input: 10, read: 250_000 } }),
    );
    const result = computeSessionAccounting(entries, [], none);
    expect(result.threshold.window).toBe(1_000_000);
    expect(result.threshold.model).toBe('claude-sonnet-4-5-20250929[1m]');
    expect(result.threshold.state).toBe('ok');
  });

  it('uses the configured model and the environment for the thresholds', () => {
    const entries = file(
      user('u1', null),
      assistant({ uuid: 'a1', parent: 'u1', id: 'm1', usage: { input: 170_000 } }),
    );
    // A 200K auto-compact window set: Sonnet 4.5 compacts ahead at 167K (threshold mode)...
    const window200K = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' };
    expect(computeSessionAccounting(entries, [], { env: window200K }).threshold.state).toBe('autocompact');
    // ...and without one Claude Code 2.1.197 waits for the API to refuse at 200K (reactive mode).
    expect(computeSessionAccounting(entries, [], none).threshold).toMatchObject({
      state: 'error',
      autoCompactMode: 'reactive',
      tokensLeft: 30_000,
    });
    // The configured [1m] model's window: 170K of 1M (a set 200K auto-compact window would still compact at 167K).
    expect(
      computeSessionAccounting(entries, [], { env: {}, configuredModel: 'claude-sonnet-4-5[1m]' }).threshold,
    ).toMatchObject({ state: 'ok', window: 1_000_000 });
    expect(
      computeSessionAccounting(entries, [], { env: { ...window200K, DISABLE_AUTO_COMPACT: '1' } }).threshold.state,
    ).toBe('error');
    expect(computeSessionAccounting(entries, [], { env: window200K, reserveOutputTokens: 0 }).threshold.state).toBe(
      'error',
    );
  });
});

describe('cumulative usage and cost', () => {
  it('deduplicates by message id and request id, not by message id alone', () => {
    const entries = file(
      user('u1', null),
      assistant({ uuid: 'a1', parent: 'u1', id: 'm1', usage: { input: 100 } }),
      assistant({ uuid: 'a2', parent: 'a1', id: 'm1', usage: { input: 100 } }),
      assistant({ uuid: 'a3', parent: 'a2', id: 'm1', usage: { input: 100 }, requestId: 'req_retry' }),
    );
    const result = computeSessionAccounting(entries, [], none);
    expect(result.usage.main).toMatchObject({ input: 200, assistantMessages: 2 });
  });

  it('prices per model and splits cache writes by TTL', () => {
    const M = 1_000_000;
    const entries = file(
      user('u1', null),
      assistant({
        uuid: 'a1',
        parent: 'u1',
        id: 'm1',
        usage: { input: M, output: M, write5m: M, write1h: M, read: M },
      }),
      assistant({
        uuid: 'a2',
        parent: 'a1',
        id: 'm2',
        model: 'claude-haiku-4-5-20251001',
        usage: { input: 1_000_000 },
      }),
    );
    const result = computeSessionAccounting(entries, [], none);
    // Sonnet: 3 + 15 + 3.75 + 6 + 0.3; Haiku 4.5: 1.
    expect(result.usage.main.costUsd).toBeCloseTo(29.05, 10);
    expect(result.byModel.map((row) => [row.model, row.usage.costUsd])).toEqual([
      ['claude-sonnet-4-5-20250929', expect.closeTo(28.05, 10)],
      ['claude-haiku-4-5-20251001', expect.closeTo(1, 10)],
    ]);
  });

  it('reports cost null, not 0, when a model has no price', () => {
    const sidechain = file(
      assistant({ uuid: 's1', parent: null, id: 'm9', model: 'some-future-model', usage: { input: 10 } }),
    );
    const main = file(user('u1', null), assistant({ uuid: 'a1', parent: 'u1', id: 'm1', usage: { input: 10 } }));
    const result = computeSessionAccounting(main, sidechain, none);
    expect(result.usage.main.costUsd).toBeGreaterThan(0);
    expect(result.usage.sidechain.costUsd).toBeNull();
    expect(result.usage.total.costUsd).toBeNull();
    expect(result.usage.total.input).toBe(20);
  });

  it('costs nothing for an empty session', () => {
    const result = computeSessionAccounting([], [], none);
    expect(result.usage.total).toEqual({
      input: 0,
      output: 0,
      cacheCreation: 0,
      cacheRead: 0,
      cache5m: 0,
      cache1h: 0,
      assistantMessages: 0,
      costUsd: 0,
    });
    expect(result.contextTokens).toBe(0);
    expect(result.model).toBeNull();
    expect(result.title).toBeNull();
  });
});

describe('since the last extraction', () => {
  const entries = file(
    user('u1', null),
    assistant({
      uuid: 'a1',
      parent: 'u1',
      id: 'm1',
      usage: { input: 10_000 },
      content: [toolUse('t1'), toolUse('t2')],
    }),
    user('r1', 'a1', [...toolResult('t1', 'a'), ...toolResult('t2', 'b')]),
    assistant({ uuid: 'a2', parent: 'r1', id: 'm2', usage: { input: 16_000 }, content: [toolUse('t3')] }),
    user('r3', 'a2', toolResult('t3', 'c')),
    assistant({
      uuid: 'a3',
      parent: 'r3',
      id: 'm3',
      usage: { input: 18_000 },
      content: [{ type: 'text', text: 'done' }],
    }),
  );

  it('counts every tool call and all growth when no extraction ran', () => {
    const result = computeSessionAccounting(entries, [], none);
    expect(result.sinceExtraction).toEqual({ toolCalls: 3, tokenGrowth: 18_000 });
    expect(result.lastResponseHasToolCalls).toBe(false);
  });

  it('counts from the entry the extraction covered, by uuid or by offset', () => {
    const byUuid = computeSessionAccounting(entries, [], {
      env: {},
      lastExtraction: { uuid: 'a1', contextTokens: 10_000 },
    });
    expect(byUuid.sinceExtraction).toEqual({ toolCalls: 1, tokenGrowth: 8_000 });
    const byOffset = computeSessionAccounting(entries, [], {
      env: {},
      lastExtraction: { atOffset: 3_000, contextTokens: 16_000 },
    });
    expect(byOffset.sinceExtraction).toEqual({ toolCalls: 0, tokenGrowth: 2_000 });
    const stale = { uuid: 'gone', atOffset: 1_000, contextTokens: 10_000 };
    const staleUuid = computeSessionAccounting(entries, [], { env: {}, lastExtraction: stale });
    expect(staleUuid.sinceExtraction.toolCalls).toBe(1);
  });

  it('never reports negative growth after a compaction shrank the context', () => {
    const result = computeSessionAccounting(entries, [], {
      env: {},
      lastExtraction: { uuid: 'a3', contextTokens: 50_000 },
    });
    expect(result.sinceExtraction).toEqual({ toolCalls: 0, tokenGrowth: 0 });
  });
});
