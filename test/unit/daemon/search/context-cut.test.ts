/** search.context's messages cut to a size known before they are serialized (daemon/search/context-cut.ts, issue 27 item 9). */
import { describe, expect, it } from 'vitest';
import { cutMessages } from '../../../../daemon/search/context-cut.js';
import type { MessageParam } from '../../../../shared/protocol/messages.js';

const big = (chars: number, char = 'x') => char.repeat(chars);

describe('cutMessages', () => {
  it('cuts each block to maxBlockChars, saying so in the block and at the end of its text', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: big(10_000) },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'short' },
          { type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: '/tmp/a', content: big(50_000) } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: big(30_000) }] }],
      },
    ];
    const out = cutMessages(messages, 1, 1_000);
    const first = out[0]?.content as { type: string; text: string; cutChars: number }[];
    expect(first[0]?.type).toBe('text');
    expect(first[0]?.text).toMatch(/^x{900,} … \[memd cut 9,\d{3} characters\]$/);
    expect(first[0]?.cutChars).toBeGreaterThan(9_000);
    const [text, use] = out[1]?.content as Record<string, unknown>[];
    expect(text).toEqual({ type: 'text', text: 'short' });
    expect(use).toMatchObject({ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: '/tmp/a' } });
    expect((use?.input as { content: string }).content).toMatch(/memd cut 4\d,\d{3} characters\]$/);
    const result = (out[2]?.content as Record<string, unknown>[])[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', cutChars: expect.any(Number) });
    for (const message of out)
      for (const block of message.content as object[]) expect(JSON.stringify(block).length).toBeLessThan(1_200);
  });

  it('leaves what fits as it was: a string content stays a string', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    ];
    expect(cutMessages(messages, 0, 1_000)).toEqual(messages);
  });

  it('keeps the answer under its size whatever the messages, the nearest the hit first, and counts the blocks left out', () => {
    const texts = Array.from({ length: 10 }, (_, digit) => big(999_000, String(digit)));
    const messages: MessageParam[] = Array.from({ length: 101 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: Array.from({ length: 20 }, () => ({ type: 'text', text: texts[index % 10] as string })),
    }));
    const out = cutMessages(messages, 50, 1_000_000, 4_000_000);
    expect(JSON.stringify(out).length).toBeLessThan(4_100_000);
    // The hit's own message keeps its first blocks whole; the farthest have theirs left out.
    expect((out[50]?.content as { text: string }[])[0]?.text).toHaveLength(999_000);
    const far = out[0]?.content as { type: string; text: string; cutChars: number }[];
    expect(far).toHaveLength(1);
    expect(far[0]?.text).toMatch(/memd left out 20 blocks here: the answer reached its size limit/);
    expect(far[0]?.cutChars).toBeGreaterThan(19_980_000);
  });
});
