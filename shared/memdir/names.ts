/**
 * The lexical pass on a memory name as a client sends it (DESIGN.md §6): `testing/flaky-tests`,
 * a relative name without `.md`, nested with `/`. Pure: no file system, so the daemon's second
 * pass (symlinks, on the real disk) stays in daemon/memory/memdir/safe-path.ts.
 *
 * A name that passes maps to exactly one file on every file system memd runs on: no two accepted
 * names differ only in normalization, invisible characters or case of a reserved name, and no
 * accepted name means something different to a tool that decodes, normalizes or converts it.
 */
import type { MemoryScope } from '../protocol/memdir.js';

/** Why a name was rejected; `data.reason` of PathRejected carries one of these. */
export const NameReason = {
  Empty: 'empty',
  TooLong: 'name-too-long',
  InvalidUnicode: 'invalid-unicode',
  ControlCharacter: 'control-character',
  InvisibleCharacter: 'invisible-character',
  Absolute: 'absolute',
  Backslash: 'backslash',
  PercentEncoded: 'percent-encoded',
  Lookalike: 'lookalike-character',
  NotNfc: 'not-nfc',
  TooDeep: 'too-deep',
  EmptySegment: 'empty-segment',
  DotSegment: 'dot-segment',
  HiddenSegment: 'hidden-segment',
  SegmentEdge: 'segment-edge',
  SegmentTooLong: 'segment-too-long',
  DisallowedCharacter: 'disallowed-character',
  MdSuffix: 'md-suffix',
  Reserved: 'reserved',
} as const;

export type NameReason = (typeof NameReason)[keyof typeof NameReason];

export type NameCheck = { ok: true; segments: string[] } | { ok: false; reason: NameReason; message: string };

/** With `.md` and the temp file's affixes (`.<name>.md.<pid>.<12 hex>.tmp`) still under NAME_MAX (255). */
export const MAX_SEGMENT_BYTES = 200;
/** Far below PATH_MAX (4096) even under a deep projects dir. */
export const MAX_NAME_BYTES = 1_000;
/** Deeper trees are a mistake or an attack, never an organisation of notes. */
export const MAX_DEPTH = 8;

/** `MEMORY.md` in each memory dir is the index, not a memory. */
export const INDEX_NAME = 'MEMORY';
/** Team memory lives in `memory/team/`, inside the private memory dir (DESIGN.md §2). */
export const TEAM_DIR_NAME = 'team';

/** Messages quote at most this much of a hostile name. */
const MAX_QUOTED_CHARS = 80;

/**
 * The characters a segment may hold: letters, combining marks and decimal digits of any script,
 * and `-` `_` space `.` `(` `)` `+` `,`. Left out: `:` `*` `?` `"` `<` `>` `|` (invalid or special
 * on Windows and macOS, where team memory may be checked out), `%` `~` `$` `` ` `` `;` `!` `&` `'`
 * `#` `[` `]` `{` `}` `=` `@` (shell, glob, URL or home-dir meaning), symbols, emoji, other spaces.
 */
const SAFE_SEGMENT = /^[\p{L}\p{M}\p{Nd}\-_ .()+,]+$/u;

/** JavaScript strings may hold unpaired surrogates; UTF-8 turns them all into U+FFFD, one file. */
const LONE_SURROGATE = /\p{Cs}/u;
/** NUL ends the path in the kernel; the rest corrupt logs, terminals and the index. */
const CONTROL = /\p{Cc}/u;
/** Zero-width, bidi overrides, BOM, soft hyphen, variation selectors, Hangul fillers: two names that look the same. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** `/x`, `\x`, `C:x`, `C:\x`, `\\server\share`. */
const ABSOLUTE = /^(?:[/\\]|[A-Za-z]:)/;

/**
 * Characters that look like `.` `/` `\` but are not caught by NFKC below, because they have no
 * compatibility mapping or map to another look-alike (ideographic full stops, division slash...).
 */
const LOOKALIKES = new Set([
  '\u2024', // one-dot leader
  '\u2025', // two-dot leader
  '\u2026', // horizontal ellipsis
  '\uFE52', // small full stop
  '\uFF0E', // fullwidth full stop
  '\u3002', // ideographic full stop
  '\uFF61', // halfwidth ideographic full stop
  '\uFF0F', // fullwidth solidus
  '\u2215', // division slash
  '\u2044', // fraction slash
  '\u29F8', // big solidus
  '\u2571', // box drawings light diagonal upper right to lower left
  '\u0338', // combining long solidus overlay
  '\uFF3C', // fullwidth reverse solidus
  '\uFE68', // small reverse solidus
  '\u29F9', // big reverse solidus
  '\u2216', // set minus
  '\u2572', // box drawings light diagonal upper left to lower right
  '\u20E5', // combining reverse solidus overlay
]);

/** What a compatibility character must not turn into: it would change the path once NFKC-normalized. */
const PATH_RELEVANT_ASCII = /[./\\%:\p{Cc}]/u;

function isLookalike(char: string): boolean {
  if (LOOKALIKES.has(char)) return true;
  // ASCII is itself; only characters beyond it can pretend to be something else.
  return (char.codePointAt(0) ?? 0) > 0x7f && PATH_RELEVANT_ASCII.test(char.normalize('NFKC'));
}

/** A name fit for a message: invisible and control characters spelled out, long names cut. */
export function quoteName(name: string): string {
  const chars = [...name];
  const shown = chars
    .slice(0, MAX_QUOTED_CHARS)
    .map((char) =>
      /[\p{C}\p{Default_Ignorable_Code_Point}]/u.test(char) ? `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}` : char,
    )
    .join('');
  return `"${shown}${chars.length > MAX_QUOTED_CHARS ? '…' : ''}"`;
}

