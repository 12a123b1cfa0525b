/**
 * The default summarizer for full compaction (DESIGN.md §5, `offline`): deterministic and needs no
 * network. It reads the transcript's structure (prompts, tool calls and their results, todo
 * lists) from the loaded entries, and carries forward the summary of an earlier compaction, as a
 * model summarizing the conversation would. It writes the nine sections of SUMMARY_SECTIONS.
 * User messages are quoted with Claude Code's generated XML rendered as one line or left out
 * (shared/transcript/user-text.ts): a background task's notice is a line, not its XML.
 */

import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  RECENT_PRESERVED,
  SUMMARY_SECTIONS,
  TRANSCRIPT_POINTER,
} from '../../shared/transcript/compaction-texts.js';
import { CHARS_PER_TOKEN } from '../../shared/transcript/tokens.js';
import { readableUserText } from '../../shared/transcript/user-text.js';
import { doneAfter, type FileEntry, fileEntries, type Request } from '../extraction/progress.js';
import { type Outcomes, readOutcomes } from '../transcripts/decisions.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import {
  type Call,
  clip,
  errorKeyLine,
  FILE_TOOLS,
  filePath,
  fitUserMessages,
  inputString,
  LINE_CHARS,
  type OpenTask,
  openTasks,
  readTranscript,
  type Said,
} from '../transcripts/facts.js';
import { conceptLines } from './offline-concepts.js';
import { filesAndCode } from './offline-files.js';
import type { CompactionSummarizer } from './summary.js';

/** Calls that keep a todo list or tasks. */
const TASK_TOOLS = ['TodoWrite', 'TaskCreate', 'TaskUpdate'];
/** Section 6 carries every user message; past this they are shortened, oldest first. */
export const USER_MESSAGES_MAX_TOKENS = 20_000;
/** Long prompts and replies are quoted in full only in section 6; elsewhere they are clipped. */
const REQUEST_CHARS = 1_000;
const REPLY_CHARS = 1_500;

const EARLIER_CUTS = [
  `\n\n${TRANSCRIPT_POINTER.slice(0, 40)}`,
  `\n\n${RECENT_PRESERVED}`,
  `\n${CONTINUATION_CLOSING.slice(0, 40)}`,
];

interface Digest {
  /** What the user typed, generated XML left out: the requests of sections 1 and 8. */
  prompts: string[];
  /** Every user message with generated XML rendered as one line or left out: section 6. */
  messages: string[];
  /** Sections of the summary of an earlier compaction (number → body), or its whole text under 0. */
  earlier: Map<number, string>;
  calls: Call[];
  replies: Said[];
  /** What was decided, the latest plan, the checks' last results: section 5. */
  outcomes: Outcomes;
  /** The prompts with where they are, and the working directory: what tells a plan's step done. */
  requests: Request[];
  cwd: string | null;
  /** The files the calls before the last compact_boundary touched, with their status then, by absolute path. */
  before: Map<string, FileEntry>;
}

function firstLine(text: string): string {
  return clip(text.trim().split('\n')[0] ?? '', LINE_CHARS);
}

/** Continuation lines indented under a list item or section. */
function indent(text: string, spaces: number): string {
  return text
    .split('\n')
    .map((line, index) => (index === 0 || line === '' ? line : `${' '.repeat(spaces)}${line}`))
    .join('\n');
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const widths = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = widths.length === 0 ? 0 : Math.min(...widths);
  return lines
    .map((line) => line.slice(common))
    .join('\n')
    .trim();
}

/** The summary of an earlier compaction, by section number; unnumbered text goes under 0. */
function parseEarlier(text: string): Map<number, string> {
  let body = text.startsWith(CONTINUATION_OPENING) ? text.slice(CONTINUATION_OPENING.length) : text;
  for (const cut of EARLIER_CUTS) {
    const at = body.indexOf(cut);
    if (at !== -1) body = body.slice(0, at);
  }
  body = body.trim().replace(/^Summary:\s*\n/, '');
  const headings = [...body.matchAll(/^(\d)\.\s+[^\n]*:[ \t]*$/gm)];
  const sections = new Map<number, string>();
  if (headings.length === 0) return body === '' ? sections : sections.set(0, body);
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.index ?? body.length;
    sections.set(Number(heading[1]), dedent(body.slice((heading.index ?? 0) + heading[0].length, end)));
  });
  return sections;
}

