/**
 * Parsing of very long transcript lines without decoding their long strings. A 1 MB tool result
 * costs about 7 ms to decode and JSON.parse (most of it faulting in fresh pages for the large
 * strings), yet the index needs only its length and the length of its JSON. So the string values
 * of a long line that are themselves long are measured from the bytes (escapes found with
 * Buffer.indexOf), and the rest of the line, with small placeholders, is JSON.parse'd as usual.
 * Each placeholder becomes a stand-in string with the same length and the same JSON.stringify
 * length as the original (built with String.prototype.repeat, which V8 keeps as a cheap rope), so
 * every measure of transcript/tokens.ts gives exactly what it gives on the original line.
 *
 * Values the index keeps as text (ids, types, titles, paths) are never stood in for.
 * One departure from JSON.parse: a raw control character inside a stood-in string is not rejected
 * (finding one would cost a pass over the bytes per control character; Claude Code never writes one).
 */
import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';

/** Lines shorter than this are parsed whole: their strings are cheap, and scanning costs per string. */
export const LONG_LINE_BYTES = 64 * 1024;
/** String literals (raw bytes between the quotes) at least this long get a stand-in. */
export const LONG_STRING_BYTES = 8 * 1024;

/** String literals scanned before giving up on a line of many short strings... */
const SCAN_LITERALS = 256;
/** ...plus one more per this many bytes already stood in for. */
const BYTES_PER_EXTRA_LITERAL = 1024;

/** Keys whose string values parseEntry keeps or compares: they are always parsed for real. */
const KEPT_KEYS = new Set([
  'type',
  'subtype',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'timestamp',
  'sessionId',
  'id',
  'requestId',
  'model',
  'tool_use_id',
  'name',
  'cwd',
  'gitBranch',
  'customTitle',
  'aiTitle',
  'title',
  'trigger',
  'headUuid',
  'anchorUuid',
  'tailUuid',
  'hookName',
  'hookEvent',
]);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Unforgeable within this process: a line would have to guess it to pass for a placeholder. */
const MARKER = `\u0000memd-${randomBytes(8).toString('hex')}:`;

