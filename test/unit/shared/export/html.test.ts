import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../shared/export/format.js';
import { renderHtml, shownPath } from '../../../../shared/export/html.js';
import { HOSTILE_PROMPT, sampleModel } from './sample.js';

/** The tags of the document: escaped text holds no `<`, so every match is a real tag. */
const tagsOf = (html: string) => html.match(/<[a-zA-Z!][^>]*>/g) ?? [];

describe('renderHtml', () => {
  const html = renderHtml(sampleModel());

  it('escapes everything from the transcript: a prompt with <script> is text', () => {
    expect(escapeHtml('<a href="x">&\'')).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;');
    expect(html).toContain(escapeHtml(HOSTILE_PROMPT));
    expect(html).toContain('<title>Fix the &#60;b&#62;charges&#60;/b&#62; · memd report</title>');
    const tags = tagsOf(html).map((tag) => tag.toLowerCase());
    expect(tags.some((tag) => tag.startsWith('<script') || tag.startsWith('<img') || tag.startsWith('<b>'))).toBe(
      false,
    );
  });

  it('loads nothing: no script, no src or href, no URL, no font file, and a policy that forbids them', () => {
    for (const tag of tagsOf(html)) expect(tag).not.toMatch(/\s(?:src|href|srcset|action)\s*=/i);
    expect(html).not.toMatch(/https?:|url\(|@import|@font-face/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
  });

  it('folds tool calls in <details>, failed ones marked, output cut with a note', () => {
    expect(html).toContain(
      '<details class="tool failed" data-tool-use-id="toolu_1"><summary><span class="tool-name">Bash</span> <code>npm test</code> <span class="badge bad">exit 1</span>',
    );
    expect(html).toContain(
      '<pre class="bad">FAIL ```fenced``` &#60;/details&#62; &#60;script&#62;x&#60;/script&#62;</pre><p class="cut">1,234 more characters of this output were left out of the report.</p>',
    );
    expect(html.match(/<details/g)).toHaveLength(3);
    expect(html.match(/<\/details>/g)).toHaveLength(3);
  });

  it('has the chart, the cost by model, cache hit rate, files (relative to the cwd) and errors', () => {
    expect(html).toContain('<svg id="context-chart"');
    expect(html).toContain('<line class="threshold"');
    expect(html).toContain('auto-compact threshold 167,000 tokens (window 200,000)');
    expect(html).toContain('<line class="compaction"');
    expect(html).toContain(
      '<div class="compaction-marker" id="compaction-1"><span>Compaction 1 · auto · 189,483 tokens before · 2026-12-02 10:27:00 UTC</span></div>',
    );
    expect(html).toContain('<td><code>claude-opus-4-8</code></td><td class="num">3</td>');
    expect(html).toContain('<strong>60.0%</strong>');
    expect(html).toContain('<code title="/home/user/src/payments-api/payments/charges.py">payments/charges.py</code>');
    expect(html).toContain('<code title="/etc/&#60;hosts&#62;">/etc/&#60;hosts&#62;</code>');
    expect(html).toContain('<pre class="bad">AssertionError: &#60;expected&#62; 1</pre>');
  });

  it('says the session compacts when the API refuses, at its window, in reactive mode', () => {
    const model = sampleModel();
    const reactive = renderHtml({
      ...model,
      chart: { ...model.chart, autoCompactAt: 1_000_000, window: 1_000_000, autoCompactMode: 'reactive' },
    });
    expect(reactive).toContain('window 1,000,000 tokens (compacts when the API refuses the request)');
    expect(reactive).not.toContain('auto-compact');
  });

  it('shows paths under the cwd relative to it, others whole', () => {
    expect(shownPath('/a/b/c.ts', '/a/b')).toBe('c.ts');
    expect(shownPath('/a/bc/d.ts', '/a/b')).toBe('/a/bc/d.ts');
    expect(shownPath('/x.ts', null)).toBe('/x.ts');
  });
});

describe('renderHtml: what the conversation leaves out is said', () => {
  it('names the messages on rewound branches and how to see them; says nothing when there are none', () => {
    const model = sampleModel();
    expect(renderHtml(model)).not.toContain('outside the conversation');
    const html = renderHtml({ ...model, conversation: { ...model.conversation, offBranchMessages: 15_963 } });
    expect(html).toContain('15,963 messages outside the conversation');
    expect(html).toContain('--format jsonl');
  });
});
