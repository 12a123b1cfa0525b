import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkMemoryName,
  MAX_DEPTH,
  MAX_NAME_BYTES,
  MAX_SEGMENT_BYTES,
  NameReason,
  quoteName,
} from '../../../../shared/memdir/names.js';

const R = NameReason;

/** Six 190-byte segments: each fine alone, over the whole-name limit together. */
const OVERLONG_TOTAL = Array.from({ length: 6 }, () => 'x'.repeat(190)).join('/');
/** Exactly at the whole-name limit: four 200-byte segments, 196 more and four slashes. */
const LONGEST_NAME = [...Array.from({ length: 4 }, () => 'x'.repeat(200)), 'y'.repeat(196)].join('/');
const DEEPEST = Array.from({ length: MAX_DEPTH }, (_, i) => `d${i}`).join('/');
const TOO_DEEP = Array.from({ length: MAX_DEPTH + 1 }, (_, i) => `d${i}`).join('/');

/** [label, name, expected reason]: every one must be rejected, for that reason. */
const HOSTILE: [string, string, string][] = [
  ['empty', '', R.Empty],
  ['overlong total', OVERLONG_TOTAL, R.TooLong],
  ['overlong total, multi-byte', Array.from({ length: 6 }, () => '日'.repeat(60)).join('/'), R.TooLong],
  ['lone high surrogate', 'a\uD800b', R.InvalidUnicode],
  ['lone low surrogate', '\uDC00', R.InvalidUnicode],
  ['NUL in the middle', 'a\u0000b', R.ControlCharacter],
  ['NUL then traversal', 'x.md\u0000/../../etc/passwd', R.ControlCharacter],
  ['newline alone', '\n', R.ControlCharacter],
  ['newline inside', 'a\nb', R.ControlCharacter],
  ['carriage return', 'a\rb', R.ControlCharacter],
  ['bell', '\u0007', R.ControlCharacter],
  ['tab', 'a\tb', R.ControlCharacter],
  ['DEL', 'a\u007Fb', R.ControlCharacter],
  ['C1 next line', 'a\u0085b', R.ControlCharacter],
  ['escape sequence', '\u001B[31mred', R.ControlCharacter],
  ['RTL override', 'evil\u202Edm.txt', R.InvisibleCharacter],
  ['LTR mark', 'a\u200Eb', R.InvisibleCharacter],
  ['bidi isolate', 'a\u2066b\u2069', R.InvisibleCharacter],
  ['Arabic letter mark', 'a\u061Cb', R.InvisibleCharacter],
  ['zero-width space', 'a\u200Bb', R.InvisibleCharacter],
  ['zero-width joiner', 'a\u200Db', R.InvisibleCharacter],
  ['zero-width non-joiner', 'a\u200Cb', R.InvisibleCharacter],
  ['byte order mark', '\uFEFFstyle', R.InvisibleCharacter],
  ['soft hyphen', 'sty\u00ADle', R.InvisibleCharacter],
  ['variation selector', 'a\uFE0Fb', R.InvisibleCharacter],
  ['Hangul filler (a letter that shows nothing)', '\u3164', R.InvisibleCharacter],
  ['absolute', '/etc/passwd', R.Absolute],
  ['absolute, short', '/x', R.Absolute],
  ['absolute, double slash', '//x', R.Absolute],
  ['drive letter, backslash', 'C:\\x', R.Absolute],
  ['drive letter, slash', 'c:/x', R.Absolute],
  ['drive-relative', 'C:x', R.Absolute],
  ['UNC share', '\\\\srv\\share', R.Absolute],
  ['rooted backslash', '\\x', R.Absolute],
  ['backslash traversal', '..\\x', R.Backslash],
  ['backslash inside', 'a\\..\\b', R.Backslash],
  ['backslash as separator', 'a\\b', R.Backslash],
  ['encoded dots', '%2e%2e/x', R.PercentEncoded],
  ['encoded dots and slash, upper case', '%2E%2E%2Fx', R.PercentEncoded],
  ['double encoded dots', '%252e%252e/x', R.PercentEncoded],
  ['encoded slash between dots', '..%2f..', R.PercentEncoded],
  ['encoded NUL', 'a%00b', R.PercentEncoded],
  ['overlong UTF-8 dots', '%c0%ae%c0%ae/x', R.PercentEncoded],
  ['bare percent', '100%', R.PercentEncoded],
  ['fullwidth dots', '．．/x', R.Lookalike],
  ['fullwidth slash', 'x／y', R.Lookalike],
  ['fullwidth backslash', 'x＼y', R.Lookalike],
  ['one-dot leaders', '\u2024\u2024/x', R.Lookalike],
  ['two-dot leader', '\u2025/x', R.Lookalike],
  ['ellipsis', '\u2026/x', R.Lookalike],
  ['division slash', 'x\u2215y', R.Lookalike],
  ['fraction slash', 'x\u2044y', R.Lookalike],
  ['small full stops', '\uFE52\uFE52/x', R.Lookalike],
  ['ideographic full stops', '\u3002\u3002/x', R.Lookalike],
  ['halfwidth ideographic full stop', '\uFF61/x', R.Lookalike],
  ['small reverse solidus', 'x\uFE68y', R.Lookalike],
  ['big solidus', 'x\u29F8y', R.Lookalike],
  ['set minus', 'x\u2216y', R.Lookalike],
  ['combining solidus overlay', 'a\u0338b', R.Lookalike],
  ['account-of sign (NFKC a/c)', 'x\u2100y', R.Lookalike],
  ['fullwidth percent', 'x\uFF05y', R.Lookalike],
  ['digit one full stop (NFKC 1.)', 'x\u2488', R.Lookalike],
  ['small colon (NFKC :)', 'x\uFE55y', R.Lookalike],
  ['NFD e + combining acute', 'cafe\u0301', R.NotNfc],
  ['NFD nested', 'notes/cafe\u0301', R.NotNfc],
  ['NFD A + ring', 'A\u030A', R.NotNfc],
  ['Angstrom sign (NFC is Å)', '\u212B', R.NotNfc],
  ['Hangul jamo (NFC is one syllable)', '\u1100\u1161', R.NotNfc],
  ['9 deep', TOO_DEEP, R.TooDeep],
  ['double slash', 'a//b', R.EmptySegment],
  ['trailing slash', 'a/', R.EmptySegment],
  ['trailing slash nested', 'a/b/', R.EmptySegment],
  ['dot', '.', R.DotSegment],
  ['dot dot', '..', R.DotSegment],
  ['parent traversal', '../x', R.DotSegment],
  ['traversal after a dir', 'a/../../x', R.DotSegment],
  ['dot segment inside', 'a/./b', R.DotSegment],
  ['dot dot at the end', 'a/..', R.DotSegment],
  ['three dots', '...', R.HiddenSegment],
  ['hidden file', '.hidden', R.HiddenSegment],
  ['hidden nested', 'a/.b', R.HiddenSegment],
  ['dot dot prefix', '..foo', R.HiddenSegment],
  ['just the extension', '.md', R.HiddenSegment],
  ['git dir', 'a/.git/config', R.HiddenSegment],
  ['hidden index look-alike', '.MEMORY', R.HiddenSegment],
  ['trailing space', 'notes ', R.SegmentEdge],
  ['leading space', ' notes', R.SegmentEdge],
  ['only a space', ' ', R.SegmentEdge],
  ['trailing dot', 'notes.', R.SegmentEdge],
  ['trailing dot nested', 'a/b.', R.SegmentEdge],
  ['trailing dot and space', 'x. ', R.SegmentEdge],
  ['overlong segment', 'x'.repeat(MAX_SEGMENT_BYTES + 1), R.SegmentTooLong],
  ['overlong segment, 2-byte chars', 'é'.repeat(101), R.SegmentTooLong],
  ['overlong segment, 3-byte chars, nested', `a/${'日'.repeat(67)}`, R.SegmentTooLong],
  ['colon', 'notes:b', R.DisallowedCharacter],
  ['one letter then colon (a drive to Windows)', 'a:b', R.Absolute],
  ['asterisk', 'a*b', R.DisallowedCharacter],
  ['question mark', 'a?b', R.DisallowedCharacter],
  ['angle brackets', 'a<b>', R.DisallowedCharacter],
  ['pipe', 'a|b', R.DisallowedCharacter],
  ['double quote', 'a"b', R.DisallowedCharacter],
  ['home tilde', '~/x', R.DisallowedCharacter],
  ['shell variable', '$HOME', R.DisallowedCharacter],
  ['semicolon', 'a;b', R.DisallowedCharacter],
  ['backticks', 'a`id`', R.DisallowedCharacter],
  ['glob brackets', '[x]', R.DisallowedCharacter],
  ['emoji', 'notes😀', R.DisallowedCharacter],
  ['no-break space', 'a\u00A0b', R.DisallowedCharacter],
  ['ideographic space', 'a\u3000b', R.DisallowedCharacter],
  ['roman numeral one', '\u2160', R.DisallowedCharacter],
  ['middle dot', 'a\u00B7b', R.DisallowedCharacter],
  ['md suffix', 'notes.md', R.MdSuffix],
  ['md suffix, upper case dir', 'a.MD/b', R.MdSuffix],
  ['md suffix, mixed case', 'x.Md', R.MdSuffix],
  ['index', 'MEMORY', R.Reserved],
  ['index, lower case', 'memory', R.Reserved],
  ['index, mixed case', 'Memory', R.Reserved],
  ['team dir alone', 'team', R.Reserved],
  ['into the team dir', 'team/x', R.Reserved],
  ['into the team dir, upper case', 'TEAM/x', R.Reserved],
];

