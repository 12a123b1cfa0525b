import { describe, expect, it } from 'vitest';
import { escapeProseLine, safeProse } from '../../../../shared/export/markdown-escape.js';

/** The text with memd's fenced blocks taken out: what a renderer reads as markdown and HTML. */
function outsideFences(md: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    if (fence !== null) {
      if (new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(line)) fence = null;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) fence = open[1] as string;
    else kept.push(line);
  }
  return kept.join('\n');
}

describe('safeProse', () => {
  it('writes every < outside code as an entity: no tag, comment or autolink opens', () => {
    expect(safeProse('<script>alert(1)</script>')).toBe('&lt;script>alert(1)&lt;/script>');
    expect(safeProse('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)>');
    expect(safeProse('</details>\n</summary>\n<!-- x -->\n<https://example.com>')).toBe(
      '&lt;/details>\n&lt;/summary>\n&lt;!-- x -->\n&lt;https://example.com>',
    );
    expect(safeProse('a < b and **bold** stays markdown')).toBe('a &lt; b and **bold** stays markdown');
  });

  it('leaves fenced code as it is, and closes a fence the text leaves open', () => {
    expect(safeProse('```ts\nconst a: Array<string> = [];\n```\nafter <b>')).toBe(
      '```ts\nconst a: Array<string> = [];\n```\nafter &lt;b>',
    );
    expect(safeProse('~~~\n<x>\n~~~')).toBe('~~~\n<x>\n~~~');
    // ```` is not closed by ```: the text's fence runs to its end, where memd closes it.
    expect(safeProse('````\n<script>\n```\nstill code')).toBe('````\n<script>\n```\nstill code\n````');
    expect(safeProse('```\nunclosed')).toBe('```\nunclosed\n```');
  });

  it('takes no fence CommonMark would not: indented four spaces, or a backtick in the info string', () => {
    expect(safeProse('    ```\n<script>')).toBe('    ```\n&lt;script>');
    expect(safeProse('``` a`b\n<script>')).toBe('``` a`b\n&lt;script>');
  });

  it('reads a lone \\r as a line end, as CommonMark does', () => {
    // Else "```\r<img>" would look like one line that closes nothing, and the <img> stay raw.
    expect(safeProse('```\n<x>\n```\r<img src=x onerror=alert(1)>')).toBe(
      '```\n<x>\n```\n&lt;img src=x onerror=alert(1)>',
    );
  });

  it('never lets a structural tag out, whatever the mix', () => {
    const hostile = [
      '<details><summary>planted',
      '`</details>` \\`<img src=x onerror=alert(3)>`',
      '````',
      '</summary>',
      '```',
      '</details>',
    ].join('\n');
    const out = outsideFences(safeProse(hostile));
    expect(out.match(/<(?!code>|\/code>)[a-z/!?]/gi)).toBeNull();
  });
});

describe('escapeProseLine', () => {
  it("writes code spans with < or & as memd's <code>, their text escaped", () => {
    expect(escapeProseLine('use `Array<string>` here')).toBe('use <code>Array&lt;string&gt;</code> here');
    expect(escapeProseLine('`a && b`')).toBe('<code>a &amp;&amp; b</code>');
    expect(escapeProseLine('`` `<x>` ``')).toBe('<code>\\`&lt;x&gt;\\`</code>');
    expect(escapeProseLine('`*<i>*`')).toBe('<code>\\*&lt;i&gt;\\*</code>');
  });

  it('leaves other code spans as they are', () => {
    expect(escapeProseLine('run `npm test` now')).toBe('run `npm test` now');
  });

  it('opens no span at an escaped backtick or an unmatched run', () => {
    expect(escapeProseLine('\\`<img src=x onerror=alert(1)>`')).toBe('\\`&lt;img src=x onerror=alert(1)>`');
    expect(escapeProseLine('``<b>`')).toBe('``&lt;b>`');
  });
});