function digest(loaded: readonly LoadedEntry[], hidden: readonly Call[]): Digest {
  const facts = readTranscript(loaded);
  // The latest compaction summary is the one that covers all before it.
  const earlier = parseEarlier(facts.summaries.at(-1) ?? '');
  const readable = facts.prompts.map((prompt) => readableUserText(prompt.text));
  return {
    prompts: readable.map((text) => text.typed).filter((text) => text !== ''),
    messages: readable.map((text) => text.text).filter((text) => text !== ''),
    earlier,
    calls: facts.calls,
    replies: facts.replies,
    outcomes: readOutcomes(facts.prompts, facts.replies, facts.calls),
    requests: facts.prompts,
    cwd: facts.cwd,
    before: fileEntries(hidden, facts.cwd),
  };
}

const succeeded = (call: Call) => call.result !== null && !call.result.failed;
/** What a call acted on: its command or its file. */
const target = (call: Call) => inputString(call, 'command') ?? filePath(call) ?? JSON.stringify(call.input);

/** A section body from the earlier summary, carried under its own label. */
function carried(digest: Digest, section: number): string[] {
  const body = digest.earlier.get(section);
  if (body === undefined || /^-?\s*None\.?$/.test(body)) return [];
  return ['   Earlier (from the previous summary):', `      ${indent(body, 6)}`];
}

function orNone(lines: string[]): string[] {
  return lines.length === 0 ? ['   - None.'] : lines;
}

function primaryRequest(digest: Digest, instructions: string | undefined): string[] {
  const lines = carried(digest, 1);
  const whole = digest.earlier.get(0);
  if (whole !== undefined) lines.push('   Earlier (from the previous summary):', `      ${indent(whole, 6)}`);
  const [first, ...later] = digest.prompts;
  if (first !== undefined) lines.push(`   ${indent(clip(first, REQUEST_CHARS), 3)}`);
  if (later.length > 0) lines.push('   Later requests:', ...later.map((prompt) => `   - ${firstLine(prompt)}`));
  if (lines.length === 0) lines.push('   No request in this part of the conversation.');
  if (instructions !== undefined && instructions.trim() !== '')
    lines.push(`   Focus requested: ${indent(instructions.trim(), 3)}`);
  return lines;
}

function keyConcepts(digest: Digest): string[] {
  return orNone([...carried(digest, 2), ...conceptLines(digest.calls)]);
}

function errorsAndFixes(digest: Digest): string[] {
  const lines = carried(digest, 4);
  digest.calls.forEach((call, index) => {
    if (call.result === null || !call.result.failed) return;
    const header = /^(?:Error: )?(Exit code \d+)/.exec(call.result.text)?.[1];
    lines.push(
      `   - ${call.name} \`${clip(target(call), LINE_CHARS)}\` failed${header === undefined ? '' : ` (${header})`}: ${errorKeyLine(call.result.text)}`,
    );
    const later = digest.calls.slice(index + 1);
    const retry = later.findIndex(
      (other) => other.name === call.name && target(other) === target(call) && succeeded(other),
    );
    if (retry === -1) {
      lines.push('      - Not resolved in this part of the conversation.');
      return;
    }
    const edited = [
      ...new Set(
        later
          .slice(0, retry)
          .filter(
            (other) => FILE_TOOLS[other.name] !== 'read' && FILE_TOOLS[other.name] !== undefined && succeeded(other),
          )
          .map(filePath),
      ),
    ];
    const after = edited.length === 0 ? '' : ` after changes to ${edited.join(', ')}`;
    lines.push(`      - Fixed: the same ${call.name === 'Bash' ? 'command' : 'call'} succeeded later${after}.`);
  });
  return orNone(lines);
}

/** Where a plan stands, for its label. */
function planSource(source: string): string {
  if (source === 'a reply') return "as the assistant's reply listed it";
  if (source.startsWith('plan mode')) return source;
  return `written to ${source}`;
}

/** Decisions, the plan and the checks' results, quoted: what a model summarizing would carry, not tool counts. */
function problemSolving(digest: Digest): string[] {
  const lines = carried(digest, 5);
  const { decisions, plan, checks } = digest.outcomes;
  if (decisions.length > 0)
    lines.push(
      '   Decisions:',
      ...decisions.map(
        (decision) =>
          `   - "${decision.text}" (${decision.who})${decision.reason === null ? '' : ` — the assistant's reason: "${decision.reason}"`}`,
      ),
    );
  if (plan !== null)
    lines.push(
      `   Plan (${planSource(plan.source)}):`,
      ...plan.steps.map((step, index) => `   ${index + 1}. ${step}`),
      ...(plan.more > 0 ? [`   (${plan.more} more steps)`] : []),
    );
  if (checks.length > 0)
    lines.push(
      '   Check results (the last run of each):',
      ...checks.map((check) => `   - \`${check.command}\` ${check.passed ? 'passed' : 'failed'}: ${check.line}`),
    );
  for (const call of digest.calls.filter((candidate) => candidate.result?.failed === true)) {
    const reply = digest.replies.find((candidate) => candidate.at > (call.result?.at ?? call.at));
    if (reply !== undefined)
      lines.push(`   - After \`${clip(target(call), LINE_CHARS)}\` failed: ${firstLine(reply.text)}`);
  }
  return orNone(lines);
}

