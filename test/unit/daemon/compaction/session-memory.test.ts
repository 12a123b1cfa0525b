import { describe, expect, it } from 'vitest';
import {
  continuationText,
  DEFAULT_SESSION_MEMORY_LIMITS,
  keptStartIndex,
  messageTokens,
  type SessionMemoryCompaction,
  type SessionMemoryLimits,
  sessionMemoryCompaction,
} from '../../../../daemon/compaction/session-memory.js';
import { isBareTemplate, SESSION_MEMORY_TEMPLATE, stripInstructions } from '../../../../daemon/extraction/template.js';
import {
  type ConversationMessage,
  normalize,
  toMessageParams,
  toolsArePaired,
} from '../../../../daemon/transcripts/messages.js';
import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  RECENT_PRESERVED,
} from '../../../../shared/transcript/compaction-texts.js';
import { ingestFixture } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

const MEMORY = SESSION_MEMORY_TEMPLATE.replace(
  '_A short, distinctive title for the session in 5 to 10 words_',
  '_A short, distinctive title for the session in 5 to 10 words_\nFix the invoice rounding bug',
);
const LIMITS = DEFAULT_SESSION_MEMORY_LIMITS;

/** A small deterministic PRNG (mulberry32): the same conversations on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Rounds of prompt → assistant (text + tool_use) → tool_result → (more tool calls) → assistant
 * text, with sizes drawn so a round stays well under the 40,000-token cap.
 */
function longConversation(seed: number, targetTokens: number): ConversationMessage[] {
  const next = random(seed);
  const size = (min: number, max: number) => min + Math.floor(next() * (max - min));
  const messages: ConversationMessage[] = [];
  let tokens = 0;
  for (let round = 0; tokens < targetTokens; round++) {
    const add = (
      message: Omit<ConversationMessage, 'isSummary' | 'messageId' | 'isPrompt'> & Partial<ConversationMessage>,
    ) => {
      const full: ConversationMessage = { messageId: null, isPrompt: false, isSummary: false, ...message };
      messages.push(full);
      tokens += messageTokens(full);
    };
    add({
      role: 'user',
      content: [{ type: 'text', text: `Prompt ${round}: ${'p'.repeat(size(20, 2_000))}` }],
      uuids: [`u-${round}`],
      isPrompt: true,
    });
    const calls = size(1, 4);
    for (let call = 0; call < calls; call++) {
      const id = `toolu_${round}_${call}`;
      const withText = next() < 0.5;
      add({
        role: 'assistant',
        content: [
          ...(withText ? [{ type: 'text' as const, text: `Looking at part ${call}.` }] : []),
          { type: 'tool_use', id, name: 'Bash', input: { command: `cat f${round}_${call}` } },
        ],
        uuids: [`a-${round}-${call}`],
        messageId: `msg_${round}_${call}`,
      });
      add({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: 'x'.repeat(size(100, 16_000)) }],
        uuids: [`r-${round}-${call}`],
      });
    }
    add({
      role: 'assistant',
      content: [{ type: 'text', text: `Round ${round} done. ${'d'.repeat(size(10, 1_500))}` }],
      uuids: [`t-${round}`],
      messageId: `msg_${round}_end`,
    });
  }
  return normalize(messages);
}

const sum = (messages: readonly ConversationMessage[]) =>
  messages.reduce((total, message) => total + messageTokens(message), 0);
const hasText = (message: ConversationMessage) => message.content.some((block) => block.type === 'text');
const textOf = (block: ConversationMessage['content'][number] | undefined) =>
  block?.type === 'text' ? String((block as { text: unknown }).text) : '';

/** Where the kept part may start: not at tool results, not inside one response. */
function canStartAt(messages: readonly ConversationMessage[], index: number): boolean {
  const message = messages[index] as ConversationMessage;
  if (message.role === 'user' && message.content.some((block) => block.type === 'tool_result')) return false;
  const ids = new Set(
    messages
      .slice(index)
      .flatMap((kept) => (kept.role === 'assistant' && kept.messageId !== null ? [kept.messageId] : [])),
  );
  return messages
    .slice(0, index)
    .every((earlier) => earlier.role !== 'assistant' || earlier.messageId === null || !ids.has(earlier.messageId));
}

