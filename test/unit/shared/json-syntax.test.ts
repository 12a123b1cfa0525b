import { describe, expect, it } from 'vitest';
import { findJsonSyntaxProblem } from '../../../shared/json-syntax.js';

describe('findJsonSyntaxProblem', () => {
  it.each([
    ['{\n  "a": 1,\n}', 3, 1, "unexpected '}', expected a double-quoted property name"],
    ['{"a":}', 1, 6, "unexpected '}', expected a value"],
    ['{\n  "hooks": {\n    "Stop": [1,]\n  }\n}', 3, 16, "unexpected ']', expected a value"],
    ['{"a" 1}', 1, 6, "unexpected '1', expected ':' after the property name"],
    ['{"a": 1 "b": 2}', 1, 9, "unexpected '\"', expected ',' or '}'"],
    ['[1 2]', 1, 4, "unexpected '2', expected ',' or ']'"],
    ['{"a": "b\nc"}', 1, 9, 'character U+000A inside a string (write it as an escape such as \\n)'],
    ['{"a": "\\x"}', 1, 8, 'invalid escape \\x'],
    ['{"a": "\\u12"}', 1, 10, '\\u must be followed by 4 hex digits'],
    ['{"a": "b', 1, 9, 'unterminated string'],
    ['{"a": -}', 1, 7, 'invalid number'],
    ['{"a": tru}', 1, 7, "unexpected 't', expected a value"],
    ['{} x', 1, 4, "unexpected 'x' after the end of the JSON value"],
    ['\uFEFF{}', 1, 1, 'unexpected character U+FEFF, expected a value'],
    ['{"a": 1', 1, 8, "unexpected end of input, expected ',' or '}'"],
    ['// comment\n{}', 1, 1, "unexpected '/', expected a value"],
  ])('locates the error in %j', (text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(findJsonSyntaxProblem(text)).toMatchObject({ line, column, reason });
  });

  it.each(['{}', '[]', ' {"a": [1, -2.5e+3, true, false, null, "\\u00e9\\n\\"", {}]}\n', '"x"', '0'])(
    'finds nothing wrong in valid JSON %j',
    (text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(findJsonSyntaxProblem(text)).toBeUndefined();
    },
  );

  it('gives the offset JSON.parse counts from', () => {
    expect(findJsonSyntaxProblem('{"a": 1 x')?.offset).toBe(8);
  });
});
