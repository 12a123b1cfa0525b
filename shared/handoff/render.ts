/**
 * The handoff file `<cwd>/docs/handoff-context.md` (DESIGN.md §2, issue 7), as text. Pure: the
 * daemon renders it, and memctl renders the partial one itself when no daemon answers.
 *
 * The facts (files, git, commands, todos, the user's rules) are rendered from `HandoffFacts` in
 * every file, whichever narrator wrote the prose around them, so that what can be checked never
 * depends on a model.
 */
import type { HandoffCommand, HandoffFacts, HandoffSummarizer } from '../protocol/handoff.js';
import { runLengths } from '../text/run-lengths.js';
import { bullets, codeSpan, fenced, flat, tableCell } from './markdown.js';

/** The first line of a handoff that could not be made whole carries this (DESIGN.md §5). */
export const HANDOFF_PARTIAL_MARKER = 'HANDOFF_AUTO_PARTIAL';

/** The sections of a complete handoff, in order (seed: "Handoff Schema"). */
export const HANDOFF_SECTIONS = [
  'Session Started',
  'Task',
  'Completed Tasks',
  'Current State',
  'Constraints',
  'Files Touched',
  'Issues Discovered',
  'Open Questions',
  'Next Steps',
  'Resume Prompt',
] as const;

/** One list item or paragraph of prose: enough for a precise sentence, not for a pasted log. */
export const ITEM_CHARS = 1_000;
/** The resume prompt is one paragraph, pasted whole into a fresh session. */
export const RESUME_CHARS = 3_000;
/** Items of one prose list: a model that rambles cannot grow the file without bound. */
export const MAX_ITEMS = 30;
/** A command as shown: one glance, still long enough to tell commands apart. */
const COMMAND_CHARS = 300;

/** The prose of a handoff: written offline from the facts, or by a model. */
export interface HandoffNarrative {
  /** The overall goal, as it stands now (changes of mind included). */
  task: string;
  completedTasks: string[];
  currentState: string[];
  issues: string[];
  openQuestions: string[];
  /** Ordered; the first is literally the next action to take. */
  nextSteps: string[];
  /** One paragraph to paste into a fresh session. */
  resumePrompt: string;
}

export interface HandoffDocument {
  sessionId: string | null;
  cwd: string;
  trigger: string;
  /** ISO 8601. */
  generatedAt: string;
  /** ISO 8601 time of the transcript's first entry; null when it has none. */
  sessionStarted: string | null;
  summarizer: HandoffSummarizer;
  narrative: HandoffNarrative;
  facts: HandoffFacts;
}

export interface PartialHandoffInput {
  sessionId: string | null;
  cwd: string;
  trigger: string;
  generatedAt: string;
  /** Why there is no narrative: the model timed out or failed, or no daemon answered. */
  reason: string;
  /** The end of the transcript (transcriptTailText), kept verbatim. */
  tail: string;
  facts?: HandoffFacts | null;
}

function header(sessionId: string | null, generatedAt: string, trigger: string, partial: boolean): string {
  return `# Handoff${partial ? ` (${HANDOFF_PARTIAL_MARKER})` : ''} — session ${sessionId ?? 'unknown'} — ${generatedAt} — trigger: ${flat(trigger, 100) || 'manual'}`;
}

const section = (title: string, body: string) => `## ${title}\n\n${body}`;

const prose = (items: readonly string[]) =>
  items
    .map((item) => flat(item, ITEM_CHARS))
    .filter((item) => item !== '')
    .slice(0, MAX_ITEMS);

const statusOf = (command: HandoffCommand) =>
  command.exitCode !== null ? `exit ${command.exitCode}` : command.isError ? 'failed' : 'no exit code';

/** Each command once, with its runs: "`npm test` — exit 1 ×2, then exit 0". */
export function commandLines(commands: readonly HandoffCommand[]): string[] {
  const runs = new Map<string, string[]>();
  for (const command of commands) {
    const key = flat(command.command, COMMAND_CHARS);
    runs.set(key, [...(runs.get(key) ?? []), statusOf(command)]);
  }
  return [...runs].map(([command, statuses]) => `${codeSpan(command)} — ${runLengths(statuses)}`);
}

function gitLines(facts: HandoffFacts): string[] {
  if (facts.git === null)
    return facts.gitProblem === undefined
      ? []
      : [`Git: not read (${flat(facts.gitProblem)}); the working tree's state is unknown.`];
  const { branch, porcelain, diffStat } = facts.git;
  const summary = diffStat?.trim().split('\n').at(-1)?.trim();
  const changes =
    porcelain.length === 0
      ? 'a clean working tree'
      : `${porcelain.length} path${porcelain.length === 1 ? '' : 's'} in \`git status\``;
  return [
    // git's count is against HEAD, whoever changed the files: said so, lest it read as this session's changes.
    `Git: branch ${branch === null ? '(detached or unborn)' : codeSpan(branch)}, ${changes}${summary ? `; against HEAD: ${summary}` : ''}.`,
  ];
}

/** The facts' part of Current State: git, the last commands and the todo list. */
function stateFacts(facts: HandoffFacts): string {
  const lines = gitLines(facts).map((line) => `- ${line}`);
  const commands = commandLines(facts.commands);
  if (commands.length > 0) lines.push('- Last commands (oldest first):', ...commands.map((line) => `  - ${line}`));
  if (facts.todos.length > 0)
    lines.push(
      '- Todo list:',
      ...facts.todos.map(
        (todo) => `  - [${todo.status === 'completed' ? 'x' : ' '}] ${flat(todo.content, ITEM_CHARS)} (${todo.status})`,
      ),
    );
  return lines.join('\n');
}

