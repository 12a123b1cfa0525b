import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONG_LINE_BYTES, LONG_STRING_BYTES, parseLine } from '../../../../daemon/ingest/long-lines.js';
import { CUT_VALUE } from '../../../../shared/transcript/depth.js';
import { parseEntry } from '../../../../shared/transcript/parse.js';
import { FIXTURES } from '../../../helpers/ingest.js';

/** Deterministic pseudo-random numbers, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = [
  'plain text ',
  '\n',
  '"',
  '\\',
  '/',
  '\t',
  '\u0001',
  '\u001f',
  'é',
  '€',
  '😀',
  '\ud83d',
  '\ude00',
  '\u2028',
  '\b\f\r',
];

/** A long string mixing every kind of character JSON escapes or that is not ASCII. */
function nastyString(next: () => number, length: number): string {
  let text = '';
  while (text.length < length) text += PIECES[Math.floor(next() * PIECES.length)] as string;
  return text;
}

/** JSON.stringify, with some characters in strings written as \u or \/ escapes, as other writers do. */
function writeJson(value: unknown, next: () => number): string {
  const escaped = (char: string) => (char === '/' ? '\\/' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value).replace(/"(?:[^"\\]|\\.)*"/g, (literal) =>
    literal.replace(/[é/a]/g, (char) => (next() < 0.3 ? escaped(char) : char)),
  );
}

function expectSameEntry(line: Buffer): void {
  const expected = parseEntry(JSON.parse(line.toString('utf8')), 0, line.length);
  expect(parseEntry(parseLine(line), 0, line.length)).toEqual(expected);
}

function fixtureLines(): Buffer[] {
  const lines: Buffer[] = [];
  for (const scenario of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!scenario.isDirectory()) continue;
    const projects = join(FIXTURES, scenario.name, 'projects');
    for (const project of readdirSync(projects)) {
      for (const name of readdirSync(join(projects, project))) {
        if (!name.endsWith('.jsonl')) continue;
        for (const line of readFileSync(join(projects, project, name), 'utf8').split('\n'))
          if (line) lines.push(Buffer.from(line));
      }
    }
  }
  return lines;
}

describe('parseLine', () => {
  it('gives every fixture line, blown up past the long-line size, the same index row as JSON.parse', () => {
    const next = random(1);
    let longLines = 0;
    // Every third line keeps the test quick; the shapes repeat.
    for (const line of fixtureLines().filter((_, index) => index % 3 === 0)) {
      const value = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
      expectSameEntry(line);
      // Every string value, ids included, grown to a long string of escapes and non-ASCII text.
      const grown = JSON.stringify(value, (_key, inner: unknown) =>
        typeof inner === 'string' && inner.length > 20 ? inner + nastyString(next, LONG_STRING_BYTES) : inner,
      );
      const bytes = Buffer.from(writeJson(JSON.parse(grown), next));
      if (bytes.length >= LONG_LINE_BYTES) longLines++;
      expectSameEntry(bytes);
    }
    expect(longLines).toBeGreaterThan(50);
  });

  it('measures tool results, texts, tool inputs and attachments exactly, whatever their escapes', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const next = random(seed);
      const long = () => nastyString(next, LONG_STRING_BYTES + Math.floor(next() * 40_000));
      const entries = [
        {
          type: 'user',
          uuid: 'u',
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't', content: long() },
              { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: long() }] },
            ],
          },
        },
        {
          type: 'assistant',
          uuid: 'a',
          message: {
            id: 'm',
            model: 'claude-opus-4-5',
            content: [
              { type: 'text', text: long() },
              { type: 'tool_use', id: 'x', name: 'Write', input: { file_path: '/a', content: long() } },
              { type: 'thinking', thinking: long() },
            ],
          },
        },
        {
          type: 'attachment',
          uuid: 'h',
          attachment: { type: 'hook_success', hookName: 'SessionStart', hookEvent: 'SessionStart', content: long() },
        },
        {
          type: 'attachment',
          uuid: 'f',
          attachment: { type: 'file', filename: '/a', content: { file: { content: long() } } },
        },
        {
          type: 'user',
          uuid: 'w',
          message: { role: 'user', content: long() },
          toolUseResult: { stdout: long(), stderr: long() },
        },
      ];
      for (const entry of entries) expectSameEntry(Buffer.from(writeJson(entry, next)));
    }
  });

  it('keeps ids, types and titles as they are, however long', () => {
    const id = 'i'.repeat(LONG_STRING_BYTES * 2);
    const line = Buffer.from(
      JSON.stringify({
        type: 'custom-title',
        customTitle: `${id}é\n`,
        uuid: id,
        sessionId: id,
        cwd: id,
        message: { content: 'x'.repeat(LONG_LINE_BYTES) },
      }),
    );
    const value = parseLine(line) as Record<string, unknown>;
    expect(value.customTitle).toBe(`${id}é\n`);
    expect(value.uuid).toBe(id);
    expectSameEntry(line);
  });

  it('fails as JSON.parse does on lines that are not JSON', () => {
    const body = 'y'.repeat(LONG_LINE_BYTES);
    for (const text of [
      `{"type":"user","message":{"content":"${body}\\x"}}`,
      `{"type":"user","message":{"content":"${body}\\u12"}}`,
      `{"type":"user","message":{"content":"${body}`,
      `{"type":"user" "message":"${body}"}`,
      `{"a":"${body}"}}`,
    ]) {
      expect(() => JSON.parse(text)).toThrow();
      expect(() => parseLine(Buffer.from(text))).toThrow();
    }
  });

  it('does not take a string that merely looks like a placeholder for one', () => {
    const line = Buffer.from(
      JSON.stringify({
        type: 'user',
        note: '\u0000memd-0000000000000000:0',
        message: { content: 'z'.repeat(LONG_LINE_BYTES) },
      }),
    );
    expect((parseLine(line) as Record<string, unknown>).note).toBe('\u0000memd-0000000000000000:0');
  });

  it('cuts a long line nested 10,000 deep, and still puts its long strings back (no recursive reviver)', () => {
    const deep = `${'['.repeat(10_000)}"${'q'.repeat(LONG_STRING_BYTES)}"${']'.repeat(10_000)}`;
    const text = 'é'.repeat(LONG_LINE_BYTES);
    const line = Buffer.from(
      `{"type":"assistant","uuid":"a","message":{"id":"m","content":[{"type":"text","text":"${text}"},{"type":"tool_use","id":"t","name":"W","input":{"v":${deep}}}],"usage":{"output_tokens":9}}}`,
    );
    const value = parseLine(line) as { message: { content: { text?: string; input?: unknown }[] } };
    const [first, second] = value.message.content;
    expect(first?.text).toHaveLength(text.length);
    expect(JSON.stringify(second?.input)).toContain(CUT_VALUE);
    expect(parseEntry(value, 0, line.length)?.usage?.output).toBe(9);
  });
});
