/**
 * The offline handoff narrative (DESIGN.md §5, `offline`): deterministic, no network, written from
 * the transcript's structure and the facts. The task is the first request and the user's changes
 * of mind; completed work is the finished todos and the checks that pass after the edits; the
 * state is the last request and the last assistant text; issues are the failures' key lines;
 * the decisions (the user's choices, the assistant's stated ones, with their reasons: decisions.ts)
 * are part of the state, and the resume prompt keeps the newest; the next steps start with the
 * literal next action. Pure.
 */

import { flat } from '../../shared/handoff/markdown.js';
import { type HandoffNarrative, MAX_ITEMS, RESUME_CHARS } from '../../shared/handoff/render.js';
import type { HandoffFacts } from '../../shared/protocol/handoff.js';
import { type Decision, readOutcomes } from '../transcripts/decisions.js';
import {
  type Call,
  callFiles,
  errorKeyLine,
  filePath,
  inputString,
  type TranscriptFacts,
} from '../transcripts/facts.js';
import { INTERRUPTED } from './facts.js';

const REQUEST_CHARS = 600; // a request in the state or a step: enough to keep its wording
const TASK_REQUEST_CHARS = 300; // a request in the task: its gist (a pasted log stays in the transcript)
const LATER_REQUESTS = 5; // later requests named in the task, the newest
const REPLY_CHARS = 1_000; // the last assistant text: what it did and what it meant to do next
const TARGET_CHARS = 200; // a command or path named in an issue
const CHANGE_OF_MIND =
  /^\s*(?:actually\b|instead\b|no\s*[,.—–-]|change of plan\b|scratch that\b|on second thought\b|forget (?:that|it)\b|never ?mind\b|stop\b)/i;
/** Commands that check the work: their passing after an edit is something completed. */
const CHECK_COMMAND =
  /\b(?:test|tests|pytest|unittest|jest|vitest|mocha|spec|tsc|lint|eslint|build|make|cargo|go (?:test|build|vet)|mypy|ruff)\b|node --test/;
const GIT_COMMIT = /\bgit\s+(?:-\S+\s+)*commit\b/;
const DECISION_CHARS = 300; // a decision's sentence or its reason: one sentence, kept whole
const RESUME_DECISIONS = 3; // decisions the resume prompt repeats, the newest: the rest are in the state

export interface OfflineNarrativeInput {
  main: TranscriptFacts;
  facts: HandoffFacts;
  sessionId: string | null;
  cwd: string;
}

interface Said {
  at: number;
  text: string;
}

const quote = (text: string, max: number) => `“${flat(text, max)}”`;
const targetOf = (call: Call) =>
  flat(inputString(call, 'command') ?? filePath(call) ?? inputString(call, 'pattern') ?? call.name, TARGET_CHARS);
const isChange = (call: Call) => callFiles(call).some((file) => file.action !== 'read');

function taskOf(prompts: readonly Said[]): string {
  const [first, ...later] = prompts;
  if (first === undefined) return 'Continue the work in the transcript (no request of the user is recorded).';
  const then = later
    .slice(-LATER_REQUESTS)
    .map(
      (prompt) =>
        `${CHANGE_OF_MIND.test(prompt.text) ? 'Change of plan' : 'Then'}: ${quote(prompt.text, TASK_REQUEST_CHARS)}`,
    );
  return [flat(first.text, TASK_REQUEST_CHARS), ...then].join(' ');
}

function completedTasks(calls: readonly Call[], facts: HandoffFacts): string[] {
  const done = facts.todos.filter((todo) => todo.status === 'completed').map((todo) => todo.content);
  const firstChange = calls.find(isChange)?.at ?? Infinity;
  const checks = new Map<string, string>();
  for (const call of calls) {
    const command = call.name === 'Bash' ? inputString(call, 'command') : null;
    if (command === null || call.result === null) continue;
    checks.delete(command);
    if (call.result.failed) continue;
    if (GIT_COMMIT.test(command)) checks.set(command, `Committed: \`${flat(command, TARGET_CHARS)}\``);
    else if (CHECK_COMMAND.test(command) && call.at > firstChange)
      checks.set(command, `\`${flat(command, TARGET_CHARS)}\` passes (exit ${call.result.exit ?? 0}) after the edits`);
  }
  return [...done, ...checks.values()];
}

const decisionLine = (decision: Decision) =>
  `Decided${decision.who === 'user' ? ' (the user)' : ''}: ${quote(decision.text, DECISION_CHARS)}${decision.reason === null ? '' : ` — because ${quote(decision.reason, DECISION_CHARS)}`}`;

function currentState(
  prompts: readonly Said[],
  replies: readonly Said[],
  facts: HandoffFacts,
  main: TranscriptFacts,
  decisions: readonly Decision[],
): string[] {
  const lines: string[] = [];
  const prompt = prompts.at(-1);
  const reply = replies.at(-1);
  if (prompt !== undefined) lines.push(`Last request: ${quote(prompt.text, REQUEST_CHARS)}`);
  if (reply !== undefined) lines.push(`Last assistant text: ${quote(reply.text, REPLY_CHARS)}`);
  for (const todo of facts.todos.filter((candidate) => candidate.status === 'in_progress'))
    lines.push(`In progress: ${todo.content}`);
  const changed = facts.filesTouched.filter((file) => file.status !== 'read').length;
  lines.push(...decisions.map(decisionLine));
  if (changed > 0) lines.push(`${changed} file${changed === 1 ? '' : 's'} changed (see Files Touched).`);
  if (main.cwd !== null) lines.push(`The session ran in ${main.cwd}${main.branch ? ` on branch ${main.branch}` : ''}.`);
  return lines;
}

