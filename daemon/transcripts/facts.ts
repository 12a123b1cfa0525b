/**
 * Facts both offline summarizers read from a transcript (DESIGN.md §5, `offline`): what the user
 * typed, the assistant's text, each tool call with its result and exit code, compaction
 * summaries, and the open todos and tasks; and the short-text helpers their lines are made with.
 * Pure.
 */

import { isCommandPlumbing } from '../../shared/handoff/prompts.js';
import { textOf } from '../../shared/transcript/content-text.js';
import { isRecord } from '../../shared/values.js';
import { type BashFileAction, bashFiles } from './bash-paths.js';
import type { LoadedEntry } from './entries.js';
import { keyErrorLines } from './line-shapes.js';

/** Where clip and errorKeyLine leave text out; what is between is verbatim text of the source. */
export const ELLIPSIS = '…';
/** Commands, key lines, outcomes: one glance each. */
export const LINE_CHARS = 200;
export const FILE_TOOLS: Record<string, 'read' | 'edited' | 'written'> = {
  Read: 'read',
  Edit: 'edited',
  MultiEdit: 'edited',
  NotebookEdit: 'edited',
  Write: 'written',
};
/** Claude Code's first line of a Bash result that exited non-zero. */
const EXIT_HEADER = /^(?:Error: )?Exit code (\d+)/;
const EXIT_HEADER_LINE = /^(?:Error: )?Exit code \d+$/;

export interface CallResult {
  /** is_error, or a non-zero exit code. */
  failed: boolean;
  /** The exit code the result reports; null when it reports none. */
  exit: number | null;
  text: string;
  /** Index in `loaded` of the entry holding the result. */
  at: number;
  /** The entry's toolUseResult: Claude Code's structured result (exit code, created task). */
  meta: unknown;
}

export interface Call {
  name: string;
  input: Record<string, unknown>;
  /** Index in `loaded` of the assistant entry that made the call. */
  at: number;
  result: CallResult | null;
  /** The directory the call ran in (its entry's cwd): where a Bash command's relative paths lead. */
  cwd?: string | null;
}

/** A prompt or an assistant text, and the index in `loaded` of its entry. */
export interface Said {
  at: number;
  text: string;
}

export interface TranscriptFacts {
  /** What the user typed, in order: neither meta messages nor command plumbing. */
  prompts: Said[];
  replies: Said[];
  calls: Call[];
  /** Texts of compaction summaries, oldest first. */
  summaries: string[];
  cwd: string | null;
  branch: string | null;
}

