import { describe, expect, it } from 'vitest';
import { requestModel } from '../../../../daemon/compaction/calibration.js';
import { reactiveCompaction } from '../../../../daemon/compaction/reactive.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { buildMessages, type ConversationMessage, toMessageParams } from '../../../../daemon/transcripts/messages.js';
import { attachmentTexts, DEFAULT_ESTIMATE_MARGIN } from '../../../../shared/transcript/tokens.js';
import type { Usage } from '../../../../shared/transcript/types.js';
import { indexedEntry } from '../../../helpers/compact.js';

function usage(input: number, cacheCreation: number, cacheRead: number): Usage {
  return { input, output: 50, cacheCreation, cacheRead, cache5m: 0, cache1h: cacheCreation };
}

function user(uuid: string, content: unknown, offset = 0): LoadedEntry {
  return { entry: indexedEntry({ uuid, offset }), raw: { type: 'user', uuid, message: { role: 'user', content } } };
}

function assistant(uuid: string, text: string, recorded: Usage | null, offset = 0): LoadedEntry {
  return {
    entry: indexedEntry({ type: 'assistant', uuid, messageId: `msg_${uuid}`, usage: recorded, offset }),
    raw: {
      type: 'assistant',
      uuid,
      message: { role: 'assistant', id: `msg_${uuid}`, content: [{ type: 'text', text }] },
    },
  };
}

/** JSON length / 4 of the messages before `index`, unrounded: what the model scales. */
function estimateBefore(messages: readonly ConversationMessage[], index: number): number {
  return JSON.stringify(toMessageParams(messages.slice(0, index))).length / 4;
}

/** A conversation whose API counts `overhead + rate × estimate` for every request, like Claude Code's. */
function session(overhead: number, rate: number): { loaded: LoadedEntry[]; messages: ConversationMessage[] } {
  const texts = ['x'.repeat(400), 'y'.repeat(6_000), 'z'.repeat(9_000)];
  const loaded: LoadedEntry[] = [];
  for (const [index, text] of texts.entries()) {
    loaded.push(user(`u${index}`, text));
    const messages = buildMessages(loaded, attachmentTexts);
    const tokens = Math.round(overhead + rate * estimateBefore(messages, messages.length));
    loaded.push(assistant(`a${index}`, `Done ${index}.`, usage(3, 100, tokens - 103)));
  }
  return { loaded, messages: buildMessages(loaded, attachmentTexts) };
}

describe('the request model: overhead + k × estimate', () => {
  it('takes k from successive responses, which cancel the overhead, and the overhead from what is left', () => {
    const { loaded, messages } = session(30_000, 1.5);
    const model = requestModel(messages, loaded);
    expect(model.measured).toBeCloseTo(1.5, 3);
    expect(model.margin).toBe(model.measured);
    expect(model.overhead).toBeGreaterThanOrEqual(30_000);
    expect(model.overhead).toBeLessThanOrEqual(30_002);
  });

  it('never goes below 4/3, and then never predicts less than any request recorded', () => {
    const { loaded, messages } = session(25_000, 1);
    const model = requestModel(messages, loaded);
    expect(model.measured).toBeCloseTo(1, 3);
    expect(model.margin).toBe(DEFAULT_ESTIMATE_MARGIN);
    for (const [index, message] of messages.entries()) {
      if (message.role !== 'assistant' || index === 0) continue;
      const recorded = loaded.find(({ entry }) => entry.uuid === message.uuids[0])?.entry.usage;
      const tokens = (recorded?.input ?? 0) + (recorded?.cacheCreation ?? 0) + (recorded?.cacheRead ?? 0);
      expect(model.overhead + model.margin * estimateBefore(messages, index)).toBeGreaterThanOrEqual(tokens);
    }
  });

  it('does not turn the overhead into a multiplier: a request that fits its limit is returned whole (issue 28)', () => {
    const { loaded, messages } = session(40_000, 4 / 3);
    const model = requestModel(messages, loaded);
    // The whole request: 40K of system prompt and tools and ~5K of messages.
    const whole = Math.ceil(40_000 + (4 / 3) * estimateBefore(messages, messages.length));
    const result = reactiveCompaction(messages, whole + 2, { margin: model.margin, overheadTokens: model.overhead });
    expect(result.actions).toEqual([]);
    expect(toMessageParams(result.messages)).toEqual(toMessageParams(messages));
    expect(result.overheadTokens).toBe(model.overhead);
    expect(result.tokens).toBe(result.overheadTokens + result.messageTokens);
    expect(result.tokens).toBeLessThanOrEqual(whole + 2);
  });

  it('skips responses that recorded no usage and those answered before the compact boundary', () => {
    const loaded = [
      // Answered before the compaction, in its 189K context: kept as the preserved segment.
      user('u1', 'x'.repeat(4_000), 100),
      assistant('a1', 'Done.', usage(189_000, 0, 0), 200),
      user('u2', 'Next one.', 900),
      assistant('a2', 'No response requested.', usage(0, 0, 0), 1_000),
    ];
    const messages = buildMessages(loaded, attachmentTexts);
    expect(requestModel(messages, loaded, 500)).toEqual({
      margin: DEFAULT_ESTIMATE_MARGIN,
      measured: null,
      overhead: 0,
    });
    expect(requestModel(messages, loaded).overhead).toBeGreaterThan(180_000);
    expect(
      requestModel(
        messages,
        loaded.map(({ entry, raw }) => ({ entry: { ...entry, usage: null }, raw })),
      ),
    ).toEqual({ margin: DEFAULT_ESTIMATE_MARGIN, measured: null, overhead: 0 });
  });
});