function earlierUserMessages(digest: Digest): string[] {
  const body = digest.earlier.get(6);
  if (body === undefined) return [];
  return body
    .split(/\n(?=\s*- ")/)
    .map((item) => readableUserText(item.replace(/^\s*- "/, '').replace(/"\s*$/, '')).text)
    .filter((item) => item.trim() !== '' && !/^-?\s*None\.?$/.test(item.trim()));
}

function userMessages(digest: Digest): string[] {
  // A preserved segment repeats what the earlier summary already quotes.
  const all = [
    ...earlierUserMessages(digest).filter((message) => !digest.messages.includes(message)),
    ...digest.messages,
  ];
  return orNone(fitUserMessages(all, USER_MESSAGES_MAX_TOKENS * CHARS_PER_TOKEN).map((message) => `   - "${message}"`));
}

/** A todo as written; a task by its id, subject and description. */
function taskLabel(open: OpenTask): string {
  if (open.task === null) return open.text;
  return `#${open.task.id} ${open.text}${open.task.description === null ? '' : ` (${open.task.description})`}`;
}

function currentWork(digest: Digest, open: readonly OpenTask[]): string[] {
  const lines: string[] = [];
  const request = digest.prompts.at(-1) ?? earlierUserMessages(digest).at(-1);
  if (request !== undefined) lines.push(`   Last request: "${indent(clip(request, REQUEST_CHARS), 3)}"`);
  const reply = digest.replies.at(-1);
  if (reply !== undefined) lines.push(`   Last assistant reply: ${indent(clip(reply.text, REPLY_CHARS), 3)}`);
  for (const task of open) if (task.status === 'in_progress') lines.push(`   In progress: ${taskLabel(task)}`);
  return lines.length === 0 ? ['   Nothing recorded yet.'] : lines;
}

/**
 * The plan's steps still to do (the ones later calls did not do), while no todo list or task
 * tracks the work after the plan: that list would be the pending one.
 */
function plannedSteps(digest: Digest): string[] {
  const { plan } = digest.outcomes;
  if (plan === null) return [];
  if (digest.calls.some((call) => call.at > plan.at && TASK_TOOLS.includes(call.name))) return [];
  return plan.steps.filter((step) => !doneAfter(step, plan.at, digest.calls, digest.requests, digest.cwd));
}

/**
 * The nine sections from the transcript's structure. Pure and deterministic. `earlier`: the file
 * calls before `loaded`'s compact_boundary (transcripts/earlier.ts), for the files they touched.
 */
export function offlineSummary(
  loaded: readonly LoadedEntry[],
  instructions?: string,
  earlier: readonly Call[] = [],
): string {
  const found = digest(loaded, earlier);
  const open = openTasks(found.calls);
  const planned = open.length === 0 ? plannedSteps(found) : [];
  const next = open[0] === undefined ? planned[0] : taskLabel(open[0]);
  const bodies = [
    primaryRequest(found, instructions),
    keyConcepts(found),
    orNone(filesAndCode({ calls: found.calls, before: found.before, cwd: found.cwd, earlier: found.earlier.get(3) })),
    errorsAndFixes(found),
    problemSolving(found),
    userMessages(found),
    orNone([
      ...open.map((task) => `   - [${task.status}] ${taskLabel(task)}`),
      ...planned.map((step) => `   - [planned] ${step}`),
    ]),
    currentWork(found, open),
    [next === undefined ? '   Wait for the next request.' : `   Continue with: ${next}`],
  ];
  return bodies.map((lines, index) => `${index + 1}. ${SUMMARY_SECTIONS[index]}:\n${lines.join('\n')}`).join('\n\n');
}

/**
 * The default summarizer (DESIGN.md §5, `offline`): no network, the same summary every time. Its
 * text is wrapped in `<summary>` as a model's is, so that a tag in what it quotes is nested in
 * the wrapper and never taken for the summary.
 */
export function createOfflineCompactionSummarizer(): CompactionSummarizer {
  return {
    async summarize(input) {
      input.signal?.throwIfAborted();
      const earlier = input.earlier === undefined ? [] : await input.earlier();
      // Cancelled while the earlier calls were read: a rejection, as a model's call would give.
      input.signal?.throwIfAborted();
      return `<summary>\n${offlineSummary(input.loaded, input.instructions, earlier)}\n</summary>`;
    },
  };
}