/** The properties every result holds, checked against the input (an independent oracle). */
function checkResult(
  messages: readonly ConversationMessage[],
  lastSummarized: string | null,
  result: SessionMemoryCompaction,
  limits: SessionMemoryLimits = LIMITS,
): { start: number; kept: number } {
  const params = toMessageParams(result.messages);
  expect(params[0]?.role).toBe('user');
  for (const [index, message] of params.entries())
    if (index > 0) expect(message.role).not.toBe(params[index - 1]?.role);
  expect(toolsArePaired(params)).toBe(true);
  expect(textOf(result.messages[0]?.content[0]).startsWith(CONTINUATION_OPENING)).toBe(true);

  const start =
    result.keptFromUuid === null
      ? messages.length
      : messages.findIndex((message) => message.uuids[0] === result.keptFromUuid);
  expect(start).toBeGreaterThanOrEqual(0);
  // Every kept message is in the result, in order, after the summary.
  expect(result.messages.flatMap((message) => message.uuids)).toEqual(
    messages.slice(start).flatMap((message) => message.uuids),
  );
  if (start === messages.length) return { start, kept: 0 };
  expect(canStartAt(messages, start)).toBe(true);

  const summarized =
    lastSummarized === null ? -1 : messages.findIndex((message) => message.uuids.includes(lastSummarized));
  let tailStart = summarized === -1 ? messages.length : summarized + 1;
  // Everything the memory does not cover is kept.
  expect(start).toBeLessThanOrEqual(tailStart);
  while (tailStart > 0 && tailStart < messages.length && !canStartAt(messages, tailStart)) tailStart--;
  const kept = sum(messages.slice(start));
  const texts = messages.slice(start).filter(hasText).length;
  const enough = (tokens: number, count: number) =>
    tokens >= limits.maxKeepTokens || (tokens >= limits.minKeepTokens && count >= limits.minKeepTextMessages);
  if (start < tailStart) {
    // Extended: never past the cap, and no further than needed.
    expect(kept).toBeLessThanOrEqual(limits.maxKeepTokens);
    for (let later = start + 1; later <= tailStart; later++) {
      if (later < messages.length && canStartAt(messages, later))
        expect(enough(sum(messages.slice(later)), messages.slice(later).filter(hasText).length)).toBe(false);
    }
  }
  if (!enough(kept, texts) && start > 0) {
    // Not enough kept: every earlier place to start would break the cap.
    for (let earlier = start - 1; earlier >= 0; earlier--)
      if (canStartAt(messages, earlier)) expect(sum(messages.slice(earlier))).toBeGreaterThan(limits.maxKeepTokens);
  }
  return { start, kept };
}

describe('the session-memory template', () => {
  it('has the ten sections, each a heading and an italic line', () => {
    const headings = SESSION_MEMORY_TEMPLATE.split('\n').filter((line) => line.startsWith('# '));
    expect(headings).toEqual([
      '# Session Title',
      '# Current State',
      '# Task specification',
      '# Files and Functions',
      '# Workflow',
      '# Errors & Corrections',
      '# Codebase and System Documentation',
      '# Learnings',
      '# Key results',
      '# Worklog',
    ]);
    const lines = SESSION_MEMORY_TEMPLATE.split('\n');
    for (const [index, line] of lines.entries())
      if (line.startsWith('# ')) expect(lines[index + 1]).toMatch(/^_[^_].*_$/);
  });

  it('is bare until something is written under a heading', () => {
    expect(isBareTemplate(SESSION_MEMORY_TEMPLATE)).toBe(true);
    expect(isBareTemplate(`\n\n${SESSION_MEMORY_TEMPLATE.replaceAll('\n', '\n  \n')}  \n`)).toBe(true);
    expect(isBareTemplate('# Title\n*a description*\n')).toBe(true);
    expect(isBareTemplate(MEMORY)).toBe(false);
    expect(isBareTemplate(`${SESSION_MEMORY_TEMPLATE}\n- ran npm test`)).toBe(false);
  });

  it('gives no compaction without a memory worth using', () => {
    const messages = longConversation(1, 20_000);
    for (const memory of [null, undefined, '', '  \n', SESSION_MEMORY_TEMPLATE])
      expect(sessionMemoryCompaction(messages, { memory, lastSummarizedUuid: null })).toBeNull();
  });
});

