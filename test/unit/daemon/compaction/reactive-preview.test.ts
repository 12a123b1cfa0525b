import { describe, expect, it } from 'vitest';
import {
  PREVIEW_HEAD_CHARS,
  PREVIEW_TAIL_CHARS,
  previewToolResult,
} from '../../../../daemon/compaction/reactive-preview.js';

function lines(count: number, prefix = 'line'): string {
  return Array.from({ length: count }, (_, index) => `${prefix} ${index} ${'-'.repeat(index % 30)}`).join('\n');
}

describe('reactive previews of tool results', () => {
  it('keeps the start and the end at line breaks, with a pointer for toolResults.get between them', () => {
    const text = lines(3_000);
    const preview = previewToolResult(
      { type: 'tool_result', tool_use_id: 'toolu_1', content: text, is_error: true },
      'sess-1',
    );
    const content = String(preview?.content);
    const [head, pointer, tail] = content.split('\n\n');
    expect(preview?.is_error).toBe(true);
    expect(head?.length).toBeLessThanOrEqual(PREVIEW_HEAD_CHARS);
    expect(text.startsWith(`${head}\n`)).toBe(true);
    expect(tail?.length).toBeLessThanOrEqual(PREVIEW_TAIL_CHARS);
    expect(text.endsWith(`\n${tail}`)).toBe(true);
    expect(pointer).toBe(
      `[memd: ${(text.length - (head?.length ?? 0) - (tail?.length ?? 0)).toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} chars of this tool result were left out here to fit the context limit; toolResults.get {"sessionId":"sess-1","toolUseId":"toolu_1"} returns it whole]`,
    );
  });

  it('leaves results that would not get shorter, and never splits a surrogate pair', () => {
    expect(previewToolResult({ type: 'tool_result', tool_use_id: 't', content: lines(40) }, null)).toBeNull();
    // Odd offsets put a cut on both halves of a pair, were it not for the checks.
    const emoji = `a${'😀'.repeat(5_000)}b`;
    const content = String(previewToolResult({ type: 'tool_result', tool_use_id: 't', content: emoji }, null)?.content);
    expect(content).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('previews block results as text, counting the images it leaves out', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(50_000) } };
    const preview = previewToolResult(
      { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'Screenshot taken.' }, image] },
      null,
    );
    expect(preview?.content).toBe(
      'Screenshot taken.\n\n[memd: 0 of 17 chars and 1 image or document block of this tool result were left out here to fit the context limit; toolResults.get {"toolUseId":"t"} returns it whole]',
    );
  });
});
