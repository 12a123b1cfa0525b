import { describe, expect, it } from 'vitest';
import { formatJson, formatText, stderrFormat } from '../../../../daemon/log/format.js';
import { createLogger } from '../../../../daemon/log/logger.js';
import type { LogLevel } from '../../../../shared/config.js';

const NOW = new Date(2024, 4, 6, 7, 8, 9, 10); // local time: the text format shows the local clock
const clock = () => NOW;

function memorySink() {
  const written: string[] = [];
  return {
    written,
    sink: { file: null, write: (_level: LogLevel, line: string) => void written.push(line), close() {} },
  };
}

describe('stderrFormat', () => {
  it.each([
    ['auto', true, false, 'text'],
    ['auto', false, false, 'json'],
    ['auto', true, true, 'json'],
    ['auto', false, true, 'json'],
    ['json', true, false, 'json'],
    ['text', false, false, 'text'],
    ['text', false, true, 'text'],
  ] as const)('%s with a terminal %s, under systemd %s: %s', (setting, isTTY, underSystemd, expected) => {
    expect(stderrFormat(setting, { isTTY, underSystemd })).toBe(expected);
  });
});

describe('formatText', () => {
  it('writes the local time, the padded level, the message and the fields as key=value', () => {
    const line = formatText(
      'info',
      'ready',
      { socket: '/run/user/1000/memd/memd.sock', pid: 42, sessions: { live: 2 } },
      NOW,
    );
    expect(line).toBe('07:08:09.010 info  ready socket=/run/user/1000/memd/memd.sock pid=42 sessions={"live":2}\n');
  });

  it('quotes values a reader could misparse', () => {
    const line = formatText(
      'warn',
      'odd',
      { spaced: 'two words', empty: '', equals: 'a=b', none: null, missing: undefined },
      NOW,
    );
    expect(line).toBe('07:08:09.010 warn  odd spaced="two words" empty="" equals="a=b" none=null missing=undefined\n');
  });

  it('puts an error on its line and its stack frames indented below', () => {
    const error = new TypeError('bad thing');
    error.stack = 'TypeError: bad thing\n    at one (a.js:1:1)\n    at two (b.js:2:2)';
    expect(formatText('error', 'failed', { error }, NOW)).toBe(
      '07:08:09.010 error failed error="TypeError: bad thing"\n    at one (a.js:1:1)\n    at two (b.js:2:2)\n',
    );
  });

  it('indents the lines of a message that has several', () => {
    expect(formatText('info', 'two\nlines', undefined, NOW)).toBe('07:08:09.010 info  two\n    lines\n');
  });
});

describe('formatText and control characters', () => {
  /** ESC and CSI (U+009B): what a terminal would act on instead of showing. */
  const ESC = '\u001b';
  const CSI = '\u009b';

  it('shows them escaped in fields, the message and an error, never as they are', () => {
    const error = new Error(`bad ${ESC}]0;title${ESC}\\`);
    error.stack = `Error: bad\n    at ${CSI}2J (x.js:1:1)`;
    const line = formatText(
      'warn',
      `cannot read ${ESC}[2Jfile`,
      { path: `/p/${ESC}[31mred`, c1: `${CSI}31m`, del: 'a\u007fb', error },
      NOW,
    );
    // Only the newlines (the line's end) are control characters in what reaches the terminal.
    const controls = [...line].filter(
      (char) => char !== '\n' && (char < ' ' || (char >= '\u007f' && char <= '\u009f')),
    );
    expect(controls).toEqual([]);
    expect(line).toContain('cannot read \\u001b[2Jfile');
    expect(line).toContain('path="/p/\\u001b[31mred"');
    expect(line).toContain('c1="\\u009b31m"');
    expect(line).toContain('del="a\\u007fb"');
    expect(line).toContain('error="Error: bad \\u001b]0;title\\u001b\\\\"');
    expect(line).toContain('at \\u009b2J (x.js:1:1)');
  });

  it('quotes a value with a backslash, so an escape it shows is told from one it carries', () => {
    expect(formatText('info', 'm', { literal: '\\u001b' }, NOW)).toBe('07:08:09.010 info  m literal="\\\\u001b"\n');
  });
});

describe('createLogger with a format', () => {
  it('writes text lines when asked, JSON ones by default', () => {
    const text = memorySink();
    createLogger(text.sink, 'info', clock, 'text').info('ready', { pid: 1 });
    expect(text.written).toEqual(['07:08:09.010 info  ready pid=1\n']);

    const json = memorySink();
    createLogger(json.sink, 'info', clock).info('ready', { pid: 1 });
    expect(json.written).toEqual([formatJson('info', 'ready', { pid: 1 }, NOW)]);
    expect(JSON.parse(json.written[0] ?? '')).toEqual({ time: NOW.toISOString(), level: 'info', msg: 'ready', pid: 1 });
  });
});