describe('the summary message', () => {
  it("is worded as Claude Code words it (the compactions fixture's summaries)", async () => {
    const fixture = await ingestFixture('compactions');
    try {
      const { entries, file } = fixture.conversation();
      const { readFileSync } = await import('node:fs');
      const lines = readFileSync(file.path, 'utf8').split('\n');
      const summaries = entries
        .filter((entry) => entry.isCompactSummary)
        .map(
          (entry) =>
            JSON.parse(lines.find((line) => line.includes(`"uuid":"${entry.uuid}"`)) ?? 'null') as {
              message: { content: string };
            },
        );
      expect(summaries.length).toBe(2);
      for (const { message } of summaries) {
        const text = message.content;
        const pointer = /read the full transcript at: (\S+)\n/.exec(text);
        const summary = text.slice(CONTINUATION_OPENING.length + 2, text.indexOf('\n\nIf you need specific details'));
        expect(continuationText(summary, { transcriptPath: pointer?.[1] ?? '' })).toBe(text);
      }
    } finally {
      fixture.close();
    }
  });

  it('says when recent messages follow verbatim and always ends with the instruction to continue', () => {
    expect(continuationText('S', { recentMessagesPreserved: true })).toBe(
      `${CONTINUATION_OPENING}\n\nS\n\n${RECENT_PRESERVED}\n${CONTINUATION_CLOSING}`,
    );
    expect(continuationText('S')).toBe(`${CONTINUATION_OPENING}\n\nS\n${CONTINUATION_CLOSING}`);
  });
});