const ORDINARY = [
  'style',
  'testing/flaky-tests',
  'api/v2/auth notes',
  'café',
  '日本語メモ',
  'v1.2 release',
  'notes (draft)',
  'c++',
  'a,b',
  'snake_case',
  'MEMORY/inside',
  'a/MEMORY',
  'team-notes',
  'teams',
  'Ελληνικά',
  'русский',
  'עברית',
  'العربية',
  'हिन्दी',
  'Ａ０', // fullwidth letter and digit: no path meaning, and other IMEs type them
  'x'.repeat(MAX_SEGMENT_BYTES),
  DEEPEST,
  LONGEST_NAME,
];

describe('checkMemoryName: hostile names', () => {
  it('has a corpus of at least 60 names', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HOSTILE)('rejects %s', (_label, name, reason) => {
    const check = checkMemoryName(name);
    expect(check).toMatchObject({ ok: false, reason });
    if (!check.ok) expect(check.message.length).toBeGreaterThan(0);
  });

  it('uses every reason somewhere in the corpus, and each reason is distinct', () => {
    const reasons = Object.values(NameReason);
    expect(new Set(reasons).size).toBe(reasons.length);
    expect(new Set(HOSTILE.map(([, , reason]) => reason))).toEqual(new Set(reasons));
  });

  it('never puts control or invisible characters into a message', () => {
    for (const [, name] of HOSTILE) {
      const check = checkMemoryName(name);
      if (check.ok) throw new Error(`accepted ${quoteName(name)}`);
      expect(check.message).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}]/u);
    }
  });

  it('quotes at most 80 characters of a huge name', () => {
    const check = checkMemoryName('x'.repeat(50_000));
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message.length).toBeLessThan(200);
  });
});

