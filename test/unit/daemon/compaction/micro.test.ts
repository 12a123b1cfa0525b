import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLEARED_TOOL_RESULT, type MicroSettings, planMicro } from '../../../../daemon/compaction/micro.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import {
  buildMessages,
  type ConversationMessage,
  toMessageParams,
  toolsArePaired,
} from '../../../../daemon/transcripts/messages.js';
import type { ContentBlock, ToolResultBlock } from '../../../../shared/protocol/messages.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexedEntry, ingestFixture } from '../../../helpers/compact.js';
import { FIXTURES, SCENARIOS } from '../../../helpers/ingest.js';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');
const DIR = '/tmp/memd-test/projects/-home-user-proj/sess-1/tool-results';
const SETTINGS: MicroSettings = { now: NOW, toolResultsDir: DIR };
const START = Date.parse('2026-01-01T10:00:00.000Z');

function indexed(partial: Partial<IndexedEntry>): IndexedEntry {
  return indexedEntry({ sessionId: 'sess-1', ...partial });
}

interface Call {
  tool: string;
  output: string | ContentBlock[];
}

interface Session {
  messages: ConversationMessage[];
  loaded: LoadedEntry[];
  /** When the last assistant entry was written. */
  lastAssistantAt: number;
}

/**
 * A prompt, then per step an assistant turn making its calls and one transcript line per result
 * (merged into one user message, as Claude Code's lines are), then a closing reply. Entries are
 * one second apart from START. Tool-use ids are `toolu_<step>_<call>`.
 */
function session(steps: Call[][]): Session {
  const loaded: LoadedEntry[] = [];
  let at = START;
  const add = (partial: Partial<IndexedEntry>, raw: Record<string, unknown>) => {
    const uuid = `u${loaded.length}`;
    const timestamp = new Date(at).toISOString();
    loaded.push({
      entry: indexed({ ...partial, uuid, timestamp }),
      raw: { ...raw, uuid, timestamp, type: partial.type },
    });
    at += 1000;
  };
  add({ type: 'user' }, { message: { role: 'user', content: 'Go.' } });
  steps.forEach((calls, step) => {
    const uses = calls.map((call, index) => ({
      type: 'tool_use',
      id: `toolu_${step}_${index}`,
      name: call.tool,
      input: {},
    }));
    add(
      { type: 'assistant', messageId: `msg_${step}`, toolUses: uses.map((use) => ({ id: use.id, name: use.name })) },
      { message: { role: 'assistant', id: `msg_${step}`, content: uses } },
    );
    calls.forEach((call, index) => {
      const id = `toolu_${step}_${index}`;
      add(
        { type: 'user', toolResults: [{ id, isError: false }] },
        { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: call.output }] } },
      );
    });
  });
  const lastAssistantAt = at;
  add(
    { type: 'assistant', messageId: 'msg_end' },
    { message: { role: 'assistant', id: 'msg_end', content: [{ type: 'text', text: 'Done.' }] } },
  );
  return { messages: buildMessages(loaded, () => []), loaded, lastAssistantAt };
}

/** `chars` characters of log-like lines of varying length. */
function logText(chars: number, seed = 0): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const line = `${index + seed} INFO worker handled request id=${((index * 7919 + seed) % 100_000).toString(36)} ${'x'.repeat((index * 31 + seed) % 60)}\n`;
    lines.push(line);
    length += line.length;
  }
  return lines.join('').slice(0, chars);
}

function resultBlocks(messages: readonly ConversationMessage[]): Map<string, ToolResultBlock> {
  const blocks = new Map<string, ToolResultBlock>();
  for (const message of messages)
    for (const block of message.content)
      if (block.type === 'tool_result') blocks.set((block as ToolResultBlock).tool_use_id, block as ToolResultBlock);
  return blocks;
}

function contentOf(messages: readonly ConversationMessage[], id: string): string | ContentBlock[] | undefined {
  return resultBlocks(messages).get(id)?.content;
}

function idsOf(actions: readonly { kind: string; id: string }[], kind: string): string[] {
  return actions.filter((action) => action.kind === kind).map((action) => action.id);
}

