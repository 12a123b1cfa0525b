import { describe, expect, it } from 'vitest';
import { SEARCH_FILE_OUTPUT_CHARS, SEARCH_OUTPUT_CHARS, searchTexts } from '../../../../shared/search/text.js';

const user = (content: unknown, extra: Record<string, unknown> = {}) => ({ type: 'user', message: { role: 'user', content }, ...extra });
const assistant = (content: unknown) => ({ type: 'assistant', message: { role: 'assistant', content } });

describe('searchTexts', () => {
  it('takes what the user typed, not what Claude Code injected', () => {
    expect(searchTexts(user('Fix the invoice total'))).toEqual([{ kind: 'prompt', text: 'Fix the invoice total' }]);
    expect(searchTexts(user('<system-reminder>be brief</system-reminder>'))).toEqual([]);
    expect(searchTexts(user('<command-name>/compact</command-name>'))).toEqual([]);
    expect(searchTexts(user('a summary', { isCompactSummary: true }))).toEqual([]);
    expect(
      searchTexts(
        user([
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ]),
      ),
    ).toEqual([{ kind: 'prompt', text: 'first\nsecond' }]);
  });

  it("takes the assistant's text and its tool calls' telling inputs", () => {
    const texts = searchTexts(
      assistant([
        { type: 'text', text: 'Running the tests.' },
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test', description: 'Run tests', timeout: 5 } },
        { type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/src/totals.js', limit: 10 } },
      ]),
    );
    expect(texts).toEqual([
      { kind: 'assistant', text: 'Running the tests.' },
      { kind: 'tool', text: 'Bash npm test Run tests\nRead /src/totals.js' },
    ]);
  });

  it('takes the key lines of a failed call, and a bounded start of each output', () => {
    const failure = ['> node test/run.js', 'ok 1 - totals', 'AssertionError: expected 10353, got 10350', '    at run (test/run.js:31)', 'exit code 1'].join('\n');
    const long = 'x'.repeat(SEARCH_OUTPUT_CHARS * 3);
    const texts = searchTexts(
      user([
        { type: 'tool_result', tool_use_id: 't1', is_error: true, content: failure },
        { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: long }] },
      ]),
    );
    expect(texts).toEqual([
      { kind: 'error', text: 'AssertionError: expected 10353, got 10350\nexit code 1' },
      { kind: 'output', text: 'x'.repeat(SEARCH_OUTPUT_CHARS) },
    ]);
  });

  it("keeps less of a file's content as Read gave it than of other output", () => {
    const content = `1\t/** Totals of an invoice. */\n${'2\tconst x = 1;\n'.repeat(200)}`;
    const read = user([{ type: 'tool_result', tool_use_id: 't1', content }], { toolUseResult: { type: 'text', file: { filePath: '/src/totals.js', content } } });
    expect(searchTexts(read)).toEqual([{ kind: 'output', text: content.slice(0, SEARCH_FILE_OUTPUT_CHARS) }]);
    const bash = user([{ type: 'tool_result', tool_use_id: 't2', content }], { toolUseResult: { stdout: content, stderr: '' } });
    expect(searchTexts(bash)).toEqual([{ kind: 'output', text: content.slice(0, SEARCH_OUTPUT_CHARS) }]);
  });

  it('gives nothing for lines that are not messages, whatever their shape', () => {
    for (const value of [null, 42, [], { type: 'summary', summary: 'x' }, { type: 'user' }, { type: 'user', message: { content: 42 } }, assistant('text, not blocks')]) {
      expect(searchTexts(value)).toEqual([]);
    }
  });
});