describe('checkMemoryName: scopes', () => {
  it('reserves the team dir only in the private scope', () => {
    expect(checkMemoryName('team/x', 'team')).toEqual({ ok: true, segments: ['team', 'x'] });
    expect(checkMemoryName('team/x', 'private')).toMatchObject({ ok: false, reason: R.Reserved });
  });

  it('reserves the index in both scopes', () => {
    expect(checkMemoryName('MEMORY', 'team')).toMatchObject({ ok: false, reason: R.Reserved });
  });
});

describe('checkMemoryName: ordinary names', () => {
  it.each(ORDINARY.map((name) => [quoteName(name), name]))('accepts %s', (_label, name) => {
    expect(checkMemoryName(name)).toEqual({ ok: true, segments: name.split('/') });
  });

  it('accepts only names that are already normal paths, in NFC, at most MAX_DEPTH deep and MAX_NAME_BYTES long', () => {
    for (const name of ORDINARY) {
      expect(posix.normalize(name)).toBe(name);
      expect(name.normalize('NFC')).toBe(name);
      expect(name.split('/').length).toBeLessThanOrEqual(MAX_DEPTH);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    }
    expect(Buffer.byteLength(LONGEST_NAME)).toBe(MAX_NAME_BYTES);
  });

  it('maps the NFC and NFD spellings of one name to one accepted name only', () => {
    const accepted = ['café', 'cafe\u0301'].filter((name) => checkMemoryName(name).ok);
    expect(accepted).toEqual(['café']);
  });
});
