import { describe, expect, it } from 'vitest';
import { fenced, fenceFor, inlineCode, renderMarkdown } from '../../../../shared/export/markdown.js';
import { HOSTILE_PROMPT, sampleModel } from './sample.js';

describe('markdown fences', () => {
  it('are longer than any backtick run inside, and at least three', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('a ``` b')).toBe('````');
    expect(fenceFor('`````')).toBe('``````');
    expect(fenced('x', 'json')).toBe('```json\nx\n```');
    expect(inlineCode('a`b')).toBe('``a`b``');
    expect(inlineCode('`x')).toBe('`` `x ``');
  });
});

describe('renderMarkdown', () => {
  const md = renderMarkdown(sampleModel());

  it('starts with the title and a table of the figures', () => {
    // The title's HTML is text (issue 27, item 11).
    expect(md.startsWith('# Fix the &lt;b>charges&lt;/b>\n')).toBe(true);
    expect(md).toContain('| Cost | $1.50 over 3 responses, cache hit rate 60.0% |');
    expect(md).toContain('| Compactions | 1 |');
    expect(md).toContain('| Project | `/home/user/src/payments-api` (`-home-user-src-payments-api`) |');
  });

  it('quotes prompts and writes the assistant text as markdown, with no HTML of their own', () => {
    expect(md).toContain(`**User** · 10:26:08\n\n> ${HOSTILE_PROMPT.replace(/</g, '&lt;')}`);
    expect(md).not.toContain('<script>alert("x")');
    expect(md).toContain('**Assistant** · 10:26:09\n\nRunning the tests.');
  });

  it('folds a tool call with its input and output in fences nothing inside can close', () => {
    expect(md).toContain(
      '<details><summary>Bash: npm test (failed, exit 1)</summary>\n\n```json\n{\n  "command": "npm test"\n}\n```',
    );
    // The output holds ``` and </details>: its fence is longer, so they stay text.
    expect(md).toContain('````text\nFAIL ```fenced``` </details> <script>x</script>\n````');
    expect(md).toContain('_1,234 more characters of this output were left out of the export._');
    // Every fold is closed on a line of its own, once.
    const opened = md.split('\n').filter((line) => line.startsWith('<details>')).length;
    const closed = md.split('\n').filter((line) => line === '</details>').length;
    expect(opened).toBe(3);
    expect(closed).toBe(opened);
  });

  it('escapes what goes inside its own HTML (a summary line)', () => {
    const call = sampleModel().conversation.items[2];
    if (call?.kind !== 'tool') throw new Error('sample changed');
    const md2 = renderMarkdown(
      sampleModel({
        conversation: {
          ...sampleModel().conversation,
          items: [{ ...call, call: { ...call.call, label: '</summary><script>' } }],
        },
      }),
    );
    expect(md2).toContain('<summary>Bash: &#60;/summary&#62;&#60;script&#62; (failed, exit 1)</summary>');
  });

  it('marks compactions and folds the summary they left', () => {
    expect(md).toContain('---\n\n**Compaction** (auto, 189,483 tokens before) · 2026-12-02 10:27:00 UTC');
    expect(md).toContain(
      '<details><summary>Summary the compaction left</summary>\n\n```markdown\nThe user asked for a fix.\n```',
    );
  });

  it('says what was left out past the budget', () => {
    const model = sampleModel();
    const md2 = renderMarkdown({ ...model, conversation: { ...model.conversation, omittedItems: 12 } });
    expect(md2).toContain(
      '_12 more messages and tool calls were left out: the export stops at 8,000,000 characters of conversation. `memctl export cf9834e4 --format jsonl` gives the whole transcript._',
    );
  });
});
