/**
 * The default session-memory summarizer (DESIGN.md §5, `offline`; issue 5 item 4): deterministic,
 * no network. It fills the 10 sections of the session-memory template from the transcript's
 * structure: prompts per turn, tool calls and their results, todo lists. Pure.
 *
 * What came before `loaded` is carried forward from two places: the summary of the last
 * compaction (a compact-summary entry in `loaded`: nine numbered sections, or a session memory
 * used as the summary) and `previous`, the memory that covered the conversation before `loaded`.
 * Their lines come first (oldest); a carried line gives way to a new line with the same key (the
 * same file, command or label), so a fact is not listed twice in two versions.
 */

import { userRules } from '../../shared/handoff/rules.js';
import { type Outcomes, readOutcomes } from '../transcripts/decisions.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import {
  type Call,
  ELLIPSIS,
  errorKeyLine,
  fitUserMessages,
  LINE_CHARS,
  oneLine,
  openTasks,
  readTranscript,
  type Said,
  type TranscriptFacts,
} from '../transcripts/facts.js';
import { proseOf } from '../transcripts/line-shapes.js';
import { type BudgetSection, renderWithinLimits, SESSION_SECTION_MAX_TOKENS } from './budget.js';
import { codebase, filesAndFunctions, keyResults, learnings, targetOf, turnWork, workflow } from './call-sections.js';
import { doneAfter, fileEntries, mergeCarriedFiles, type Request } from './progress.js';
import { CURRENT, earlierLines, FILES, merge, sectionIds, TASK, TITLE, usableTemplate, WORKLOG } from './template.js';

const REQUEST_CHARS = 1_000; // the current request and user corrections: enough to keep their wording
const REPLY_CHARS = 1_500; // the last assistant text: what it said it did and what is next
const TITLE_CHARS = 80; // the template asks for 5 to 10 words
const WORKLOG_PROMPT_CHARS = 100; // a worklog line names its turn; the request list holds the rest
const NONE = '- None yet.';
/**
 * A prompt that corrects what the agent just did: it opens by saying no or naming the mistake
 * ("No — …", "That's wrong", "Don't …", "Stop …", "Undo that"), or it turns the approach ("… instead").
 * A standing rule ("always run the tests") is no correction: it is listed as a user rule.
 */