export interface OpenTask {
  status: string;
  /** A todo's content or a task's subject. */
  text: string;
  /** A TaskCreate task's id and description; null for a TodoWrite item. */
  task: { id: string; description: string | null } | null;
  /** Index in `loaded` of the call that last set its status. */
  at?: number;
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

export { textOf } from '../../shared/transcript/content-text.js';

/** The text cut to `max` characters, the cut marked. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1)).replace(/[\uD800-\uDBFF]$/, '');
  return `${cut}${ELLIPSIS}`;
}

/** The text on one line (memory lines are list items), shortened to `max` characters. */
export function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

// Shared with the hook's fallback, which reads prompts without the index (issue 29).
export { isCommandPlumbing } from '../../shared/handoff/prompts.js';

/**
 * The line of a failed result that says what failed, chosen by its shape wherever it sits (see
 * line-shapes.ts), past Bash's exit-code header; with the reason after a traceback's or a test's
 * title. The pieces are verbatim lines of the text, joined by an ellipsis.
 */
export function errorKeyLine(text: string): string {
  const lines = text
    .replace(/<\/?tool_use_error>/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const pieces = keyErrorLines(lines.filter((line) => !EXIT_HEADER_LINE.test(line)));
  if (pieces.length === 0) return clip(lines[0] ?? '(no output)', LINE_CHARS * 2);
  return clip(pieces.map((piece) => clip(piece, LINE_CHARS)).join(` ${ELLIPSIS} `), LINE_CHARS * 2);
}

/** The exit code a result reports; a Bash result without Claude Code's failure header exited 0. */
function exitOf(isError: boolean, meta: unknown, text: string, tool: string): number | null {
  if (isRecord(meta) && typeof meta.exitCode === 'number') return meta.exitCode;
  const header = EXIT_HEADER.exec(text)?.[1];
  if (header !== undefined) return Number(header);
  return tool === 'Bash' && !isError ? 0 : null;
}

/** A tool_result block as a CallResult: its text, and whether it failed (is_error or a non-zero exit). */
export function resultOf(block: Record<string, unknown>, meta: unknown, at: number, tool: string): CallResult {
  const text = typeof block.content === 'string' ? block.content : textOf(block.content);
  const exit = exitOf(block.is_error === true, meta, text, tool);
  return { failed: block.is_error === true || (exit !== null && exit !== 0), exit, text, at, meta };
}

export function readTranscript(loaded: readonly LoadedEntry[]): TranscriptFacts {
  const facts: TranscriptFacts = { prompts: [], replies: [], calls: [], summaries: [], cwd: null, branch: null };
  const byId = new Map<string, Call>();
  loaded.forEach(({ entry, raw }, at) => {
    facts.cwd = entry.cwd ?? facts.cwd;
    facts.branch = entry.gitBranch ?? facts.branch;
    const content = isRecord(raw.message) ? raw.message.content : undefined;
    if (entry.type === 'assistant') {
      for (const block of blocksOf(content)) {
        if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '')
          facts.replies.push({ at, text: block.text.trim() });
        if (block.type !== 'tool_use' || typeof block.id !== 'string' || typeof block.name !== 'string') continue;
        const input = isRecord(block.input) ? block.input : {};
        const call: Call = { name: block.name, input, at, result: null, cwd: entry.cwd ?? facts.cwd };
        byId.set(block.id, call);
        facts.calls.push(call);
      }
      return;
    }
    if (entry.type !== 'user') return;
    if (entry.isCompactSummary) {
      facts.summaries.push(textOf(content));
      return;
    }
    for (const block of blocksOf(content)) {
      const call =
        block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? byId.get(block.tool_use_id) : undefined;
      if (call !== undefined) call.result = resultOf(block, raw.toolUseResult, at, call.name);
    }
    const prompt = textOf(content).trim();
    if (!entry.isMeta && prompt !== '' && !isCommandPlumbing(prompt)) facts.prompts.push({ at, text: prompt });
  });
  return facts;
}

export const inputString = (call: Call, field: string) =>
  typeof call.input[field] === 'string' ? (call.input[field] as string) : null;
export const filePath = (call: Call) => inputString(call, 'file_path') ?? inputString(call, 'notebook_path');
/** A call that did not fail: succeeded, or no result yet. */
export const didWork = (call: Call) => call.result === null || !call.result.failed;

export type FileAction = BashFileAction;

export interface CallFile {
  path: string;
  action: FileAction;
  /** Read from a Bash command's string, not named by a file tool. */
  bash: boolean;
}

/**
 * The files a call that did not fail worked on: a file tool's path, or the files its Bash command
 * read, wrote or removed (bash-paths.ts). A command counts only once its result says it succeeded:
 * a failed or unfinished one may have done any part of its work.
 */
export function callFiles(call: Call): CallFile[] {
  if (call.name === 'Bash') {
    const command = inputString(call, 'command');
    if (command === null || call.result === null || call.result.failed) return [];
    return bashFiles(command, call.cwd ?? null).map((file) => ({ ...file, bash: true }));
  }
  const action = FILE_TOOLS[call.name];
  const path = filePath(call);
  return action === undefined || path === null || !didWork(call) ? [] : [{ path, action, bash: false }];
}

/** The latest TodoWrite list and the TaskCreate/TaskUpdate tasks, open ones only, in order. */
export function openTasks(calls: readonly Call[]): OpenTask[] {
  let todos: OpenTask[] = [];
  const tasks = new Map<string, OpenTask>();
  for (const call of calls.filter(didWork)) {
    if (call.name === 'TodoWrite' && Array.isArray(call.input.todos)) {
      todos = call.input.todos
        .filter(isRecord)
        .flatMap((todo) =>
          typeof todo.status === 'string' && typeof todo.content === 'string'
            ? [{ status: todo.status, text: todo.content, task: null, at: call.at }]
            : [],
        );
    }
    const meta = call.name === 'TaskCreate' ? call.result?.meta : null;
    if (isRecord(meta) && isRecord(meta.task) && typeof meta.task.id === 'string') {
      tasks.set(meta.task.id, {
        status: 'pending',
        text: inputString(call, 'subject') ?? '',
        task: { id: meta.task.id, description: inputString(call, 'description') },
        at: call.at,
      });
    }
    const task = call.name === 'TaskUpdate' ? tasks.get(inputString(call, 'taskId') ?? '') : undefined;
    if (task !== undefined) {
      task.status = inputString(call, 'status') ?? task.status;
      task.at = call.at;
    }
  }
  return [...todos, ...tasks.values()].filter((task) => task.status === 'pending' || task.status === 'in_progress');
}

/** What an old user message keeps at least when the messages are over their budget. */
const MIN_USER_MESSAGE_CHARS = 200;

/** Every user message verbatim within the budget; over it, the newest stay whole. */
export function fitUserMessages(messages: readonly string[], maxChars: number): string[] {
  const share = Math.min(MIN_USER_MESSAGE_CHARS, Math.floor(maxChars / Math.max(1, messages.length)));
  const fitted = new Array<string>(messages.length);
  let left = maxChars;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as string;
    // Each older message keeps at least its share.
    const available = Math.max(share, left - index * share);
    fitted[index] = message.length <= available ? message : clip(message, available);
    left -= Math.min(message.length, available);
  }
  return fitted;
}
