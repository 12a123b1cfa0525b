import { describe, expect, it } from 'vitest';
import { createOfflineCompactionSummarizer } from '../../../../daemon/compaction/offline-summary.js';
import {
  COMPACT_PROMPT,
  type CompactionSummarizer,
  type CompactionSummaryInput,
  compactPrompt,
  stripAnalysis,
  summaryCompaction,
} from '../../../../daemon/compaction/summary.js';
import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  SUMMARY_SECTIONS,
} from '../../../../shared/transcript/compaction-texts.js';
import { ingestFixture } from '../../../helpers/compact.js';

describe('the prompt and the model reply', () => {
  it('stripAnalysis removes the analysis and unwraps the summary', () => {
    expect(
      stripAnalysis('<analysis>thinking</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   X\n</summary>'),
    ).toBe('1. Primary Request and Intent:\n   X');
    expect(stripAnalysis('<analysis>a</analysis>plain text')).toBe('plain text');
    expect(stripAnalysis('no tags')).toBe('no tags');
    expect(stripAnalysis('<analysis>a</analysis><summary>cut off at the limit')).toBe('cut off at the limit');
    expect(stripAnalysis('<analysis>a</analysis><analysis>b</analysis><summary>s</summary> trailing')).toBe('s');
  });

  it('the prompt asks for analysis, then the nine sections, and appends instructions', () => {
    let from = 0;
    for (const [index, title] of SUMMARY_SECTIONS.entries()) {
      const at = COMPACT_PROMPT.indexOf(`${index + 1}. ${title}:`, from);
      expect(at, title).toBeGreaterThanOrEqual(from);
      from = at;
    }
    expect(COMPACT_PROMPT.indexOf('<analysis>')).toBeLessThan(COMPACT_PROMPT.indexOf('<summary>'));
    expect(compactPrompt()).toBe(COMPACT_PROMPT);
    expect(compactPrompt('  ')).toBe(COMPACT_PROMPT);
    expect(compactPrompt('Keep file paths.')).toBe(`${COMPACT_PROMPT}\n\nAdditional Instructions:\nKeep file paths.`);
  });
});

describe('summary compaction', () => {
  it('replaces the conversation with one user message carrying the summary', async () => {
    const fixture = await ingestFixture('coding-loop');
    try {
      const conversation = fixture.conversation();
      const result = await summaryCompaction(conversation, createOfflineCompactionSummarizer(), 'focus on tests');
      expect(result.messages).toHaveLength(1);
      const message = result.messages[0];
      expect(message?.role).toBe('user');
      expect(message?.isSummary).toBe(true);
      const text = (message?.content[0] as { text: string }).text;
      expect(text.startsWith(`${CONTINUATION_OPENING}\n\nSummary:\n1. Primary Request and Intent:`)).toBe(true);
      expect(text).toContain(`read the full transcript at: ${conversation.file.path}`);
      expect(text.endsWith(`\n${CONTINUATION_CLOSING}`)).toBe(true);
      expect(text).toContain(result.summary);
      expect(result.summary).toContain('Focus requested: focus on tests');
      expect(await summaryCompaction(conversation, createOfflineCompactionSummarizer(), 'focus on tests')).toEqual(
        result,
      );
    } finally {
      fixture.close();
    }
  });

  it("strips a model's analysis, passes the instructions and signal on, and refuses an empty summary", async () => {
    const seen: CompactionSummaryInput[] = [];
    const model = (reply: string): CompactionSummarizer => ({
      summarize(input) {
        seen.push(input);
        return Promise.resolve(reply);
      },
    });
    const signal = new AbortController().signal;
    const result = await summaryCompaction(
      { messages: [], loaded: [] },
      model('<analysis>SECRET-REASONING</analysis>\n<summary>\nthe summary\n</summary>'),
      'be brief',
      signal,
    );
    expect(result.summary).toBe('the summary');
    expect(JSON.stringify(result.messages)).not.toContain('SECRET-REASONING');
    expect(seen[0]?.instructions).toBe('be brief');
    expect(seen[0]?.signal).toBe(signal);
    await expect(summaryCompaction({ messages: [], loaded: [] }, model('<analysis>only</analysis>'))).rejects.toThrow(
      /empty summary/,
    );
  });
});
