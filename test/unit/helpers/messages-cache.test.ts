import { describe, expect, it } from 'vitest';
import { createPromptCache } from '../../helpers/messages-cache.js';

const body = (texts: string[], marks: number[]) => ({
  model: 'm',
  max_tokens: 1,
  system: [{ type: 'text', text: 'S'.repeat(400), cache_control: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: texts.map((text, at) => ({
        type: 'text',
        text,
        ...(marks.includes(at) ? { cache_control: { type: 'ephemeral' } } : {}),
      })),
    },
  ],
});

describe("the scripted API's prompt cache", () => {
  it('writes each breakpoint prefix, and reads the longest one a later request repeats', () => {
    const cache = createPromptCache();
    const first = body(['a'.repeat(4_000), 'b'.repeat(4_000)], [1]);
    const one = cache.account(first, JSON.stringify(first).length);
    expect(one.cache_read_input_tokens).toBe(0);
    expect(one.cache_creation_input_tokens).toBeGreaterThan(2_000);
    const grown = body(['a'.repeat(4_000), 'b'.repeat(4_000), 'c'.repeat(4_000)], [1, 2]);
    const two = cache.account(grown, JSON.stringify(grown).length);
    expect(two.cache_read_input_tokens).toBe(one.cache_creation_input_tokens);
    expect(two.cache_creation_input_tokens).toBeGreaterThan(1_000);
    // A changed earlier block is another prefix: only the system's is read.
    const changed = body(['A'.repeat(4_000), 'b'.repeat(4_000)], [1]);
    expect(cache.account(changed, JSON.stringify(changed).length).cache_read_input_tokens).toBeLessThan(200);
  });

  it('caches nothing without cache_control', () => {
    const cache = createPromptCache();
    const plain = { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] };
    cache.account(plain, 100);
    expect(cache.account(plain, 100)).toEqual({
      input_tokens: 25,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });
});