function expectWellFormed(messages: readonly ConversationMessage[]): void {
  const params = toMessageParams(messages);
  expect(params[0]?.role).toBe('user');
  for (const [index, message] of params.entries())
    if (index > 0) expect(message.role).not.toBe(params[index - 1]?.role);
  expect(toolsArePaired(params)).toBe(true);
}

interface ManifestPersisted {
  persistedToolResults: { toolUseId: string; tool: string }[];
  toolCalls: { toolUseId: string; tool: string }[];
}

function bigOutputsManifest(): ManifestPersisted {
  const value: unknown = JSON.parse(readFileSync(join(FIXTURES, 'big-outputs', 'manifest.json'), 'utf8'));
  const record = value as Partial<ManifestPersisted>;
  if (!Array.isArray(record.persistedToolResults) || !Array.isArray(record.toolCalls))
    throw new Error('big-outputs manifest lacks persistedToolResults or toolCalls');
  return record as ManifestPersisted;
}

describe('micro-compaction on the big-outputs fixture', () => {
  it('considers persisted exactly the results Claude Code persisted, and changes nothing', async () => {
    const fixture = await ingestFixture('big-outputs');
    try {
      const conversation = fixture.conversation();
      const plan = planMicro(conversation.messages, conversation.loaded, SETTINGS);
      const manifest = bigOutputsManifest();
      expect(new Set(idsOf(plan.actions, 'persisted'))).toEqual(
        new Set(manifest.persistedToolResults.map((result) => result.toolUseId)),
      );
      expect(idsOf(plan.actions, 'persisted')).toHaveLength(manifest.persistedToolResults.length);
      // Each keeps the path Claude Code wrote; memd writes nothing for them.
      for (const action of plan.actions)
        expect(action.path).toMatch(/^\/home\/user\/\.claude\/projects\/.*\/tool-results\/\w+\.txt$/);
      expect(plan.persist).toEqual([]);
      // The three ~76K Reads (~230K in one message) stay inline, as in Claude Code.
      const reads = manifest.toolCalls.filter((call) => call.tool === 'Read').map((call) => call.toolUseId);
      expect(reads).toHaveLength(3);
      for (const id of reads) {
        const content = contentOf(plan.messages, id);
        expect(typeof content === 'string' && content.length > 70_000).toBe(true);
      }
      expect(plan.messages).toEqual(conversation.messages);
    } finally {
      fixture.close();
    }
  });

  it("writes the preview in Claude Code's exact format", async () => {
    const fixture = await ingestFixture('big-outputs');
    try {
      const id = 'toolu_01uUgp7hiyuJjEHHOUyODbbD';
      const line = fixture
        .conversation()
        .loaded.find(({ entry }) => entry.toolResults.some((result) => result.id === id));
      const written = (line?.raw.message as { content: ToolResultBlock[] }).content[0]?.content as string;
      const claudePath = (line?.raw.toolUseResult as { persistedOutputPath: string }).persistedOutputPath;
      const full = readFileSync(
        join(fixture.projectsDir, claudePath.slice(claudePath.lastIndexOf('/projects/') + '/projects/'.length)),
        'utf8',
      );
      // The same output, as memd would persist it to where Claude Code did.
      const { messages, loaded } = session([[{ tool: 'Bash', output: full }]]);
      const dir = claudePath.slice(0, claudePath.lastIndexOf('/'));
      const plan = planMicro(messages, loaded, { ...SETTINGS, toolResultsDir: dir });
      expect(contentOf(plan.messages, 'toolu_0_0')).toBe(written.replace(claudePath, `${dir}/toolu_0_0.txt`));
    } finally {
      fixture.close();
    }
  });
});