/** What a long string literal decodes to, counted from its raw bytes. */
interface StringShape {
  /** UTF-16 length of the decoded string. */
  length: number;
  /** Decoded characters that JSON.stringify writes as two characters (`\n`, `\"`, ...). */
  twoCharEscapes: number;
  /** Decoded characters that JSON.stringify writes as six (`\u0001`, lone surrogates). */
  sixCharEscapes: number;
}

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The quote that closes the string opened at `open`, or -1 if the line ends first. */
function closingQuote(line: Buffer, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = line.indexOf(QUOTE, from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (line[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function hex4(line: Buffer, at: number): number {
  const digits = line.toString('latin1', at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(digits) ? Number.parseInt(digits, 16) : -1;
}

const SHORT_ESCAPES: Record<number, number> = {
  // Escape letter → how many characters JSON.stringify writes for the decoded character.
  0x22: 2,
  0x5c: 2,
  0x2f: 1,
  0x62: 2,
  0x66: 2,
  0x6e: 2,
  0x72: 2,
  0x74: 2,
};

/** How JSON.stringify writes code unit `unit` (surrogates are handled by the caller). */
function escapedWidth(unit: number): number {
  if (
    unit === 0x22 ||
    unit === 0x5c ||
    unit === 0x08 ||
    unit === 0x0c ||
    unit === 0x0a ||
    unit === 0x0d ||
    unit === 0x09
  )
    return 2;
  return unit < 0x20 ? 6 : 1;
}

/** The shape of the string literal between `open` and `close`, or null if an escape is invalid. */
function shapeOf(line: Buffer, open: number, close: number): StringShape | null {
  const start = open + 1;
  // Raw characters: escapes are ASCII, so only non-ASCII text needs decoding to be counted.
  let length = isAscii(line.subarray(start, close)) ? close - start : line.toString('utf8', start, close).length;
  let twoCharEscapes = 0;
  let sixCharEscapes = 0;
  // Where an escaped high surrogate ended: it pairs only with an escaped low one right there.
  let highEnd = -1;
  for (let from = start; ; ) {
    const backslash = line.indexOf(BACKSLASH, from);
    if (backslash === -1 || backslash >= close) break;
    const letter = line[backslash + 1] as number;
    const unit = letter === 0x75 ? hex4(line, backslash + 2) : -1;
    const isLow = unit >= 0xdc00 && unit <= 0xdfff;
    if (highEnd !== -1 && !(isLow && backslash === highEnd)) sixCharEscapes++; // a lone high surrogate
    const paired = highEnd !== -1 && isLow && backslash === highEnd;
    highEnd = -1;
    if (letter !== 0x75) {
      const width = SHORT_ESCAPES[letter];
      if (width === undefined) return null;
      length -= 1;
      if (width === 2) twoCharEscapes++;
      from = backslash + 2;
      continue;
    }
    if (unit === -1) return null;
    length -= 5;
    from = backslash + 6;
    if (paired) continue;
    if (unit >= 0xd800 && unit <= 0xdbff) highEnd = from;
    else if (isLow) sixCharEscapes++;
    else if (escapedWidth(unit) === 2) twoCharEscapes++;
    else if (escapedWidth(unit) === 6) sixCharEscapes++;
  }
  if (highEnd !== -1) sixCharEscapes++;
  return { length, twoCharEscapes, sixCharEscapes };
}

/** A string of the shape's length whose JSON.stringify is as long as the original's. */
function filler(shape: StringShape): string {
  const plain = shape.length - shape.twoCharEscapes - shape.sixCharEscapes;
  return 'x'.repeat(plain) + '\n'.repeat(shape.twoCharEscapes) + '\u0001'.repeat(shape.sixCharEscapes);
}

/**
 * Raw bytes of a long string decoded for real: a prompt's title comes from its start
 * (shared/transcript/prompt-text.ts), 200 characters even when every one is a `\u` escape.
 */
export const DECODED_PREFIX_BYTES = 2 * 1024;

/** The end of the longest run of whole characters and escapes from `start` within `limit`. */
function prefixEnd(line: Buffer, start: number, limit: number): number {
  let at = start;
  while (at < limit) {
    const byte = line[at] as number;
    let width: number;
    if (byte === BACKSLASH) {
      width = line[at + 1] === 0x75 ? 6 : 2;
      // An escaped surrogate pair stays whole, so that each side is measured as one character.
      const unit = width === 6 ? hex4(line, at + 2) : -1;
      if (unit >= 0xd800 && unit <= 0xdbff && line[at + 6] === BACKSLASH && line[at + 7] === 0x75) width = 12;
    } else {
      width = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    }
    if (at + width > limit) break;
    at += width;
  }
  return at;
}

/**
 * The stand-in for the literal between `open` and `close`: its first DECODED_PREFIX_BYTES
 * decoded, then filler, so that the whole has the original's length and JSON length.
 */
function standIn(line: Buffer, open: number, close: number, shape: StringShape): string {
  const cut = prefixEnd(line, open + 1, Math.min(close, open + 1 + DECODED_PREFIX_BYTES));
  const head = shapeOf(line, open, cut);
  let prefix: string;
  try {
    prefix = head === null ? '' : (JSON.parse(`"${line.toString('utf8', open + 1, cut)}"`) as string);
  } catch {
    // A raw control character (not JSON, measured anyway): the prefix is left out.
    return filler(shape);
  }
  if (head === null || prefix === '') return filler(shape);
  return (
    prefix +
    filler({
      length: shape.length - head.length,
      twoCharEscapes: shape.twoCharEscapes - head.twoCharEscapes,
      sixCharEscapes: shape.sixCharEscapes - head.sixCharEscapes,
    })
  );
}

/** The key a value literal at `open` belongs to, if the bytes before it are `"key":`. */
function keyBefore(line: Buffer, open: number, lastKey: { open: number; close: number } | null): string | null {
  let at = open - 1;
  while (isWhitespace(line[at])) at--;
  if (line[at] !== COLON || lastKey === null) return null;
  at--;
  while (isWhitespace(line[at])) at--;
  if (at !== lastKey.close) return null;
  // Through JSON.parse: a key may be written with escapes (`"typ\u0065"`).
  return JSON.parse(line.toString('utf8', lastKey.open, lastKey.close + 1)) as string;
}

/**
 * JSON.parse of a line, long strings measured instead of decoded, nesting cut to MAX_ENTRY_DEPTH
 * (transcript/depth.ts). Throws as JSON.parse does on a line that is not JSON. Short lines, and
 * long lines without long strings, go to JSON.parse whole.
 */
export function parseLine(line: Buffer): unknown {
  if (line.length < LONG_LINE_BYTES) return parseTranscriptJson(line.toString('utf8'));
  const pieces: Buffer[] = [];
  const standIns: string[] = [];
  let copiedTo = 0;
  let lastKey: { open: number; close: number } | null = null;
  let budget = SCAN_LITERALS;
  for (let open = line.indexOf(QUOTE); open !== -1 && budget > 0; budget--) {
    const close = closingQuote(line, open);
    if (close === -1) break;
    let after = close + 1;
    while (isWhitespace(line[after])) after++;
    if (line[after] === COLON) {
      lastKey = { open, close };
    } else if (close - open - 1 >= LONG_STRING_BYTES) {
      const key = keyBefore(line, open, lastKey);
      const shape = key !== null && KEPT_KEYS.has(key) ? null : shapeOf(line, open, close);
      if (shape !== null) {
        pieces.push(line.subarray(copiedTo, open), Buffer.from(JSON.stringify(`${MARKER}${standIns.length}`)));
        standIns.push(standIn(line, open, close, shape));
        copiedTo = close + 1;
        budget += (close - open) / BYTES_PER_EXTRA_LITERAL;
      }
    }
    open = line.indexOf(QUOTE, close + 1);
  }
  if (standIns.length === 0) return parseTranscriptJson(line.toString('utf8'));
  pieces.push(line.subarray(copiedTo));
  // Not a JSON.parse reviver: V8 runs revivers recursively, and a line 4,000 deep overflows it.
  const value = parseTranscriptJson(Buffer.concat(pieces).toString('utf8'));
  return putBack(value, standIns);
}

/** The value with each placeholder string replaced by its stand-in, in place; iterative. */
function putBack(value: unknown, standIns: readonly string[]): unknown {
  const standInFor = (text: string) => standIns[Number(text.slice(MARKER.length))];
  if (typeof value === 'string') return value.startsWith(MARKER) ? standInFor(value) : value;
  const containers: unknown[] = [value];
  while (containers.length > 0) {
    const container = containers.pop();
    if (typeof container !== 'object' || container === null) continue;
    const record = container as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (typeof child === 'string') {
        if (child.startsWith(MARKER)) record[key] = standInFor(child);
      } else if (typeof child === 'object' && child !== null) {
        containers.push(child);
      }
    }
  }
  return value;
}
