import { describe, expect, it } from 'vitest';
import { LONG_LINE_BYTES, parseLine } from '../../../../daemon/ingest/long-lines.js';
import { lineSearchTexts } from '../../../../daemon/ingest/search-line.js';
import { SEARCH_OUTPUT_CHARS, SEARCH_TEXT_CHARS, SEARCH_WRITE_CHARS } from '../../../../shared/search/text.js';

const lineOf = (value: unknown) => Buffer.from(JSON.stringify(value));
const texts = (value: unknown) => {
  const line = lineOf(value);
  expect(line.length).toBeGreaterThanOrEqual(LONG_LINE_BYTES);
  return lineSearchTexts(line, parseLine(line));
};

describe('lineSearchTexts', () => {
  it("takes a long line's pasted prompt whole, not parseLine's stand-in for it (issue 28)", () => {
    const prompt = `${'lorem ipsum '.repeat(1_700)}zanzibarian ${'dolor sit '.repeat(6_000)}`;
    const [text] = texts({ type: 'user', uuid: 'u', message: { role: 'user', content: prompt } });
    expect(text?.kind).toBe('prompt');
    expect(text?.text).toContain('zanzibarian');
    expect(text?.text).not.toMatch(/x{100}/);
    expect(text?.text.length).toBeLessThanOrEqual(SEARCH_TEXT_CHARS + 3);
  });

  it("takes a long Write's content by its head, and thinking, as they are", () => {
    const content = `${'row = fetch(1)\n'.repeat(400)}def test_refund_retry():\n${'    pass\n'.repeat(8_000)}`;
    const write = texts({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: '/t.py', content } }],
      },
    });
    const written = write.find((text) => text.kind === 'write')?.text ?? '';
    expect(written).toContain('test_refund_retry');
    expect(written.length).toBeLessThanOrEqual(SEARCH_WRITE_CHARS + 20);
    const thinking = texts({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: `${'weigh it. '.repeat(300)}okapi ${'more. '.repeat(12_000)}` }],
      },
    });
    expect(thinking[0]?.text).toContain('okapi');
  });

  it("keeps a long tool output's stand-in: its start is all the index takes", () => {
    const output = `first line of the output ${'y'.repeat(200_000)}`;
    const value = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: output }] },
    };
    expect(texts(value)).toEqual([{ kind: 'output', text: output.slice(0, SEARCH_OUTPUT_CHARS) }]);
  });
});