describe('persisting large results', () => {
  it('persists a 120,000-char Bash result with a preview cut at a newline', () => {
    const full = logText(120_000);
    const { messages, loaded } = session([[{ tool: 'Bash', output: full }]]);
    const plan = planMicro(messages, loaded, SETTINGS);
    const content = contentOf(plan.messages, 'toolu_0_0') as string;
    const path = `${DIR}/toolu_0_0.txt`;
    expect(
      content.startsWith(
        `<persisted-output>\nOutput too large (117.2KB). Full output saved to: ${path}\n\nPreview (first 2KB):\n`,
      ),
    ).toBe(true);
    expect(content.endsWith('\n...\n</persisted-output>')).toBe(true);
    const preview = content.slice(
      content.indexOf('Preview (first 2KB):\n') + 'Preview (first 2KB):\n'.length,
      -'\n...\n</persisted-output>'.length,
    );
    expect(preview.length).toBeLessThanOrEqual(2_000);
    expect(preview).toBe(full.slice(0, full.slice(0, 2_000).lastIndexOf('\n')));
    expect(full[preview.length]).toBe('\n');
    expect(plan.persist).toEqual([{ toolUseId: 'toolu_0_0', ext: 'txt', text: full }]);
    expect(plan.actions).toEqual([
      {
        kind: 'persisted',
        id: 'toolu_0_0',
        tool: 'Bash',
        tokensBefore: 30_000,
        tokensAfter: Math.round(content.length / 4),
        path,
      },
    ]);
    expectWellFormed(plan.messages);
  });

  it('persists over 50,000 chars only, never Read, and block arrays as JSON', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: logText(30_000, 1) },
      { type: 'text', text: logText(30_000, 2) },
    ];
    // One result a message, so that only the per-result rule applies.
    const { messages, loaded } = session([
      [{ tool: 'Bash', output: logText(50_000) }],
      [{ tool: 'Grep', output: logText(50_001) }],
      [{ tool: 'Read', output: logText(120_000) }],
      [{ tool: 'WebFetch', output: blocks }],
      [
        {
          tool: 'Bash',
          output: [...blocks, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
        },
      ],
    ]);
    const plan = planMicro(messages, loaded, SETTINGS);
    expect(idsOf(plan.actions, 'persisted')).toEqual(['toolu_1_0', 'toolu_3_0']);
    expect(plan.persist.map((item) => [item.toolUseId, item.ext])).toEqual([
      ['toolu_1_0', 'txt'],
      ['toolu_3_0', 'json'],
    ]);
    expect(JSON.parse(plan.persist[1]?.text ?? '')).toEqual(blocks);
    expect(contentOf(plan.messages, 'toolu_0_0')).toBe(contentOf(messages, 'toolu_0_0'));
    expect(contentOf(plan.messages, 'toolu_2_0')).toBe(contentOf(messages, 'toolu_2_0'));
    // Images cannot be previewed: a result holding one stays as it is.
    expect(contentOf(plan.messages, 'toolu_4_0')).toEqual(contentOf(messages, 'toolu_4_0'));
    expect(contentOf(plan.messages, 'toolu_3_0')).toMatch(
      /^<persisted-output>\nOutput too large \(58\.6KB\)\. Full output saved to: .*toolu_3_0\.json\n/,
    );
  });

  it('persists the largest results of a message over 200,000 chars until it fits', () => {
    const sizes = [43_000, 45_000, 40_000, 44_000, 42_000, 41_000];
    const { messages, loaded } = session([
      sizes.map((size, index) => ({ tool: 'Grep', output: logText(size, index) })),
    ]);
    const plan = planMicro(messages, loaded, SETTINGS);
    // 255,000 chars: the 45K and then the 44K result go, and the message is within budget.
    expect(idsOf(plan.actions, 'persisted')).toEqual(['toolu_0_1', 'toolu_0_3']);
    const total = [...resultBlocks(plan.messages).values()].reduce(
      (sum, block) => sum + (block.content as string).length,
      0,
    );
    expect(total).toBeLessThanOrEqual(200_000);
    expect(total).toBeGreaterThan(150_000);
    expectWellFormed(plan.messages);
  });

  it('counts Read results toward the message budget but moves only the others', () => {
    const { messages, loaded } = session([
      [
        { tool: 'Read', output: logText(76_000, 1) },
        { tool: 'Read', output: logText(76_000, 2) },
        { tool: 'Read', output: logText(76_000, 3) },
        { tool: 'Bash', output: logText(30_000, 4) },
        { tool: 'Bash', output: logText(1_000, 5) },
      ],
    ]);
    const plan = planMicro(messages, loaded, SETTINGS);
    expect(idsOf(plan.actions, 'persisted')).toEqual(['toolu_0_3']);
  });
});