function issues(calls: readonly Call[], facts: HandoffFacts): string[] {
  const failing = new Set(facts.failing.map((command) => command.command));
  const lines = new Map<string, string>();
  calls.forEach((call, index) => {
    if (call.result === null || !call.result.failed) return;
    const target = targetOf(call);
    const exit = call.result.exit === null ? '' : ` (exit ${call.result.exit})`;
    const command = inputString(call, 'command');
    const later = calls
      .slice(index + 1)
      .some(
        (other) =>
          other.name === call.name && targetOf(other) === target && other.result !== null && !other.result.failed,
      );
    const outcome =
      command !== null && failing.has(command) ? 'still failing' : later ? 'succeeded later' : 'not retried';
    const line = `${call.name} \`${target}\` failed${exit}: ${errorKeyLine(call.result.text)} — ${outcome}`;
    lines.delete(line);
    lines.set(line, line);
  });
  // The newest issues matter most when there are more than the file lists.
  return [...lines.values()].slice(-MAX_ITEMS);
}

function openQuestions(prompts: readonly Said[], replies: readonly Said[], facts: HandoffFacts): string[] {
  const lines = facts.todos.filter((todo) => todo.status === 'pending').map((todo) => `Pending: ${todo.content}`);
  const prompt = prompts.at(-1);
  const reply = replies.at(-1);
  if (prompt?.text.trim().endsWith('?') && (reply === undefined || reply.at < prompt.at))
    lines.push(`Unanswered question of the user: ${quote(prompt.text, REQUEST_CHARS)}`);
  if (reply !== undefined && (prompt === undefined || reply.at > prompt.at) && reply.text.trim().endsWith('?'))
    lines.push(`The assistant asked and awaits an answer: ${quote(reply.text, REPLY_CHARS)}`);
  return lines;
}

/** Ordered; the first is what to do right now. */
function nextSteps(
  prompts: readonly Said[],
  replies: readonly Said[],
  calls: readonly Call[],
  facts: HandoffFacts,
): string[] {
  const steps: string[] = [];
  const prompt = prompts.at(-1);
  const lastWork = Math.max(replies.at(-1)?.at ?? -1, calls.at(-1)?.at ?? -1);
  if (prompt !== undefined && lastWork < prompt.at)
    steps.push(`Answer the user's last request, which has no reply yet: ${quote(prompt.text, REQUEST_CHARS)}`);
  for (const todo of facts.todos.filter((candidate) => candidate.status === 'in_progress'))
    steps.push(`Finish the task in progress: ${todo.content}`);
  for (const command of facts.failing) {
    const failed = calls.findLast(
      (call) =>
        call.name === 'Bash' && inputString(call, 'command') === command.command && call.result?.failed === true,
    );
    const why = failed?.result == null ? '' : ` (it fails with: ${errorKeyLine(failed.result.text)})`;
    steps.push(`Make \`${flat(command.command, TARGET_CHARS)}\` pass again${why}, then re-run it to confirm.`);
  }
  for (const todo of facts.todos.filter((candidate) => candidate.status === 'pending'))
    steps.push(`Do the pending task: ${todo.content}`);
  if (steps.length > 0) return steps;
  const reply = replies.at(-1);
  if (reply?.text.trim().endsWith('?')) return [`Wait for the user's answer to: ${quote(reply.text, REPLY_CHARS)}`];
  return [
    prompt === undefined
      ? 'Ask the user what to do next.'
      : `Ask the user what to do next; the last request (${quote(prompt.text, 200)}) looks done.`,
  ];
}

function resumePrompt(
  input: OfflineNarrativeInput,
  task: string,
  completed: readonly string[],
  steps: readonly string[],
  decisions: readonly Decision[],
): string {
  const { facts } = input;
  const parts = [
    `Continue session ${input.sessionId ?? '(unknown)'} in ${input.cwd}${facts.git?.branch ? ` on branch ${facts.git.branch}` : ''}.`,
    `The task: ${flat(task, 800)}`,
  ];
  if (completed.length > 0) parts.push(`Already done: ${completed.slice(0, 5).join('; ')}.`);
  if (decisions.length > 0)
    parts.push(
      `Keep what was decided: ${decisions
        .slice(-RESUME_DECISIONS)
        .map((decision) => quote(decision.text, DECISION_CHARS))
        .join(' ')}`,
    );
  if (facts.constraints.length > 0)
    parts.push(`Follow the user's rules: ${facts.constraints.map((rule) => quote(rule, 400)).join(' ')}`);
  if (facts.ruledOut.length > 0)
    parts.push(`Do not retry what the user ruled out: ${facts.ruledOut.map((rule) => quote(rule, 400)).join(' ')}`);
  const first = steps[0] ?? 'Ask the user what to do next.';
  parts.push(`Start with: ${/[.!?”]$/.test(first) ? first : `${first}.`}`);
  parts.push(
    'docs/handoff-context.md lists the files touched, the commands and the open questions; re-read a file before editing it.',
  );
  return flat(parts.join(' '), RESUME_CHARS);
}

export function offlineNarrative(input: OfflineNarrativeInput): HandoffNarrative {
  const { main, facts } = input;
  const prompts = main.prompts.filter((prompt) => !INTERRUPTED.test(prompt.text));
  const replies = main.replies;
  const task = taskOf(prompts);
  const completed = completedTasks(main.calls, facts);
  const steps = nextSteps(prompts, replies, main.calls, facts);
  const { decisions } = readOutcomes(prompts, replies, main.calls);
  return {
    task,
    completedTasks: completed,
    currentState: currentState(prompts, replies, facts, main, decisions),
    issues: issues(main.calls, facts),
    openQuestions: openQuestions(prompts, replies, facts),
    nextSteps: steps,
    resumePrompt: resumePrompt(input, task, completed, steps, decisions),
  };
}