function constraintsBody(facts: HandoffFacts): string {
  const parts: string[] = [];
  // Verbatim: the user's own words, only made one line.
  if (facts.constraints.length > 0)
    parts.push(
      `User rules, verbatim:\n${bullets(
        facts.constraints.map((text) => flat(text)),
        '',
      )}`,
    );
  if (facts.ruledOut.length > 0)
    parts.push(
      `Ruled-out approaches, verbatim (do not retry them):\n${bullets(
        facts.ruledOut.map((text) => flat(text)),
        '',
      )}`,
    );
  return parts.length === 0 ? '- None stated by the user.' : parts.join('\n\n');
}

function filesTable(facts: HandoffFacts): string {
  if (facts.filesTouched.length === 0) return '- No files touched.';
  const rows = facts.filesTouched.map(
    (file) => `| ${codeSpan(file.path).replaceAll('|', '\\|')} | ${file.status} | ${tableCell(file.summary)} |`,
  );
  return ['| Path | Status | Summary |', '|---|---|---|', ...rows].join('\n');
}

function failingLines(facts: HandoffFacts): string[] {
  return facts.failing.map(
    (command) => `Still failing: ${codeSpan(flat(command.command, COMMAND_CHARS))} (${statusOf(command)})`,
  );
}

function joinBlocks(...blocks: string[]): string {
  return blocks.filter((block) => block !== '').join('\n');
}

/** The complete handoff: a header line, then every section of HANDOFF_SECTIONS in order. */
export function renderHandoff(doc: HandoffDocument): string {
  const { narrative, facts } = doc;
  const steps = prose(narrative.nextSteps);
  const body: [string, string][] = [
    ['Session Started', doc.sessionStarted ?? 'unknown (the transcript has no timestamps)'],
    ['Task', flat(narrative.task, ITEM_CHARS * 2) || 'Unknown: the transcript holds no request.'],
    ['Completed Tasks', bullets(prose(narrative.completedTasks), 'Nothing completed yet.')],
    [
      'Current State',
      joinBlocks(
        prose(narrative.currentState)
          .map((item) => `- ${item}`)
          .join('\n'),
        stateFacts(facts),
      ) || '- Nothing recorded.',
    ],
    ['Constraints', constraintsBody(facts)],
    ['Files Touched', filesTable(facts)],
    ['Issues Discovered', bullets([...failingLines(facts), ...prose(narrative.issues)], 'None found.')],
    ['Open Questions', bullets(prose(narrative.openQuestions), 'None.')],
    [
      'Next Steps',
      (steps.length === 0 ? ['Ask the user what to do next.'] : steps)
        .map((step, index) => `${index + 1}. ${step}`)
        .join('\n'),
    ],
    ['Resume Prompt', flat(narrative.resumePrompt, RESUME_CHARS)],
  ];
  const intro = `_Written by memd (${doc.summarizer} narrative) for ${flat(doc.cwd)}. Files, git, commands and rules below are read from the transcript and the repository; check before relying on anything else._`;
  return `${[header(doc.sessionId, doc.generatedAt, doc.trigger, false), intro, ...body.map(([title, text]) => section(title, text))].join('\n\n')}\n`;
}

/**
 * The handoff when no narrative could be made: the marker on the first line, why, whatever facts
 * are known, and the transcript's tail verbatim in a fence nothing inside can close.
 */
export function renderPartialHandoff(input: PartialHandoffInput): string {
  const facts = input.facts ?? null;
  const parts = [
    header(input.sessionId, input.generatedAt, input.trigger, true),
    `**Partial handoff:** ${flat(input.reason, ITEM_CHARS)}. No summary was written for ${flat(input.cwd)}; what follows are the facts memd could read and the end of the transcript. Re-read the files listed before changing them again.`,
  ];
  if (facts !== null) {
    parts.push(
      section('Constraints', constraintsBody(facts)),
      section('Current State', stateFacts(facts) || '- Nothing recorded.'),
      section('Files Touched', filesTable(facts)),
      section('Issues Discovered', bullets(failingLines(facts), 'No failing command.')),
    );
  }
  parts.push(
    section(
      'Transcript Tail',
      input.tail.trim() === '' ? '(the transcript could not be read)' : fenced(input.tail, 'text'),
    ),
  );
  return `${parts.join('\n\n')}\n`;
}

/** Whether a handoff file's text is a partial one (its first line has the marker). */
export function isPartialHandoff(text: string): boolean {
  return (text.split('\n', 1)[0] ?? '').includes(HANDOFF_PARTIAL_MARKER);
}

/**
 * What PreCompact prints as compaction instructions: the user's rules and the ruled-out
 * approaches, verbatim, so the compaction summary keeps them. Empty when there are none.
 */
export function renderPinned(facts: Pick<HandoffFacts, 'constraints' | 'ruledOut'>): string {
  if (facts.constraints.length === 0 && facts.ruledOut.length === 0) return '';
  const lines = ['Keep these in the summary word for word; they still apply after the compaction.'];
  if (facts.constraints.length > 0) lines.push('User rules:', ...facts.constraints.map((text) => `- ${flat(text)}`));
  if (facts.ruledOut.length > 0)
    lines.push(
      'Approaches the user ruled out (do not retry them):',
      ...facts.ruledOut.map((text) => `- ${flat(text)}`),
    );
  return `${lines.join('\n')}\n`;
}