describe('clearing old results', () => {
  /** Twelve steps alternating Bash and Read, each result `chars` long, plus an Agent call first. */
  function history(chars: number): Session {
    const steps: Call[][] = [];
    for (let step = 0; step < 12; step++)
      steps.push([{ tool: step % 2 === 0 ? 'Bash' : 'Read', output: logText(chars, step) }]);
    steps[0]?.push({ tool: 'Agent', output: logText(chars, 99) });
    return session(steps);
  }

  it('clears all but the 5 most recent clearable results when that saves 20,000 tokens', () => {
    // 7 old results of 3,000 tokens: about 20,900 saved.
    const { messages, loaded } = history(12_000);
    const plan = planMicro(messages, loaded, SETTINGS);
    const cleared = ['toolu_0_0', 'toolu_1_0', 'toolu_2_0', 'toolu_3_0', 'toolu_4_0', 'toolu_5_0', 'toolu_6_0'];
    expect(idsOf(plan.actions, 'cleared')).toEqual(cleared);
    for (const id of cleared) expect(contentOf(plan.messages, id)).toBe(CLEARED_TOOL_RESULT);
    for (const step of [7, 8, 9, 10, 11])
      expect(contentOf(plan.messages, `toolu_${step}_0`)).toBe(contentOf(messages, `toolu_${step}_0`));
    // Not a clearable tool.
    expect(contentOf(plan.messages, 'toolu_0_1')).toBe(contentOf(messages, 'toolu_0_1'));
    expect(plan.actions[0]).toEqual({
      kind: 'cleared',
      id: 'toolu_0_0',
      tool: 'Bash',
      tokensBefore: 3_000,
      tokensAfter: 8,
    });
    expectWellFormed(plan.messages);
  });

  it('clears nothing when the savings stay under 20,000 tokens', () => {
    // 7 old results of 2,750 tokens: about 19,200 saved.
    const { messages, loaded } = history(11_000);
    const plan = planMicro(messages, loaded, SETTINGS);
    expect(plan.actions).toEqual([]);
    expect(plan.messages).toEqual(messages);
  });

  it('time-based: clears once the last assistant message is older than the idle time', () => {
    const { messages, loaded, lastAssistantAt } = session(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => [{ tool: 'Bash', output: logText(1_000, seed) }]),
    );
    const at = (minutes: number) =>
      planMicro(messages, loaded, { ...SETTINGS, timeBased: true, now: lastAssistantAt + minutes * 60_000 });
    expect(idsOf(at(61).actions, 'cleared')).toEqual(['toolu_0_0', 'toolu_1_0', 'toolu_2_0']);
    expect(at(59).actions).toEqual([]);
    expect(
      planMicro(messages, loaded, { ...SETTINGS, timeBased: true, idleMinutes: 30, now: lastAssistantAt + 31 * 60_000 })
        .actions,
    ).toHaveLength(3);
  });

  it('time-based: large savings alone do not clear a conversation still in use', () => {
    const { messages, loaded, lastAssistantAt } = history(12_000);
    expect(
      planMicro(messages, loaded, { ...SETTINGS, timeBased: true, now: lastAssistantAt + 60_000 }).actions,
    ).toEqual([]);
  });
});