function reject(reason: NameReason, message: string): NameCheck {
  return { ok: false, reason, message };
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Checks on the whole name, before it is split: characters that are wrong wherever they are. */
function checkCharacters(name: string): NameCheck | null {
  const quoted = quoteName(name);
  if (LONE_SURROGATE.test(name))
    return reject(NameReason.InvalidUnicode, `memory name ${quoted} is not valid Unicode (unpaired surrogate)`);
  if (CONTROL.test(name))
    return reject(NameReason.ControlCharacter, `memory name ${quoted} contains a control character`);
  if (INVISIBLE.test(name)) {
    return reject(
      NameReason.InvisibleCharacter,
      `memory name ${quoted} contains an invisible or direction-changing character`,
    );
  }
  if (ABSOLUTE.test(name))
    return reject(
      NameReason.Absolute,
      `memory name ${quoted} is an absolute path; names are relative to the memory dir`,
    );
  if (name.includes('\\'))
    return reject(NameReason.Backslash, `memory name ${quoted} contains a backslash; nest names with "/"`);
  // Names never need '%': any there is an encoded '.', '/' or '%' waiting for a decoder.
  if (name.includes('%'))
    return reject(NameReason.PercentEncoded, `memory name ${quoted} contains "%" (percent-encoding is not allowed)`);
  for (const char of name) {
    if (isLookalike(char)) {
      return reject(
        NameReason.Lookalike,
        `memory name ${quoted} contains ${quoteName(char)}, which looks like or normalizes to a path character`,
      );
    }
  }
  // Rejected rather than normalized, so that two spellings never reach one file.
  if (name.normalize('NFC') !== name)
    return reject(NameReason.NotNfc, `memory name ${quoted} is not in Unicode NFC form`);
  return null;
}

function checkSegment(segment: string, name: string): NameCheck | null {
  const quoted = quoteName(name);
  if (segment === '')
    return reject(NameReason.EmptySegment, `memory name ${quoted} has an empty segment ("//", or "/" at the end)`);
  if (segment === '.' || segment === '..')
    return reject(NameReason.DotSegment, `memory name ${quoted} has a "${segment}" segment`);
  if (segment.startsWith('.')) {
    return reject(
      NameReason.HiddenSegment,
      `memory name ${quoted} has a segment starting with ".": ${quoteName(segment)}`,
    );
  }
  // Windows drops trailing dots and spaces, so `a.` and `a ` would be `a` there; leading spaces hide.
  if (segment.startsWith(' ') || segment.endsWith(' ') || segment.endsWith('.')) {
    return reject(
      NameReason.SegmentEdge,
      `memory name ${quoted} has a segment starting with a space or ending with a space or ".": ${quoteName(segment)}`,
    );
  }
  if (utf8Bytes(segment) > MAX_SEGMENT_BYTES) {
    return reject(NameReason.SegmentTooLong, `memory name ${quoted} has a segment over ${MAX_SEGMENT_BYTES} bytes`);
  }
  if (!SAFE_SEGMENT.test(segment)) {
    return reject(
      NameReason.DisallowedCharacter,
      `memory name ${quoted} contains a character outside letters, digits, marks and "-_ .()+,"`,
    );
  }
  // Files are always `<segment>.md` and dirs never are, so a file and a dir can never collide.
  if (segment.toLowerCase().endsWith('.md')) {
    return reject(
      NameReason.MdSuffix,
      `memory name ${quoted} has a segment ending in ".md"; names are given without ".md"`,
    );
  }
  return null;
}

/** Case-insensitive: on macOS and Windows `memory.md` is `MEMORY.md`. */
function checkReserved(segments: string[], name: string, scope: MemoryScope): NameCheck | null {
  const first = (segments[0] ?? '').toLowerCase();
  if (segments.length === 1 && first === INDEX_NAME.toLowerCase()) {
    return reject(NameReason.Reserved, `memory name ${quoteName(name)} is reserved: ${INDEX_NAME}.md is the index`);
  }
  if (scope === 'private' && first === TEAM_DIR_NAME) {
    return reject(
      NameReason.Reserved,
      `memory name ${quoteName(name)} is reserved: "${TEAM_DIR_NAME}/" holds team memory`,
    );
  }
  return null;
}

/**
 * The lexical pass: whether `name` may name a memory in `scope`, and its segments if so.
 * `scope` decides only whether the top-level `team` dir is reserved ('private', the default, the stricter).
 */
export function checkMemoryName(name: string, scope: MemoryScope = 'private'): NameCheck {
  if (name === '') return reject(NameReason.Empty, 'memory name is empty');
  // Checked first so that every later pass works on a bounded string.
  if (utf8Bytes(name) > MAX_NAME_BYTES) {
    return reject(NameReason.TooLong, `memory name ${quoteName(name)} is over ${MAX_NAME_BYTES} bytes`);
  }
  const characterProblem = checkCharacters(name);
  if (characterProblem !== null) return characterProblem;
  const segments = name.split('/');
  if (segments.length > MAX_DEPTH) {
    return reject(NameReason.TooDeep, `memory name ${quoteName(name)} is nested more than ${MAX_DEPTH} levels deep`);
  }
  for (const segment of segments) {
    const segmentProblem = checkSegment(segment, name);
    if (segmentProblem !== null) return segmentProblem;
  }
  return checkReserved(segments, name, scope) ?? { ok: true, segments };
}
