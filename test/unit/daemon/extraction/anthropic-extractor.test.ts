import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAnthropicMemorySummarizer,
  type MemorySummaryInput,
} from '../../../../daemon/extraction/anthropic-extractor.js';
import { SESSION_MEMORY_TEMPLATE } from '../../../../daemon/extraction/template.js';
import { syntheticConversation } from '../../../helpers/compact.js';
import { type MessagesApi, startMessagesApi } from '../../../helpers/messages-api.js';

let api: MessagesApi;
beforeEach(async () => {
  api = await startMessagesApi();
});
afterEach(async () => {
  await api.close();
});

/** Every heading and description line of the template, each with content under it. */
const filled = SESSION_MEMORY_TEMPLATE.replace(/^(_.*_)$/gm, '$1\n\nsomething');
const valid = (text: string) =>
  SESSION_MEMORY_TEMPLATE.split('\n')
    .filter((line) => line.startsWith('#') || line.startsWith('_'))
    .every((line) => text.includes(line));
const input = (extra: Partial<MemorySummaryInput> = {}): MemorySummaryInput => ({
  messages: syntheticConversation(2, 5_000),
  previous: null,
  template: SESSION_MEMORY_TEMPLATE,
  ...extra,
});

function summarizer(maxRetries = 0, timeoutMs = 5_000) {
  return createAnthropicMemorySummarizer({
    apiKey: 'k',
    model: 'claude-haiku-4-5',
    baseURL: api.url,
    maxRetries,
    timeoutMs,
    validate: valid,
  });
}

describe('the anthropic session-memory summarizer', () => {
  it('sends the cached prefix and the new messages with big results cut, and records usage', async () => {
    api.script({
      kind: 'text',
      text: filled,
      usage: { input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 900, cache_read_input_tokens: 0 },
    });
    const result = await summarizer().summarize(input(), () => 'OFFLINE');
    expect(result).toMatchObject({
      summarizer: 'anthropic',
      rejected: 0,
      usage: { input: 100, output: 50, cacheWrite: 900, cacheRead: 0 },
    });
    expect(result.text.trim()).toBe(filled.trim());
    const body = api.requests[0]?.body as {
      model: string;
      system: { cache_control: unknown }[];
      messages: { content: { text: string }[] }[];
    };
    expect(api.requests[0]?.problems).toEqual([]);
    expect(body.model).toBe('claude-haiku-4-5');
    expect(body.system[0]?.cache_control).toEqual({ type: 'ephemeral' });
    const sent = body.messages[0]?.content[1]?.text ?? '';
    expect(sent).toContain('[... 3000 more chars]');
  });

  it('asks once more after a reply that lost a heading, then uses the offline summary', async () => {
    api.script({ kind: 'text', text: 'just prose' }, { kind: 'text', text: filled });
    expect(await summarizer().summarize(input(), () => 'OFFLINE')).toMatchObject({
      summarizer: 'anthropic',
      rejected: 1,
    });
    api.script({ kind: 'text', text: 'prose' }, { kind: 'text', text: '# Session Title\nno description' });
    expect(await summarizer().summarize(input(), () => 'OFFLINE')).toMatchObject({
      summarizer: 'offline',
      text: 'OFFLINE',
      rejected: 2,
    });
  });

  it('retries 429 (retry-after), 500 and 529 answers', async () => {
    api.script(
      { kind: 'status', status: 429, retryAfter: 0 },
      { kind: 'status', status: 500 },
      { kind: 'status', status: 529 },
      { kind: 'text', text: filled },
    );
    expect(await summarizer(3).summarize(input(), () => 'OFFLINE')).toMatchObject({ summarizer: 'anthropic' });
    expect(api.requests).toHaveLength(4);
  });

  it('waits as long as retry-after says before asking again', async () => {
    // Longer than the SDK's own first backoff (at most 0.5 s), so the wait shows the header was honoured.
    const retryAfterSeconds = 1.2;
    api.script({ kind: 'status', status: 429, retryAfter: retryAfterSeconds }, { kind: 'text', text: filled });
    const started = performance.now();
    expect(await summarizer(1).summarize(input(), () => 'OFFLINE')).toMatchObject({ summarizer: 'anthropic' });
    // A lower bound only: the retry may come later on a busy machine, never sooner.
    expect(performance.now() - started).toBeGreaterThanOrEqual(retryAfterSeconds * 1_000 - 5);
    expect(api.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('fails, for the job to retry, on a dropped connection, a malformed body and a timeout', async () => {
    api.script({ kind: 'drop' });
    await expect(summarizer().summarize(input(), () => 'OFFLINE')).rejects.toThrow();
    api.script({ kind: 'malformed' });
    await expect(summarizer().summarize(input(), () => 'OFFLINE')).rejects.toThrow();
    api.script({ kind: 'slow', delayMs: 2_000, then: { kind: 'text', text: filled } });
    await expect(summarizer(0, 200).summarize(input(), () => 'OFFLINE')).rejects.toThrow(/timed out/i);
  });

  it('stops when aborted (shutdown)', async () => {
    api.script({ kind: 'slow', delayMs: 2_000, then: { kind: 'text', text: filled } });
    const abort = new AbortController();
    const pending = summarizer().summarize(input({ signal: abort.signal }), () => 'OFFLINE');
    setTimeout(() => abort.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});