const CORRECTION =
  /^\W*(?:no\b|nope\b|wrong\b|not (?:like )?(?:that|this)\b|(?:that|this|it)['’]?s (?:not|wrong|incorrect|broken)\b|(?:that|this|it) (?:is|was)(?:n['’]t| not) (?:right|correct|what)\b|don['’]t\b|do not\b|stop\b|undo\b|revert\b|wait\b|I said\b|I told you\b|why did you\b|you (?:broke|forgot|missed|shouldn['’]t|should not|didn['’]t|did not)\b)|\binstead\b|\bnot what I (?:asked|wanted|meant)\b/i;
/** A sentence announcing the next step: "Next I'll add the test.", "Now let me run pytest." */
const INTENTION = /^(?:(?:next|now|then|after that),?\s+)?(?:I['’]ll|I will|let me|I['’]m going to|we['’]ll)\b/i;
const OPEN_LINE = /^- (?:Pending|In progress|Pending at the last compaction|Next(?: steps?)?|To ?do): (.*)$/i;
const CHANGE_OF_MIND =
  /^\s*(?:actually\b|instead\b|no,|change of plan\b|scratch that\b|on second thought\b|forget (?:that|it)\b|never ?mind\b)/i;
const INTERRUPTED = /^\[Request interrupted by user/;

export interface OfflineMemoryInput {
  loaded: readonly LoadedEntry[];
  /**
   * The memory as it stood (`summary.md`, from either summarizer). What it says that `loaded` no
   * longer shows (before a compaction) or cannot rebuild (a model's prose) is carried forward.
   */
  previous?: string | null;
  /** The session-memory template (the override file's text); SESSION_MEMORY_TEMPLATE by default. */
  template?: string;
  /** The session's custom title. */
  title?: string | null;
  /**
   * The calls before `loaded`, before the last compact_boundary (transcripts/earlier.ts): a file
   * they changed is a file changed in this session, with its status, though only a compaction's
   * summary names it in `loaded`. Only the files they touched are used.
   */
  earlier?: readonly Call[];
}

interface Turn {
  /** Null for the work before the first prompt (after a compaction, say). */
  prompt: string | null;
  at: number;
  calls: Call[];
  replies: Said[];
}

interface Session {
  turns: Turn[];
  /** Texts of compaction summaries, oldest first. */
  summaries: string[];
  cwd: string | null;
  branch: string | null;
}

/** A title from a request: its first sentence, cut at a word. */
function titleOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?[.?!](?=\s|$)/.exec(flat)?.[0] ?? flat;
  if (sentence.length <= TITLE_CHARS) return sentence;
  const cut = sentence.slice(0, TITLE_CHARS - 1);
  return `${cut.lastIndexOf(' ') > 0 ? cut.slice(0, cut.lastIndexOf(' ')) : oneLine(cut, TITLE_CHARS - 1)}${ELLIPSIS}`;
}

/** Each item goes to the last turn opened before it; items and turns are both in transcript order. */
function assign<T extends { at: number }>(
  turns: readonly Turn[],
  items: readonly T[],
  add: (turn: Turn, item: T) => void,
): void {
  let index = 0;
  for (const item of items) {
    while ((turns[index + 1]?.at ?? Infinity) < item.at) index++;
    const turn = turns[index];
    if (turn !== undefined) add(turn, item);
  }
}

/** The transcript in turns: each prompt opens one; an interruption notice is no prompt. */
function turnsOf(facts: TranscriptFacts): Turn[] {
  const turns: Turn[] = facts.prompts
    .filter((prompt) => !INTERRUPTED.test(prompt.text))
    .map(({ at, text }) => ({ prompt: text, at, calls: [], replies: [] }));
  const first = Math.min(facts.calls[0]?.at ?? Infinity, facts.replies[0]?.at ?? Infinity);
  if (first < (turns[0]?.at ?? Infinity)) turns.unshift({ prompt: null, at: first, calls: [], replies: [] });
  assign(turns, facts.calls, (turn, call) => turn.calls.push(call));
  assign(turns, facts.replies, (turn, reply) => turn.replies.push(reply));
  return turns;
}

function readSession(loaded: readonly LoadedEntry[]): Session {
  const facts = readTranscript(loaded);
  return { turns: turnsOf(facts), summaries: facts.summaries, cwd: facts.cwd, branch: facts.branch };
}

/** The session's requests with where they are, for what later turns finished. */
const requestsOf = (session: Session): Request[] =>
  session.turns.flatMap((turn) => (turn.prompt === null ? [] : [{ at: turn.at, text: turn.prompt }]));

/** A reply as prose, without the steps it announced that the calls after it did. */
function replyText(reply: Said, session: Session, calls: readonly Call[]): string {
  const sentences = proseOf(reply.text).split(/(?<=[.!?])\s+/);
  return sentences
    .filter(
      (sentence) =>
        !(INTENTION.test(sentence.trim()) && doneAfter(sentence, reply.at, calls, requestsOf(session), session.cwd)),
    )
    .join(' ')
    .trim();
}

/** The decisions, the plan and the checks of the turns (decisions.ts). */
function outcomesOf(session: Session, calls: readonly Call[]): Outcomes {
  const prompts = session.turns.flatMap((turn) => (turn.prompt === null ? [] : [{ at: turn.at, text: turn.prompt }]));
  return readOutcomes(
    prompts,
    session.turns.flatMap((turn) => turn.replies),
    calls,
  );
}

/**
 * The plan's steps that are next: only while no todo list or task tracks the work after the plan
 * (that list is the current one), and only the steps later calls have not done.
 */
function plannedSteps(session: Session, calls: readonly Call[], outcomes: Outcomes): string[] {
  const { plan } = outcomes;
  if (plan === null) return [];
  const tracked = calls.some(
    (call) => call.at > plan.at && ['TodoWrite', 'TaskCreate', 'TaskUpdate'].includes(call.name),
  );
  if (tracked) return [];
  return plan.steps
    .filter((step) => !doneAfter(step, plan.at, calls, requestsOf(session), session.cwd))
    .map((step) => `- Next: ${oneLine(step, LINE_CHARS)}`);
}

function currentState(session: Session, calls: readonly Call[], outcomes: Outcomes): string[] {
  const prompts = session.turns.flatMap((turn) => (turn.prompt === null ? [] : [turn.prompt]));
  const prompt = prompts.at(-1);
  const reply = session.turns.flatMap((turn) => turn.replies).findLast((said) => proseOf(said.text) !== '');
  const lines: string[] = [];
  // The only request is the task specification's first one: said once, there.
  const continued = session.summaries.length > 0 || session.turns[0]?.prompt === null;
  if (prompt !== undefined && (continued || prompts.length > 1))
    lines.push(`- Last request: ${oneLine(prompt, REQUEST_CHARS)}`);
  const said = reply === undefined ? '' : replyText(reply, session, calls);
  if (said !== '') lines.push(`- Last assistant text: ${oneLine(said, REPLY_CHARS)}`);
  for (const task of openTasks(calls)) {
    if (doneAfter(task.text, task.at ?? -1, calls, requestsOf(session), session.cwd)) continue;
    lines.push(`- ${task.status === 'in_progress' ? 'In progress' : 'Pending'}: ${oneLine(task.text, LINE_CHARS)}`);
  }
  return [...lines, ...plannedSteps(session, calls, outcomes)];
}

/** A request's rules and ruled-out approaches not said before, each sentence verbatim. */
function rulesOf(prompt: string, said: Set<string>): string[] {
  const { constraints, ruledOut } = userRules([prompt]);
  const lines = [
    ...constraints.map((rule) => `- User rule: "${oneLine(rule, REQUEST_CHARS)}"`),
    ...ruledOut.map((rule) => `- Ruled out by the user: "${oneLine(rule, REQUEST_CHARS)}"`),
  ].filter((line) => !said.has(line));
  for (const line of lines) said.add(line);
  return lines;
}

/**
 * The requests in order, each once (the first is the original one unless an earlier part of the
 * session is carried), each followed by the rules it gave: a later extraction adds lines at the end.
 */
function taskSpecification(prompts: readonly string[], continued: boolean): string[] {
  if (prompts.length === 0 && !continued) return [];
  const first = continued ? null : (prompts[0] ?? null);
  const later = continued ? prompts : prompts.slice(1);
  // The newest requests stay whole; older ones shrink first (the section trimmer drops them last).
  const fitted = fitUserMessages(
    later.map((prompt) => oneLine(prompt, REQUEST_CHARS)),
    SESSION_SECTION_MAX_TOKENS * 2,
  );
  const said = new Set<string>();
  return [
    ...(first === null ? [] : [`- First request: ${oneLine(first, REQUEST_CHARS)}`, ...rulesOf(first, said)]),
    ...fitted.flatMap((prompt, index) => [
      `- ${CHANGE_OF_MIND.test(prompt) ? 'Change of plan' : 'Then'}: ${prompt}`,
      ...rulesOf(later[index] ?? '', said),
    ]),
  ];
}

function errorsAndCorrections(session: Session, calls: readonly Call[]): string[] {
  const found: { at: number; line: string }[] = [];
  for (const call of calls) {
    if (call.result === null || !call.result.failed) continue;
    const exit = call.result.exit === null ? '' : ` (exit ${call.result.exit})`;
    found.push({
      at: call.at,
      line: `- ${call.name} \`${oneLine(targetOf(call), LINE_CHARS)}\` failed${exit}: ${errorKeyLine(call.result.text)}`,
    });
  }
  // A correction answers what the agent did: a prompt after a turn in which it acted or replied, never the request itself.
  session.turns.forEach((turn, index) => {
    const before = session.turns[index - 1];
    const acted = before !== undefined && (before.calls.length > 0 || before.replies.length > 0);
    if (acted && turn.prompt !== null && CORRECTION.test(turn.prompt))
      found.push({ at: turn.at, line: `- User correction: "${oneLine(turn.prompt, REQUEST_CHARS)}"` });
  });
  return found.sort((a, b) => a.at - b.at).map((item) => item.line);
}

function worklog(session: Session): string[] {
  return session.turns.map((turn) => {
    const prompt =
      turn.prompt === null ? '(continued)' : oneLine(turn.prompt, WORKLOG_PROMPT_CHARS).replaceAll(' — ', ' - ');
    const reply = turn.replies.map((said) => proseOf(said.text)).findLast((text) => text !== '');
    return `- ${prompt} — ${turnWork(turn.calls, session.cwd)}; ${reply === undefined ? 'no reply yet' : oneLine(reply, LINE_CHARS)}`;
  });
}

/** The full text of `summary.md`. Pure and deterministic. */
export function offlineSessionMemory(input: OfflineMemoryInput): string {
  const template = usableTemplate(input.template);
  const ids = sectionIds(template);
  const session = readSession(input.loaded);
  const calls = session.turns.flatMap((turn) => turn.calls);
  const prompts = session.turns.flatMap((turn) => (turn.prompt === null ? [] : [turn.prompt]));
  // Each earlier text with where it stood: the previous memory before `loaded`, a compaction summary at its entry.
  const summaryAt = input.loaded.flatMap(({ entry }, at) =>
    entry.type === 'user' && entry.isCompactSummary ? [at] : [],
  );
  const earlier = [
    ...(input.previous == null ? [] : [{ text: input.previous, at: -1 }]),
    ...session.summaries.map((text, index) => ({ text, at: summaryAt[index] ?? -1 })),
  ].map(({ text, at }) => ({
    at,
    sections: earlierLines(text, template),
  }));
  const carried = (section: number) => earlier.flatMap((source) => source.sections[section] ?? []);
  const derived = [carried(TITLE)[0], carried(TASK)[0]?.replace(/^- (?:First request: )?/, ''), prompts[0]].find(
    (text) => text !== undefined && text.trim() !== '',
  );
  const title =
    input.title != null && input.title.trim() !== ''
      ? oneLine(input.title, LINE_CHARS)
      : titleOf(derived ?? 'Untitled session');
  const files = fileEntries([...(input.earlier ?? []), ...calls], session.cwd);
  const outcomes = outcomesOf(session, calls);
  const carriedFiles = mergeCarriedFiles(carried(FILES), files, session.cwd);
  const continued = carried(TASK).length > 0;
  const fresh: string[][] = [
    [title],
    currentState(session, calls, outcomes),
    taskSpecification(prompts, continued),
    filesAndFunctions(calls, files, carriedFiles.notes, session.cwd),
    workflow(calls),
    errorsAndCorrections(session, calls),
    codebase(session, calls),
    learnings(calls),
    keyResults(calls, outcomes),
    worklog(session),
  ];
  const hasTaskCalls = calls.some((call) => ['TodoWrite', 'TaskCreate', 'TaskUpdate'].includes(call.name));
  // A carried open item the later turns finished is not open any more.
  const stillOpen = (line: string, at: number) => {
    const item = OPEN_LINE.exec(line)?.[1];
    return item === undefined || !doneAfter(item, at, calls, requestsOf(session), session.cwd);
  };
  const carriedCurrent = earlier.flatMap((source) =>
    (source.sections[CURRENT] ?? []).filter((line) => stillOpen(line, source.at)),
  );
  // What `loaded`'s prompts give is rebuilt from them: a carried line about one of them (a memory
  // written before issue 32 quoted the request as a correction, or as the only last request) goes.
  const asked = new Set(prompts.map((prompt) => oneLine(prompt, REQUEST_CHARS)));
  const rebuilt = (line: string) => {
    const about = /^- (?:User correction: "(.*)"|Last request: (.*))$/.exec(line);
    return about !== null && asked.has(about[1] ?? about[2] ?? '');
  };
  const bodies = fresh.map((lines, section) => {
    if (section === TITLE) return lines;
    // A todo list in `loaded` is the whole list: carried open items are stale.
    const old = (
      section === CURRENT
        ? carriedCurrent.filter((line) => !hasTaskCalls || !/^- (?:Pending|In progress|Next):/.test(line))
        : section === FILES
          ? carriedFiles.carried
          : carried(section)
    ).filter((line) => !rebuilt(line));
    return merge(section, old, lines);
  });
  const sections = template.map((section, index): BudgetSection => {
    const id = ids[index] ?? null;
    const lines = id === null ? [] : (bodies[id] ?? []);
    return {
      // The template's descriptions guide a model; the written memory holds the headings only.
      head: `${section.heading}\n`,
      lines: (lines.length === 0 ? [NONE] : lines).map((text, at) => ({
        text,
        keep: id === TITLE || (id === TASK && at === 0),
      })),
      omitted: 0,
      worklog: id === WORKLOG,
    };
  });
  return renderWithinLimits(sections);
}
