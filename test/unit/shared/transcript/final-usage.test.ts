/**
 * Usage of responses split over several entries whose early output_tokens are placeholders
 * (Claude Code 2.1.3x): each response counts once, with its final figure (DESIGN.md §5).
 */
import { describe, expect, it } from 'vitest';
import { computeSessionAccounting } from '../../../../shared/transcript/accounting.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { type Line, placeholderSession, TranscriptWriter } from '../../../helpers/real-shapes.js';

function indexed(lines: readonly Line[]): IndexedEntry[] {
  let offset = 0;
  return lines.map((line) => {
    const length = JSON.stringify(line).length;
    const entry = parseEntry(line, offset, length);
    offset += length + 1;
    if (!entry) throw new Error('not an object');
    return entry;
  });
}

const none = { env: {} };

describe('final usage of split responses', () => {
  it("counts the issue's example (10, 10, 10, 10, 10, 441) as 441 output tokens", () => {
    const writer = new TranscriptWriter({ sessionId: 's-example', cwd: '/w', version: '2.1.38' });
    writer.prompt('go');
    const blocks = [1, 2, 3, 4, 5, 6].map((n) => ({ type: 'text', text: `part ${n}` }));
    writer.response(blocks, { input: 3, cacheWrite: 100, cacheRead: 5_000, output: 441 });
    const outputs = writer.lines.flatMap((line) => {
      const usage = (line.message as { usage?: { output_tokens: number } } | undefined)?.usage;
      return usage ? [usage.output_tokens] : [];
    });
    expect(outputs.slice(0, 5).every((output) => output <= 10)).toBe(true);
    const result = computeSessionAccounting(indexed(writer.lines), [], none);
    expect(result.usage.main).toMatchObject({
      output: 441,
      input: 3,
      cacheCreation: 100,
      cacheRead: 5_000,
      assistantMessages: 1,
    });
    // The context count takes the same final figure.
    expect(result.context.usageTokens).toBe(3 + 100 + 5_000 + 441);
  });

  it('counts the largest figure seen when the final entry was never written', () => {
    const writer = new TranscriptWriter({ sessionId: 's-cut', cwd: '/w', version: '2.1.38' });
    writer.prompt('go');
    writer.response(
      [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        { type: 'text', text: 'c' },
      ],
      { input: 1, cacheWrite: 0, cacheRead: 0, output: 900 },
      { final: false },
    );
    const result = computeSessionAccounting(indexed(writer.lines), [], none);
    expect(result.usage.main.output).toBe(7);
    expect(result.usage.main.assistantMessages).toBe(1);
    expect(result.context.usageTokens).toBe(1 + 7);
  });

  it('prices each response at its final output across main, sub-agent and compaction-agent files', () => {
    const session = placeholderSession('1f2e3d4c-0000-4000-8000-00000000abcd', '/home/u/src/uploader');
    const agents = [...session.agents.values()].flatMap((writer) => indexed(writer.lines));
    const result = computeSessionAccounting(indexed(session.main.lines), agents, none);
    expect(result.usage.total.output).toBe(session.expectedOutput);
    expect(result.usage.total.assistantMessages).toBe(session.expectedResponses);
    // Sonnet 4.5: $3 input, $3.75 1h-cache write... priced from the final figures, not the placeholders.
    expect(result.usage.total.costUsd).toBeCloseTo(
      (result.usage.total.output * 15 +
        result.usage.total.input * 3 +
        result.usage.total.cacheRead * 0.3 +
        result.usage.total.cache1h * 6) /
        1e6,
      9,
    );
  });
});
