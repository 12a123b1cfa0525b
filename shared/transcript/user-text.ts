/**
 * A user message's text as a summary may quote it. Claude Code puts its own XML into user
 * entries (prompt-text.ts lists the tags): slash-command echoes, local-command output, reminders,
 * hook output, IDE context and background-task notices. Quoted raw, that XML misleads whoever
 * reads the summary next, and a `<task-notification>` carries a `<summary>` tag of its own, which
 * a summary extractor takes for the summarizer's. Here each block is rendered as one plain line
 * (a command as `/name args`, a task notice as `[background task "…" completed, exit 0]`) or left
 * out (reminders, output, hook and IDE context). Pure.
 */
import { GENERATED_PREFIXES, GENERATED_TAGS, type GeneratedTag } from './prompt-text.js';

export interface UserText {
  /** The message with every generated block rendered as one line or left out; '' when nothing is left. */
  text: string;
  /** Only what the user wrote: no generated block, pointer or marker; '' for a message Claude Code wrote. */
  typed: string;
}

/** A task notice's summary is one line of Claude Code's; longer is not a summary. */
const TASK_SUMMARY_CHARS = 200;
const OPENING = new RegExp(`<(${Object.keys(GENERATED_TAGS).join('|')})(?:\\s[^>]*)?>`, 'g');
/** The line Claude Code writes after a task notice, pointing at the task's output file. */
const OUTPUT_POINTER = /^Read the output file to retrieve the result: .*$/gm;
/** `Background command "Run tests" completed (exit code 0)`: the description and the exit code. */
const BACKGROUND_COMMAND = /^Background command "(.+)" .*?exit code (-?\d+)/;

function child(body: string, tag: string): string | null {
  const found = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(body)?.[1];
  return found === undefined ? null : found.replace(/\s+/g, ' ').trim();
}

/** One line for a `<task-notification>`: what ran, how it ended, and its exit code when known. */
export function taskNotificationLine(body: string): string {
  const status = child(body, 'status') ?? 'finished';
  const summary = child(body, 'summary') ?? '';
  const command = BACKGROUND_COMMAND.exec(summary);
  if (command !== null) return `[background task "${command[1]}" ${status}, exit ${command[2]}]`;
  const id = child(body, 'task-id');
  const about =
    summary === ''
      ? ''
      : `: ${summary.length <= TASK_SUMMARY_CHARS ? summary : `${summary.slice(0, TASK_SUMMARY_CHARS - 1)}…`}`;
  return `[background task${id === null ? '' : ` ${id}`} ${status}${about}]`;
}

function render(tag: GeneratedTag, body: string): string {
  const inner = () => body.replace(/\s+/g, ' ').trim();
  switch (GENERATED_TAGS[tag]) {
    case 'drop':
      return '';
    case 'inner':
      return inner();
    case 'shell':
      return inner() === '' ? '' : `! ${inner()}`;
    case 'task':
      return taskNotificationLine(body);
  }
}

/**
 * The readable text of a user message's text. Blocks next to each other (a command's name and
 * arguments) share a line; an unclosed block runs to the end of the text.
 */
export function readableUserText(raw: string): UserText {
  const pieces: { typed: boolean; text: string }[] = [];
  let inline: string[] = [];
  const endInline = () => {
    if (inline.length > 0) pieces.push({ typed: false, text: inline.join(' ') });
    inline = [];
  };
  const addFree = (free: string) => {
    const text = free.replace(OUTPUT_POINTER, '').trim();
    if (text === '') return;
    endInline();
    pieces.push({ typed: !GENERATED_PREFIXES.some((prefix) => text.startsWith(prefix)), text });
  };
  let at = 0;
  for (const opening of raw.matchAll(OPENING)) {
    const start = opening.index;
    if (start < at) continue; // inside the block before
    const tag = opening[1] as GeneratedTag;
    const closing = `</${tag}>`;
    const bodyStart = start + opening[0].length;
    const close = raw.indexOf(closing, bodyStart);
    const end = close === -1 ? raw.length : close + closing.length;
    addFree(raw.slice(at, start));
    const line = render(tag, raw.slice(bodyStart, close === -1 ? raw.length : close));
    if (GENERATED_TAGS[tag] === 'task') {
      // Each notice on its own line, even when several arrive in one message.
      endInline();
      pieces.push({ typed: false, text: line });
    } else if (line !== '') inline.push(line);
    at = end;
  }
  addFree(raw.slice(at));
  endInline();
  return {
    text: pieces.map((piece) => piece.text).join('\n'),
    typed: pieces
      .filter((piece) => piece.typed)
      .map((piece) => piece.text)
      .join('\n'),
  };
}