describe('session-memory compaction over generated long conversations', () => {
  const seeds = [1, 2, 3, 4, 5, 6];

  it.each(seeds)('seed %i: from the end, keeps 10,000..40,000 tokens and 5 text messages', (seed) => {
    const messages = longConversation(seed, 120_000);
    expect(sum(messages)).toBeGreaterThan(100_000);
    for (const lastSummarizedUuid of [null, 'not-in-this-conversation']) {
      const result = sessionMemoryCompaction(messages, {
        memory: MEMORY,
        lastSummarizedUuid,
      }) as SessionMemoryCompaction;
      const { kept, start } = checkResult(messages, null, result);
      expect(kept).toBeGreaterThanOrEqual(LIMITS.minKeepTokens);
      expect(kept).toBeLessThanOrEqual(LIMITS.maxKeepTokens);
      expect(messages.slice(start).filter(hasText).length).toBeGreaterThanOrEqual(LIMITS.minKeepTextMessages);
      // A summary.md written with the template's instructions (before issue 32) is sent without them.
      expect(result.summary).toBe(stripInstructions(MEMORY).trim());
      expect(result.summary).not.toContain('_A short, distinctive title');
      expect(result.summary).toContain('# Session Title\nFix the invoice rounding bug');
    }
  });

  it.each(seeds)('seed %i: after any last summarized message, keeps the rest and extends within the limits', (seed) => {
    const messages = longConversation(seed, 110_000);
    for (let index = 0; index < messages.length; index += 3) {
      const uuid = messages[index]?.uuids.at(-1) ?? null;
      const result = sessionMemoryCompaction(messages, {
        memory: MEMORY,
        lastSummarizedUuid: uuid,
      }) as SessionMemoryCompaction;
      const { kept } = checkResult(messages, uuid, result);
      const tail = sum(messages.slice(index + 1));
      // Rounds are small next to the cap, so the minimum is always reachable here.
      if (tail <= LIMITS.maxKeepTokens) expect(kept).toBeGreaterThanOrEqual(LIMITS.minKeepTokens);
      if (tail <= LIMITS.maxKeepTokens - 16_000) expect(kept).toBeLessThanOrEqual(LIMITS.maxKeepTokens);
    }
  });

  it('extends past 10,000 tokens until 5 messages with text are kept', () => {
    // Tool-only steps: 10,000 tokens of them hold only about 3 messages with text.
    const rounds = Array.from({ length: 12 }, (_, round) => {
      const steps = Array.from({ length: 6 }, (_, step): ConversationMessage[] => [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: `t${round}_${step}`, name: 'Read', input: {} }],
          uuids: [`a${round}_${step}`],
          messageId: `m${round}_${step}`,
          isPrompt: false,
          isSummary: false,
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `t${round}_${step}`, content: 'x'.repeat(6_000) }],
          uuids: [`r${round}_${step}`],
          messageId: null,
          isPrompt: false,
          isSummary: false,
        },
      ]);
      return [
        {
          role: 'user',
          content: [{ type: 'text', text: `prompt ${round}` }],
          uuids: [`u${round}`],
          messageId: null,
          isPrompt: true,
          isSummary: false,
        },
        ...steps.flat(),
        {
          role: 'assistant',
          content: [{ type: 'text', text: `done ${round}` }],
          uuids: [`d${round}`],
          messageId: `e${round}`,
          isPrompt: false,
          isSummary: false,
        },
      ] satisfies ConversationMessage[];
    });
    const messages = normalize(rounds.flat());
    const result = sessionMemoryCompaction(messages, {
      memory: MEMORY,
      lastSummarizedUuid: null,
    }) as SessionMemoryCompaction;
    const { start, kept } = checkResult(messages, null, result);
    expect(messages.slice(start).filter(hasText).length).toBe(LIMITS.minKeepTextMessages);
    expect(kept).toBeGreaterThan(1.5 * LIMITS.minKeepTokens);
    expect(kept).toBeLessThanOrEqual(LIMITS.maxKeepTokens);
  });

  it('keeps everything of a conversation smaller than the minimum', () => {
    const messages = longConversation(7, 6_000);
    expect(sum(messages)).toBeLessThan(LIMITS.minKeepTokens);
    const result = sessionMemoryCompaction(messages, {
      memory: MEMORY,
      lastSummarizedUuid: messages[4]?.uuids[0],
    }) as SessionMemoryCompaction;
    expect(result.keptFromUuid).toBe(messages[0]?.uuids[0]);
    checkResult(messages, messages[4]?.uuids[0] ?? null, result);
  });

  it('is the same for the same input', () => {
    const messages = longConversation(8, 100_000);
    const input = { memory: MEMORY, lastSummarizedUuid: messages[40]?.uuids[0], transcriptPath: '/t.jsonl' };
    expect(sessionMemoryCompaction(messages, input)).toEqual(
      sessionMemoryCompaction(longConversation(8, 100_000), input),
    );
  });
});

