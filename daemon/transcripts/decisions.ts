/**
 * Decisions and outcomes a transcript supports, for both offline summarizers (issue 32): what a
 * planning session leaves behind is what was decided, not which tools ran. Read here:
 * - the user's choices and approvals, in a prompt that answers an assistant's proposal;
 * - the assistant's stated decisions ("we'll go with", "decided") and recommendations, with the
 *   reason it gave;
 * - the latest plan: a list the assistant introduced as its plan or steps, a plan file it wrote,
 *   or plan mode's ExitPlanMode;
 * - the last result of each check (tests, builds, type checks, linters), passed or failed.
 * Every text is the transcript's own, clipped; nothing is paraphrased. Pure.
 */

import { readableUserText } from '../../shared/transcript/user-text.js';
import { type Call, errorKeyLine, filePath, inputString, LINE_CHARS, oneLine, type Said } from './facts.js';
import { proseOf } from './line-shapes.js';

/** Decisions kept, newest: a long session's early choices are in the memory of its earlier part. */
const DECISIONS_MAX = 12;
/** A plan's steps listed; a longer plan is in the file or reply it came from. */
const PLAN_STEPS_MAX = 15;
/** A quoted decision keeps its wording: longer than a command line, shorter than a request. */
const DECISION_CHARS = 300;

/** A reply that offers something to choose or approve: a question, options, a plan, a recommendation. */
const PROPOSAL = /\?|\b(?:plan|options?|approach|recommend|suggest|propose|alternatively|prefer|either)\b/i;
/**
 * A user's sentence that picks among what was offered; a bare "use" or "skip" only as its first
 * word ("Use zod.", "Skip the migration."): inside a request ("make the parser skip empty lines")
 * it is what the code should do, not a choice.
 */
