import { describe, expect, it } from 'vitest';
import { reactiveCompaction } from '../../../../daemon/compaction/reactive.js';
import { estimateMessageTokens, toMessageParams, toolsArePaired } from '../../../../daemon/transcripts/messages.js';
import { ingestFixture, syntheticConversation } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

describe('reactive compaction', () => {
  it('drops the oldest rounds until the estimate fits, keeping the first user message', () => {
    const messages = syntheticConversation(60);
    const before = estimateMessageTokens(toMessageParams(messages));
    const limit = Math.floor(before / 3);
    const result = reactiveCompaction(messages, limit);
    const params = toMessageParams(result.messages);
    expect(estimateMessageTokens(params)).toBeLessThanOrEqual(limit);
    expect(result.messages[0]?.uuids).toContain('u-0');
    // The newest round survives whole; dropped rounds are the oldest API rounds (an assistant
    // message with the user message answering it), in order.
    expect(result.messages.at(-1)?.uuids).toContain('t-59');
    const assistants = messages.filter((message) => message.role === 'assistant').map((message) => message.uuids[0]);
    expect(result.actions.map((action) => action.id)).toEqual(assistants.slice(0, result.actions.length));
    expect(params[0]?.role).toBe('user');
    expect(toolsArePaired(params)).toBe(true);
    // Dropping one round fewer would not fit: no more was dropped than needed.
    expect(result.actions.length).toBeGreaterThan(0);
  });

  it('keeps everything when it already fits, and says why when nothing can', () => {
    const messages = syntheticConversation(5);
    expect(reactiveCompaction(messages, 1_000_000).actions).toEqual([]);
    expect(() => reactiveCompaction(messages, 10)).toThrow(/over the limit of 10/);
  });

  it('is the same for the same input', () => {
    const messages = syntheticConversation(30);
    const limit = estimateMessageTokens(toMessageParams(messages)) / 2;
    expect(reactiveCompaction(messages, limit)).toEqual(reactiveCompaction(messages, limit));
  });

  it.each(SCENARIOS)('%s: fits half the conversation, or explains why not, and stays sendable', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    try {
      const { messages } = fixture.conversation();
      const limit = Math.ceil(estimateMessageTokens(toMessageParams(messages)) / 2);
      let result;
      try {
        result = reactiveCompaction(messages, limit);
      } catch (error) {
        expect((error as Error).message).toMatch(/over the limit/);
        return;
      }
      const params = toMessageParams(result.messages);
      expect(estimateMessageTokens(params)).toBeLessThanOrEqual(limit);
      expect(toolsArePaired(params)).toBe(true);
      expect(params[0]?.role).toBe('user');
      const summary = messages.find((message) => message.isSummary);
      if (summary) expect(result.messages[0]?.isSummary).toBe(true);
    } finally {
      fixture.close();
    }
  });
});
