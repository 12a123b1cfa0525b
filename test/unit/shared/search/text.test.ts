import { describe, expect, it } from 'vitest';
import { KIND_SLOTS } from '../../../../daemon/store/search-row.js';
import { SEARCH_KINDS } from '../../../../shared/protocol/search.js';
import {
  SEARCH_FILE_OUTPUT_CHARS,
  SEARCH_OUTPUT_CHARS,
  SEARCH_TEXT_CHARS,
  SEARCH_TEXT_TAIL_CHARS,
  SEARCH_THINKING_CHARS,
  SEARCH_WRITE_CHARS,
  searchTexts,
} from '../../../../shared/search/text.js';

const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  message: { role: 'user', content },
  ...extra,
});
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
        {
          type: 'tool_use',
          id: 't1',
          name: 'Bash',
          input: { command: 'npm test', description: 'Run tests', timeout: 5 },
        },
        { type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/src/totals.js', limit: 10 } },
      ]),
    );
    expect(texts).toEqual([
      { kind: 'assistant', text: 'Running the tests.' },
      { kind: 'tool', text: 'Bash npm test Run tests\nRead /src/totals.js' },
    ]);
  });

  it('takes the key lines of a failed call, and a bounded start of each output', () => {
    const failure = [
      '> node test/run.js',
      'ok 1 - totals',
      'AssertionError: expected 10353, got 10350',
      '    at run (test/run.js:31)',
      'exit code 1',
    ].join('\n');
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
    const read = user([{ type: 'tool_result', tool_use_id: 't1', content }], {
      toolUseResult: { type: 'text', file: { filePath: '/src/totals.js', content } },
    });
    expect(searchTexts(read)).toEqual([{ kind: 'output', text: content.slice(0, SEARCH_FILE_OUTPUT_CHARS) }]);
    const bash = user([{ type: 'tool_result', tool_use_id: 't2', content }], {
      toolUseResult: { stdout: content, stderr: '' },
    });
    expect(searchTexts(bash)).toEqual([{ kind: 'output', text: content.slice(0, SEARCH_OUTPUT_CHARS) }]);
  });

  it('indexes a typed prompt whole, a word at character 14,425 included (issue 28)', () => {
    const prompt = `${'filler words of a long typed prompt '.repeat(400).slice(0, 14_425)} zanzibarian tail`;
    const [text] = searchTexts(user(prompt));
    expect(text?.kind).toBe('prompt');
    expect(text?.text).toContain('zanzibarian');
    const [reply] = searchTexts(assistant([{ type: 'text', text: prompt }]));
    expect(reply?.text).toContain('zanzibarian');
  });

  it('indexes a paste past the cap by its head and tail, cut between words', () => {
    const word = (n: number) => `w${n}x `;
    let long = '';
    for (let n = 0; long.length < SEARCH_TEXT_CHARS * 3; n++) long += word(n);
    const [text] = searchTexts(user(`headmarker ${long} tailmarker`));
    const indexed = text?.text ?? '';
    expect(indexed).toContain('headmarker');
    expect(indexed).toContain('tailmarker');
    expect(indexed.length).toBeLessThanOrEqual(SEARCH_TEXT_CHARS + 3);
    expect(indexed.length).toBeGreaterThan(SEARCH_TEXT_CHARS - SEARCH_TEXT_TAIL_CHARS);
    // Every word indexed is one of the text's whole words.
    for (const token of indexed.split(/\s+/)) expect(token).toMatch(/^(headmarker|tailmarker|…|w\d+x)$/);
  });

  it('redacts a secret the head-and-tail cut falls in, whole', () => {
    const key = `sk-ant-api03-${'Ab3'.repeat(60)}`;
    const headCut = SEARCH_TEXT_CHARS - SEARCH_TEXT_TAIL_CHARS;
    const prompt = `${'a '.repeat(headCut / 2 - 10)}${key} ${'b '.repeat(SEARCH_TEXT_CHARS)}`;
    const indexed = searchTexts(user(prompt))[0]?.text ?? '';
    expect(indexed).not.toContain('Ab3Ab3');
  });

  it('indexes what Write, Edit, MultiEdit and NotebookEdit wrote, with its path, as kind write (issue 28)', () => {
    const testFile = `import pytest\n\n${'def test_other():\n    assert True\n\n'.repeat(40)}def test_refund_retries_after_timeout(client):\n    assert client.refund(retry=3)\n`;
    const texts = searchTexts(
      assistant([
        {
          type: 'tool_use',
          id: 't1',
          name: 'Write',
          input: { file_path: '/shop/tests/test_refund.py', content: testFile },
        },
      ]),
    );
    expect(texts).toEqual([
      { kind: 'tool', text: 'Write /shop/tests/test_refund.py' },
      { kind: 'write', text: `Write /shop/tests/test_refund.py\n${testFile.trim()}` },
    ]);
    const edit = searchTexts(
      assistant([
        {
          type: 'tool_use',
          id: 't2',
          name: 'Edit',
          input: { file_path: '/a.ts', old_string: 'oldWord', new_string: 'newWord' },
        },
      ]),
    );
    expect(edit.find((text) => text.kind === 'write')?.text).toBe('Edit /a.ts\nnewWord');
    const multi = searchTexts(
      assistant([
        {
          type: 'tool_use',
          id: 't3',
          name: 'MultiEdit',
          input: {
            file_path: '/b.ts',
            edits: [{ old_string: 'x', new_string: 'first' }, 42, { old_string: 'y', new_string: 'second' }],
          },
        },
      ]),
    );
    expect(multi.find((text) => text.kind === 'write')?.text).toBe('MultiEdit /b.ts\nfirst\nsecond');
    const notebook = searchTexts(
      assistant([
        {
          type: 'tool_use',
          id: 't4',
          name: 'NotebookEdit',
          input: { notebook_path: '/n.ipynb', new_source: 'df.plot()' },
        },
      ]),
    );
    expect(notebook.find((text) => text.kind === 'write')?.text).toBe('NotebookEdit /n.ipynb\ndf.plot()');
    // Other tools write nothing; a Write with no content is still found by its path.
    expect(
      searchTexts(
        assistant([{ type: 'tool_use', id: 't5', name: 'Bash', input: { command: 'ls', content: 'x' } }]),
      ).map((text) => text.kind),
    ).toEqual(['tool']);
    expect(
      searchTexts(assistant([{ type: 'tool_use', id: 't6', name: 'Write', input: { file_path: '/c' } }])).find(
        (text) => text.kind === 'write',
      )?.text,
    ).toBe('Write /c');
  });

  it('keeps a written file by its head, shared among parallel writes, and redacted', () => {
    const big = 'line of code\n'.repeat(SEARCH_WRITE_CHARS);
    const one = searchTexts(
      assistant([{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '/big.txt', content: big } }]),
    ).find((text) => text.kind === 'write');
    expect(one?.text.length).toBeLessThanOrEqual('Write /big.txt\n'.length + SEARCH_WRITE_CHARS);
    const two = searchTexts(
      assistant([
        { type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '/one.txt', content: big } },
        { type: 'tool_use', id: 't2', name: 'Write', input: { file_path: '/two.txt', content: 'secondfile' } },
      ]),
    ).find((text) => text.kind === 'write');
    expect(two?.text).toContain('/two.txt\nsecondfile');
    const secret = searchTexts(
      assistant([
        {
          type: 'tool_use',
          id: 't3',
          name: 'Write',
          input: { file_path: '/.env', content: 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
        },
      ]),
    );
    expect(JSON.stringify(secret)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it("indexes the model's thinking as kind thinking, bounded; redacted thinking has none", () => {
    expect(
      searchTexts(
        assistant([
          { type: 'thinking', thinking: 'The refund retries because the gateway times out.', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
        ]),
      ),
    ).toEqual([{ kind: 'thinking', text: 'The refund retries because the gateway times out.' }]);
    const long = searchTexts(assistant([{ type: 'thinking', thinking: 'ponder '.repeat(SEARCH_THINKING_CHARS) }]));
    expect(long[0]?.text.length).toBeLessThanOrEqual(SEARCH_THINKING_CHARS);
    expect(searchTexts(assistant([{ type: 'thinking', thinking: '' }]))).toEqual([]);
  });

  it('has a slot of the index key for every kind', () => {
    expect(SEARCH_KINDS.length).toBeLessThanOrEqual(KIND_SLOTS);
  });

  it('gives nothing for lines that are not messages, whatever their shape', () => {
    for (const value of [
      null,
      42,
      [],
      { type: 'summary', summary: 'x' },
      { type: 'user' },
      { type: 'user', message: { content: 42 } },
      assistant('text, not blocks'),
    ]) {
      expect(searchTexts(value)).toEqual([]);
    }
  });
});