const USER_CHOICE =
  /\b(?:go(?:ing)? with|let['’]?s (?:use|go|do|pick|take|keep|skip)|pick|choose|prefer|stick with|switch to|option [A-Z0-9]\b)\b|^(?:(?:ok(?:ay)?|yes|no|sure),?\s+)?(?:use|skip)\b/i;
/** A user's sentence that approves what was offered. */
const USER_APPROVAL =
  /^(?:yes|yep|yeah|ok(?:ay)?|sure|sounds good|looks good|lgtm|approved?|go ahead|do it|proceed|agreed|perfect|ship it)\b|\b(?:(?:plan|that|this) (?:looks|sounds|is) (?:good|fine|right)|approve[ds]?|go ahead)\b/i;
/** A standing rule, not a choice (the rules list quotes those). */
const RULE_START = /^(?:never|always|don['’]t|do not|must not)\b/i;
/** An assistant's sentence that states what it (or we) decided. */
// `Decision:` stands apart: no word boundary follows its colon.
const ASSISTANT_DECISION =
  /\b(?:(?:I|we)(?:['’]ve| have)? decided|decided to|(?:I|we)['’]ll go with|(?:I['’]m|we['’]re) going with|we['’]ll use|I['’]ll use (?!(?:the )?(?:Grep|Glob|Read|Bash|Edit|Write|TodoWrite|WebFetch|WebSearch|Task|Agent)\b)|settled on|(?:I|we) chose)\b|\bdecision(?: is)?:/i;
const RECOMMENDATION = /\b(?:I|I['’]d|we|we['’]d) (?:recommend|suggest)\b|\bmy recommendation\b/i;
const REASON = /\b(?:because|since|so that|as it|which means|due to)\b/i;
/** The thing a choice names: "go with zod", "use `joi`". */
const CHOSEN = /\b(?:go(?:ing)? with|use|pick|choose|prefer|stick with|switch to|recommend)\s+[`'"*]*([\w.@/-]+)/i;
/** The line that introduces a list as a plan. */
const PLAN_INTRO =
  /\b(?:plan|steps?|roadmap|approach|here['’]s what I['’]ll do|I['’]ll do the following|implementation order)\b/i;
const LIST_ITEM = /^\s*(?:\d+[.)]|[-*+])\s+(.+)$/;
/** A file that holds a plan: PLAN.md, docs/plan.md, migration-plan.txt. */
const PLAN_FILE = /plan[^/]*\.(?:md|txt)$/i;
/** A command that checks the work: its last result is an outcome. */
const CHECK =
  /\b(?:test|tests|pytest|unittest|jest|vitest|mocha|spec|tsc|typecheck|lint|eslint|biome|ruff|mypy|clippy|build|check|vet)\b/;
const PASS_LINE = /\bpass(?:ed|es|ing)?\b|^OK\b|✓|^ok\b|\bRan \d+ tests?\b|\b0 errors?\b|\bno (?:errors|issues)\b/i;

export interface Decision {
  at: number;
  who: 'user' | 'assistant';
  /** The sentence, verbatim on one line. */
  text: string;
  /** The assistant's sentence giving the reason for what the user chose or approved, when there is one. */
  reason: string | null;
}

export interface Plan {
  at: number;
  /** Where it stands: "a reply", "plan mode (approved)", or the plan file's path. */
  source: string;
  steps: string[];
  /** Steps past PLAN_STEPS_MAX, not listed. */
  more: number;
}

export interface Check {
  at: number;
  command: string;
  passed: boolean;
  /** The line that says so: the last passing line, or the failure's key line. */
  line: string;
}

export interface Outcomes {
  decisions: Decision[];
  plan: Plan | null;
  checks: Check[];
}

function sentences(text: string): string[] {
  return proseOf(text)
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`"'*])/)
    .map((sentence) => sentence.replace(/^\s*(?:\d+[.)]|[-*+])\s+/, '').trim())
    .filter((sentence) => sentence !== '');
}

/**
 * The reply's sentence that says why the chosen thing was proposed: one that names it and gives a
 * reason; for a bare approval, the recommendation it approves.
 */
function reasonFor(choice: string, reply: Said): string | null {
  const name = CHOSEN.exec(choice)?.[1]
    ?.replace(/[`'"*.,;:!?]+$/, '')
    .toLowerCase();
  const said = sentences(reply.text).filter((sentence) => REASON.test(sentence));
  const found =
    name !== undefined
      ? said.find((sentence) => sentence.toLowerCase().includes(name))
      : USER_CHOICE.test(choice)
        ? undefined
        : said.find((sentence) => RECOMMENDATION.test(sentence));
  return found === undefined ? null : oneLine(found, DECISION_CHARS);
}

function userDecisions(prompts: readonly Said[], replies: readonly Said[]): Decision[] {
  const found: Decision[] = [];
  for (const prompt of prompts) {
    const before = replies.findLast((reply) => reply.at < prompt.at);
    // A first request or a prompt that answers no proposal decides nothing: it asks.
    if (before === undefined || !PROPOSAL.test(before.text)) continue;
    for (const sentence of sentences(readableUserText(prompt.text).typed)) {
      if (RULE_START.test(sentence) || !(USER_CHOICE.test(sentence) || USER_APPROVAL.test(sentence))) continue;
      found.push({
        at: prompt.at,
        who: 'user',
        text: oneLine(sentence, DECISION_CHARS),
        reason: reasonFor(sentence, before),
      });
    }
  }
  return found;
}

function assistantDecisions(replies: readonly Said[]): Decision[] {
  // A recommendation alone decides nothing: the user's choice that answers it quotes it as its reason.
  return replies.flatMap((reply) =>
    sentences(reply.text)
      .filter((sentence) => ASSISTANT_DECISION.test(sentence))
      .map((sentence) => ({
        at: reply.at,
        who: 'assistant' as const,
        text: oneLine(sentence, DECISION_CHARS),
        reason: null,
      })),
  );
}

function listSteps(text: string, introduced: boolean): string[] {
  const lines = text.split('\n');
  let best: string[] = [];
  let index = 0;
  while (index < lines.length) {
    if (!LIST_ITEM.test(lines[index] ?? '')) {
      index++;
      continue;
    }
    const intro = lines
      .slice(0, index)
      .findLast((line) => line.trim() !== '')
      ?.trim();
    const items: string[] = [];
    // One list: its items and their indented or blank continuation lines; nested items are part of their step.
    const indent = /^\s*/.exec(lines[index] ?? '')?.[0].length ?? 0;
    for (; index < lines.length; index++) {
      const line = lines[index] ?? '';
      const item = LIST_ITEM.exec(line);
      const depth = /^\s*/.exec(line)?.[0].length ?? 0;
      if (item !== null && depth === indent) items.push(item[1] ?? '');
      else if (line.trim() !== '' && depth <= indent) break;
    }
    if (items.length >= 2 && (introduced || (intro !== undefined && PLAN_INTRO.test(intro)))) best = items;
  }
  return best.map((step) => oneLine(step, LINE_CHARS));
}

function plansOf(replies: readonly Said[], calls: readonly Call[]): Plan[] {
  const plans: { at: number; source: string; steps: string[] }[] = [];
  for (const reply of replies) plans.push({ at: reply.at, source: 'a reply', steps: listSteps(reply.text, false) });
  for (const call of calls) {
    if (call.result?.failed === true && call.name !== 'ExitPlanMode') continue;
    const plan = call.name === 'ExitPlanMode' ? inputString(call, 'plan') : null;
    if (plan !== null) {
      const verdict = call.result === null ? 'awaiting approval' : call.result.failed ? 'not approved' : 'approved';
      plans.push({ at: call.at, source: `plan mode (${verdict})`, steps: listSteps(plan, true) });
    }
    const path = call.name === 'Write' ? filePath(call) : null;
    const content = inputString(call, 'content');
    if (path !== null && content !== null && PLAN_FILE.test(path))
      plans.push({ at: call.at, source: path, steps: listSteps(content, true) });
  }
  return plans
    .filter((plan) => plan.steps.length >= 2)
    .map((plan) => ({
      ...plan,
      steps: plan.steps.slice(0, PLAN_STEPS_MAX),
      more: Math.max(0, plan.steps.length - PLAN_STEPS_MAX),
    }));
}

function checksOf(calls: readonly Call[]): Check[] {
  const last = new Map<string, Check>();
  for (const call of calls) {
    const command = call.name === 'Bash' ? inputString(call, 'command') : null;
    if (command === null || call.result === null || !CHECK.test(command)) continue;
    const output = call.result.text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const passLine = output.findLast((line) => PASS_LINE.test(line));
    // A command that printed nothing to show it checked anything (a `git checkout`) is no check.
    if (!call.result.failed && passLine === undefined) continue;
    const key = oneLine(command, LINE_CHARS);
    last.delete(key);
    last.set(key, {
      at: call.at,
      command: key,
      passed: !call.result.failed,
      line: call.result.failed ? errorKeyLine(call.result.text) : oneLine(passLine ?? '', LINE_CHARS),
    });
  }
  return [...last.values()];
}

/** The decisions, the latest plan and the checks' last results, in transcript order. */
export function readOutcomes(prompts: readonly Said[], replies: readonly Said[], calls: readonly Call[]): Outcomes {
  const decisions = [...userDecisions(prompts, replies), ...assistantDecisions(replies)]
    .sort((a, b) => a.at - b.at)
    .filter((decision, index, all) => all.findIndex((other) => other.text === decision.text) === index);
  return {
    decisions: decisions.slice(-DECISIONS_MAX),
    plan:
      plansOf(replies, calls)
        .sort((a, b) => a.at - b.at)
        .at(-1) ?? null,
    checks: checksOf(calls),
  };
}