describe('MCP results', () => {
  const NOTICE = '[OUTPUT TRUNCATED - exceeded 1000 token limit: the full output was 10000 chars, about 2500 tokens]';

  it('cuts a string result over the token limit and says how big it was', () => {
    const full = logText(10_000);
    const { messages, loaded } = session([
      [
        { tool: 'mcp__github__search_code', output: full },
        { tool: 'mcp__github__get_file', output: logText(3_000) },
      ],
    ]);
    const plan = planMicro(messages, loaded, { ...SETTINGS, maxMcpOutputTokens: 1_000 });
    expect(contentOf(plan.messages, 'toolu_0_0')).toBe(`${full.slice(0, 4_000)}\n\n${NOTICE}`);
    expect(contentOf(plan.messages, 'toolu_0_1')).toBe(contentOf(messages, 'toolu_0_1'));
    expect(plan.actions).toEqual([
      {
        kind: 'truncated-mcp',
        id: 'toolu_0_0',
        tool: 'mcp__github__search_code',
        tokensBefore: 2_500,
        tokensAfter: Math.round((4_000 + NOTICE.length) / 4),
      },
    ]);
  });

  it('cuts block arrays across their text blocks and keeps media', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const output: ContentBlock[] = [
      { type: 'text', text: 'a'.repeat(3_000) },
      image,
      { type: 'text', text: 'b'.repeat(3_000) },
      { type: 'text', text: 'c'.repeat(4_000) },
    ];
    const { messages, loaded } = session([[{ tool: 'mcp__db__query', output }]]);
    const plan = planMicro(messages, loaded, { ...SETTINGS, maxMcpOutputTokens: 1_000 });
    expect(contentOf(plan.messages, 'toolu_0_0')).toEqual([
      { type: 'text', text: 'a'.repeat(3_000) },
      image,
      { type: 'text', text: 'b'.repeat(1_000) },
      { type: 'text', text: NOTICE },
    ]);
  });

  it('persists the full result when even the cut one is over 50,000 chars', () => {
    const full = logText(150_000);
    const { messages, loaded } = session([[{ tool: 'mcp__logs__tail', output: full }]]);
    const plan = planMicro(messages, loaded, SETTINGS);
    expect(plan.actions.map((action) => action.kind)).toEqual(['truncated-mcp', 'persisted']);
    expect(plan.persist).toEqual([{ toolUseId: 'toolu_0_0', ext: 'txt', text: full }]);
    expect(contentOf(plan.messages, 'toolu_0_0')).toMatch(/^<persisted-output>\nOutput too large \(146\.5KB\)/);
  });
});

describe('every fixture', () => {
  const AGGRESSIVE: MicroSettings = {
    ...SETTINGS,
    maxResultChars: 1_000,
    maxMessageChars: 2_000,
    previewChars: 200,
    keepRecent: 1,
    minSavingsTokens: 0,
    maxMcpOutputTokens: 100,
  };

  it.each(SCENARIOS)('%s: stable, pairing and alternation kept, input untouched', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    try {
      const conversation = fixture.conversation();
      const before = JSON.stringify(conversation.messages);
      // Without clearing, the aggressive limits persist and cut results; with it, they clear them.
      for (const settings of [
        SETTINGS,
        AGGRESSIVE,
        { ...AGGRESSIVE, clearableTools: [] },
        { ...AGGRESSIVE, timeBased: true },
      ]) {
        const plan = planMicro(conversation.messages, conversation.loaded, settings);
        expect(planMicro(conversation.messages, conversation.loaded, settings)).toEqual(plan);
        expectWellFormed(plan.messages);
        expect(plan.messages.map((message) => message.content.length)).toEqual(
          conversation.messages.map((message) => message.content.length),
        );
      }
      expect(JSON.stringify(conversation.messages)).toBe(before);
    } finally {
      fixture.close();
    }
  });

  it('is stable on a synthetic session that uses every rule', () => {
    const { messages, loaded, lastAssistantAt } = session([
      [
        { tool: 'Bash', output: logText(120_000) },
        { tool: 'mcp__x__y', output: logText(200_000) },
      ],
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((seed) => [{ tool: 'Grep', output: logText(45_000, seed) }]),
      [1, 2, 3, 4, 5, 6].map((seed) => ({ tool: 'Bash', output: logText(45_000, seed) })),
    ]);
    const settings = { ...SETTINGS, now: lastAssistantAt };
    const plan = planMicro(messages, loaded, settings);
    expect(new Set(plan.actions.map((action) => action.kind))).toEqual(
      new Set(['persisted', 'cleared', 'truncated-mcp']),
    );
    expect(planMicro(messages, loaded, settings)).toEqual(plan);
    expectWellFormed(plan.messages);
    // A result cleared after being persisted leaves nothing to write.
    const cleared = new Set(idsOf(plan.actions, 'cleared'));
    for (const item of plan.persist) expect(cleared.has(item.toolUseId)).toBe(false);
  });
});
