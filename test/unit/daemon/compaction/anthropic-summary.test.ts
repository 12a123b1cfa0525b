import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAnthropicCompactionSummarizer,
  summaryRequestMessages,
  withCachedPrefix,
} from '../../../../daemon/compaction/anthropic-summary.js';
import { COMPACT_PROMPT, summaryCompaction } from '../../../../daemon/compaction/summary.js';
import { syntheticConversation } from '../../../helpers/compact.js';
import { type MessagesApi, startMessagesApi } from '../../../helpers/messages-api.js';

let api: MessagesApi;
beforeEach(async () => {
  api = await startMessagesApi();
});
afterEach(async () => {
  await api.close();
});

const summarizer = (maxRetries = 0) =>
  createAnthropicCompactionSummarizer({
    apiKey: 'test',
    model: 'claude-haiku-4-5',
    baseURL: api.url,
    maxRetries,
    timeoutMs: 5_000,
  });

describe('the anthropic compaction summarizer', () => {
  it('sends the conversation with the prompt and instructions last, and strips the analysis', async () => {
    api.script({
      kind: 'text',
      text: '<analysis>thinking it over</analysis>\n<summary>1. Primary Request and Intent:\n   Fix the handlers.</summary>',
    });
    const messages = syntheticConversation(3);
    const result = await summaryCompaction({ messages, loaded: [] }, summarizer(), 'Keep the paths.');
    expect(result.summary).toBe('1. Primary Request and Intent:\n   Fix the handlers.');
    const request = api.requests[0];
    expect(request?.problems).toEqual([]);
    const sent = request?.body as {
      model: string;
      messages: { role: string; content: { type: string; text?: string }[] }[];
    };
    expect(sent.model).toBe('claude-haiku-4-5');
    const last = sent.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content.at(-1)?.text).toBe(`${COMPACT_PROMPT}\n\nAdditional Instructions:\nKeep the paths.`);
  });

  it('marks the end of the conversation for the prompt cache, the same in a compaction asked again (the prefix it reads back)', async () => {
    const cached = await startMessagesApi({ cache: true });
    try {
      const model = createAnthropicCompactionSummarizer({
        apiKey: 'test',
        model: 'claude-haiku-4-5',
        baseURL: cached.url,
        maxRetries: 0,
        timeoutMs: 5_000,
      });
      const messages = syntheticConversation(3);
      cached.script({ kind: 'text', text: '<summary>one</summary>' }, { kind: 'text', text: '<summary>two</summary>' });
      await model.summarize({ messages, loaded: [] });
      await model.summarize({ messages, loaded: [], instructions: 'Keep the paths.' });
      type Sent = { system?: unknown; messages: { content: { type: string; cache_control?: unknown }[] }[] };
      const [first, second] = cached.requests.map((request) => request.body as Sent);
      expect(cached.requests.map((request) => request.problems)).toEqual([[], []]);
      expect(first?.system).toBeTypeOf('string');
      const marks = (sent: Sent | undefined) =>
        (sent?.messages ?? []).flatMap((message, at) =>
          message.content.flatMap((block, index) => (block.cache_control === undefined ? [] : [[at, index]])),
        );
      // One breakpoint, on the conversation's last block, before the prompt: the same in both requests.
      expect(marks(first)).toEqual([[messages.length - 1, 0]]);
      expect(marks(second)).toEqual(marks(first));
    } finally {
      await cached.close();
    }
  });

  it('puts no breakpoint on a thinking block or an empty text', () => {
    const marked = withCachedPrefix([
      { role: 'user', content: 'hello' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hm', signature: 's' },
          { type: 'text', text: '' },
        ],
      },
    ]);
    expect(marked[0]?.content).toEqual([{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }]);
    expect(marked[1]?.content).toEqual([
      { type: 'thinking', thinking: 'hm', signature: 's' },
      { type: 'text', text: '' },
    ]);
  });

  it('retries an overloaded answer, and fails after its retries so the breaker can count it', async () => {
    api.script({ kind: 'status', status: 529 }, { kind: 'text', text: '<summary>ok</summary>' });
    await expect(summarizer(1).summarize({ messages: syntheticConversation(1), loaded: [] })).resolves.toBe(
      '<summary>ok</summary>',
    );
    api.script({ kind: 'status', status: 500 });
    await expect(summarizer(0).summarize({ messages: syntheticConversation(1), loaded: [] })).rejects.toThrow();
  });

  it('appends the prompt to a conversation that ends with the user', () => {
    const messages = summaryRequestMessages([{ role: 'user', content: 'hi' }]);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: COMPACT_PROMPT },
        ],
      },
    ]);
  });
});
