/**
 * How a log record becomes a line. Machines (journald, memd.log, a pipe) get one JSON object per
 * line; a person at a terminal (`npm start`) gets `time level message key=value …`, the same
 * record in a form that can be read at a glance.
 */
import type { LogFormatSetting, LogLevel } from '../../shared/config.js';

export type LogFields = Record<string, unknown>;
export type LineFormat = 'json' | 'text';

/** Pads the level column to the longest name (`debug`, `error`), so messages line up. */
const LEVEL_WIDTH = 5;
/** Continuation lines (a stack, a message with newlines) are indented under the message. */
const CONTINUATION_INDENT = '    ';

function serializeField(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export function formatJson(level: LogLevel, msg: string, fields: LogFields | undefined, now: Date): string {
  const record: Record<string, unknown> = { time: now.toISOString(), level, msg };
  if (fields) for (const [key, value] of Object.entries(fields)) record[key] = serializeField(value);
  return `${JSON.stringify(record)}\n`;
}

/** Local wall-clock time to the millisecond: the date is the terminal session's own. */
function clockTime(now: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}.${String(now.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * C0 and C1 control characters: a file name or a transcript's text in a log field could carry an
 * escape sequence that the terminal would obey (retitle it, rewrite what is on screen).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** What is written without quotes: no space, quote, `=`, backslash or control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it keeps out
const BARE_WORD = /^[^\s"=\\\u0000-\u001f\u007f-\u009f]+$/;

/** Control characters written as `\u001b`, so that the terminal shows them instead of obeying them. */
function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A bare word stays bare; anything a reader could misparse (spaces, quotes, `=`, empty, control characters) is quoted as JSON. */
function textValue(value: unknown): string {
  if (typeof value === 'string' && BARE_WORD.test(value)) return value;
  if (value === undefined) return 'undefined';
  // JSON escapes C0 controls but leaves C1 ones (U+009B starts a sequence as ESC [ does).
  return escapeControls(JSON.stringify(value) ?? String(value));
}

/** The message as lines, control characters shown, each line after the first indented. */
function textMessage(msg: string): string {
  return msg
    .split('\n')
    .map((line) => escapeControls(line))
    .join(`\n${CONTINUATION_INDENT}`);
}

export function formatText(level: LogLevel, msg: string, fields: LogFields | undefined, now: Date): string {
  const pairs: string[] = [];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value instanceof Error) {
      pairs.push(`${key}=${textValue(`${value.name}: ${value.message}`)}`);
      // The first stack line repeats name and message; the frames are what a reader needs.
      const frames = (value.stack ?? '').split('\n').slice(1);
      stacks.push(...frames.map((frame) => escapeControls(frame.trim())));
      continue;
    }
    pairs.push(`${key}=${textValue(value)}`);
  }
  const head = [clockTime(now), level.padEnd(LEVEL_WIDTH), textMessage(msg), ...pairs].join(' ');
  const tail = stacks.map((frame) => `\n${CONTINUATION_INDENT}${frame}`).join('');
  return `${head}${tail}\n`;
}

export interface StderrFacts {
  /** Whether stderr is a terminal (`process.stderr.isTTY`). */
  isTTY: boolean;
  /** Whether journald reads stderr (`JOURNAL_STREAM` set). */
  underSystemd: boolean;
}

/**
 * The format of lines on stderr: `logFormat` when set to `json` or `text`; on `auto`, text for a
 * terminal and JSON for journald or anything else reading the stream (a pipe, a file, a test).
 */
export function stderrFormat(setting: LogFormatSetting, facts: StderrFacts): LineFormat {
  if (setting !== 'auto') return setting;
  return facts.isTTY && !facts.underSystemd ? 'text' : 'json';
}