describe('where the kept part starts', () => {
  const user = (uuid: string, text: string): ConversationMessage => ({
    role: 'user',
    content: [{ type: 'text', text }],
    uuids: [uuid],
    messageId: null,
    isPrompt: true,
    isSummary: false,
  });
  const assistant = (uuid: string, id: string, blocks: ConversationMessage['content']): ConversationMessage => ({
    role: 'assistant',
    content: blocks,
    uuids: [uuid],
    messageId: id,
    isPrompt: false,
    isSummary: false,
  });
  const result = (uuid: string, toolUseId: string, chars = 10): ConversationMessage => ({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'r'.repeat(chars) }],
    uuids: [uuid],
    messageId: null,
    isPrompt: false,
    isSummary: false,
  });
  const tiny: Partial<SessionMemoryLimits> = { minKeepTokens: 1, minKeepTextMessages: 1, maxKeepTokens: 40_000 };

  it('takes the tool_use along when the unsummarized part begins with its result', () => {
    const messages = [
      user('u1', 'go'),
      assistant('a1', 'm1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      result('r1', 't1'),
      assistant('a2', 'm2', [{ type: 'text', text: 'done' }]),
    ];
    const compacted = sessionMemoryCompaction(
      messages,
      { memory: MEMORY, lastSummarizedUuid: 'a1' },
      tiny,
    ) as SessionMemoryCompaction;
    expect(compacted.keptFromUuid).toBe('a1');
    expect(toolsArePaired(toMessageParams(compacted.messages))).toBe(true);
    checkResult(messages, 'a1', compacted, { ...LIMITS, ...tiny });
  });

  it('never splits the blocks of one response', () => {
    const messages = [
      user('u1', 'go'),
      assistant('a1', 'm1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      result('r1', 't1'),
      assistant('a2', 'm1', [{ type: 'text', text: 'same response, later block' }]),
      user('u2', 'next'),
      assistant('a3', 'm2', [{ type: 'text', text: 'ok' }]),
    ];
    expect(keptStartIndex(messages, 'r1', { ...LIMITS, ...tiny })).toBe(1);
  });

  it('leaves out a message that alone would break the cap, and joins a kept prompt to the summary', () => {
    const messages = [
      user('u1', 'first'),
      assistant('a1', 'm1', [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }]),
      result('r1', 't1', 200_000),
      assistant('a2', 'm2', [{ type: 'text', text: 'read it' }]),
      user('u2', 'second'),
      assistant('a3', 'm3', [{ type: 'text', text: 'answer' }]),
    ];
    const compacted = sessionMemoryCompaction(messages, {
      memory: MEMORY,
      lastSummarizedUuid: null,
    }) as SessionMemoryCompaction;
    expect(compacted.keptFromUuid).toBe('a2');
    expect(sum(messages.slice(3))).toBeLessThanOrEqual(LIMITS.maxKeepTokens);
    checkResult(messages, null, compacted);

    const joined = sessionMemoryCompaction(
      messages,
      { memory: MEMORY, lastSummarizedUuid: 'a2' },
      { ...tiny, minKeepTextMessages: 2 },
    ) as SessionMemoryCompaction;
    expect(joined.keptFromUuid).toBe('u2');
    expect(joined.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(joined.messages[0]?.content.map(textOf).at(-1)).toBe('second');
    expect(joined.messages[0]?.uuids).toEqual(['u2']);
  });

  it('keeps nothing of an empty conversation', () => {
    const compacted = sessionMemoryCompaction([], {
      memory: MEMORY,
      lastSummarizedUuid: null,
    }) as SessionMemoryCompaction;
    expect(compacted.keptFromUuid).toBeNull();
    expect(compacted.messages).toHaveLength(1);
    expect(textOf(compacted.messages[0]?.content[0])).not.toContain(RECENT_PRESERVED);
  });
});

describe('session-memory compaction over the fixtures', () => {
  it.each(SCENARIOS)('%s: sendable, within the limits, after the last boundary, deterministic', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    try {
      const conversation = fixture.conversation();
      const { messages, active, entries } = conversation;
      const total = sum(messages);
      const active_ = new Set(active.entries.flatMap((entry) => (entry.uuid === null ? [] : [entry.uuid])));
      // Entries before the last boundary that the conversation does not carry on with.
      const before = new Set(
        entries
          .filter(
            (entry) =>
              active.boundary !== null &&
              entry.offset < active.boundary.offset &&
              entry.uuid !== null &&
              !active_.has(entry.uuid),
          )
          .map((entry) => entry.uuid as string),
      );
      if (scenario === 'compactions') expect(before.size).toBeGreaterThan(0);
      const candidates = [null, ...messages.map((message) => message.uuids.at(-1) ?? null)];
      for (const lastSummarizedUuid of candidates) {
        const input = { memory: MEMORY, lastSummarizedUuid, transcriptPath: conversation.file.path };
        const result = sessionMemoryCompaction(messages, input) as SessionMemoryCompaction;
        expect(result).toEqual(sessionMemoryCompaction(messages, input));
        const { kept } = checkResult(messages, lastSummarizedUuid, result);
        if (lastSummarizedUuid === null && total < LIMITS.minKeepTokens) expect(kept).toBe(total);
        for (const uuid of result.messages.flatMap((message) => message.uuids)) {
          expect(active_.has(uuid)).toBe(true);
          expect(before.has(uuid)).toBe(false);
        }
      }
    } finally {
      fixture.close();
    }
  });
});
