import { describe, expect, it } from 'vitest';
import { parseSummaryReply } from '../../../../daemon/llm/summary-reply.js';

describe('the <analysis> then <summary> reply', () => {
  it('keeps the summary and drops the analysis', () => {
    expect(
      parseSummaryReply('<analysis>\nthinking <summary>not this</summary>\n</analysis>\n<summary>\nNotes\n</summary>'),
    ).toEqual({
      text: 'Notes',
      tagged: true,
    });
  });

  it('keeps a summary that quotes the tag, and one cut at the token limit', () => {
    expect(parseSummaryReply('<summary>a `<summary>` b</summary> c </summary>').text).toBe(
      'a `<summary>` b</summary> c',
    );
    expect(parseSummaryReply('<analysis>x</analysis><summary>\n# Notes\ncut her')).toEqual({
      text: '# Notes\ncut her',
      tagged: true,
    });
  });

  it('takes a reply without the tag whole, less an analysis, and says so', () => {
    expect(parseSummaryReply('# Notes\nall of it')).toEqual({ text: '# Notes\nall of it', tagged: false });
    expect(parseSummaryReply('<analysis>x</analysis>\n# Notes')).toEqual({ text: '# Notes', tagged: false });
    expect(parseSummaryReply('<analysis>never closed')).toEqual({ text: '', tagged: false });
  });
});
