/** Issue 28 item 6: Claude Code's command output reached terminals and models with its escapes. */
import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../../shared/text/ansi.js';

const ESC = '\u001b';

describe('stripAnsi', () => {
  it('removes SGR, cursor, OSC 8 links and lone escapes, and keeps the text', () => {
    expect(stripAnsi(`${ESC}[2mcompiled${ESC}[22m ${ESC}[1;32m✓${ESC}[0m`)).toBe('compiled ✓');
    expect(stripAnsi(`a${ESC}[2Kb${ESC}[1Ac`)).toBe('abc');
    expect(stripAnsi(`${ESC}]8;;https://example.com${ESC}\\link${ESC}]8;;${ESC}\\`)).toBe('link');
    expect(stripAnsi(`${ESC}]0;title\u0007done`)).toBe('done');
    expect(stripAnsi(`x${ESC}(By${ESC}`)).toBe('xy');
    expect(stripAnsi('\u009b31mred')).toBe('red');
  });

  it('leaves text without escapes as it is', () => {
    expect(stripAnsi('plain [2m text «x»')).toBe('plain [2m text «x»');
  });
});
