/**
 * Where a JSON text first breaks the grammar, as a line and a column a person can go to.
 * JSON.parse's messages give a position only for some errors and differ between Node versions
 * ("Unexpected token '}', ..." has none on Node 20), so a file memd refuses to touch is checked
 * again here to tell the user exactly where to look. Pure: text in, location out.
 */

export interface JsonSyntaxProblem {
  /** UTF-16 offset into the text, as JSON.parse counts. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  reason: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const SIMPLE_ESCAPES = '"\\/bfnrt';
const WHITESPACE = ' \t\n\r';

function describeChar(char: string | undefined): string {
  if (char === undefined) return 'end of input';
  const code = char.codePointAt(0) ?? 0;
  if (code > 0x20 && code < 0x7f) return `'${char}'`;
  return `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Walks the text as JSON.parse does and throws a Stop at the first character that breaks the grammar. */
function scan(text: string): void {
  let pos = 0;
  const stop = (reason: string): Stop => new Stop(pos, reason);
  const skipWhitespace = (): void => {
    while (pos < text.length && WHITESPACE.includes(text[pos] ?? '')) pos++;
  };
  const matchAt = (pattern: RegExp): boolean => {
    pattern.lastIndex = pos;
    if (!pattern.test(text)) return false;
    pos = pattern.lastIndex;
    return true;
  };
  const string = (): void => {
    pos++;
    for (;;) {
      const char = text[pos];
      if (char === undefined) throw stop('unterminated string');
      if (char === '"') {
        pos++;
        return;
      }
      if (char === '\\') {
        const escaped = text[pos + 1];
        if (escaped === 'u') {
          pos += 2;
          if (!matchAt(HEX4)) throw stop('\\u must be followed by 4 hex digits');
          continue;
        }
        if (escaped === undefined || !SIMPLE_ESCAPES.includes(escaped)) throw stop(`invalid escape \\${escaped ?? ''}`);
        pos += 2;
        continue;
      }
      if ((char.codePointAt(0) ?? 0) < 0x20)
        throw stop(`${describeChar(char)} inside a string (write it as an escape such as \\n)`);
      pos++;
    }
  };
  const value = (): void => {
    skipWhitespace();
    const char = text[pos];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      if (!matchAt(NUMBER)) throw stop('invalid number');
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return;
      }
    }
    throw stop(`unexpected ${describeChar(char)}, expected a value`);
  };
  const object = (): void => {
    pos++;
    skipWhitespace();
    if (text[pos] === '}') {
      pos++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] !== '"')
        throw stop(`unexpected ${describeChar(text[pos])}, expected a double-quoted property name`);
      string();
      skipWhitespace();
      if (text[pos] !== ':') throw stop(`unexpected ${describeChar(text[pos])}, expected ':' after the property name`);
      pos++;
      value();
      skipWhitespace();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') {
        pos++;
        return;
      }
      throw stop(`unexpected ${describeChar(text[pos])}, expected ',' or '}'`);
    }
  };
  const array = (): void => {
    pos++;
    skipWhitespace();
    if (text[pos] === ']') {
      pos++;
      return;
    }
    for (;;) {
      value();
      skipWhitespace();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') {
        pos++;
        return;
      }
      throw stop(`unexpected ${describeChar(text[pos])}, expected ',' or ']'`);
    }
  };
  value();
  skipWhitespace();
  if (pos < text.length) throw stop(`unexpected ${describeChar(text[pos])} after the end of the JSON value`);
}

/** The first syntax error in `text`, or undefined when it is valid JSON (or nested too deep to scan). */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  try {
    scan(text);
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) return undefined; // a RangeError from absurd nesting: no location to give
    return { offset: error.offset, ...lineAndColumn(text, error.offset), reason: error.reason };
  }
}
