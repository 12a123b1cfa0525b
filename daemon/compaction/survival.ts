/**
 * The survival score of a compaction (issue 32, item 2): the session's facts before it (files
 * changed with their status, errors by their key line, the user's rules verbatim, open todos,
 * decisions the assistant stated) and which of them the text the model saw next still carries.
 * Pure. Facts are read from the transcript's tool calls and prompts (transcripts/facts.ts) by
 * rules of this file's own, so that the matching does not move when the summarizers' extractors
 * change; docs/survival.md says how facts are found and matched, and the blind spots.
 */
import { INTERRUPTED } from '../../shared/handoff/prompts.js';
import { userRules } from '../../shared/handoff/rules.js';
import type { Survival, SurvivalItem, SurvivalKind } from '../../shared/protocol/compaction.js';
import {
  type Call,
  didWork,
  ELLIPSIS,
  errorKeyLine,
  FILE_TOOLS,
  filePath,
  inputString,
  openTasks,
  type TranscriptFacts,
} from '../transcripts/facts.js';

/** Items listed in a result: a long session has hundreds of facts; the counts cover them all. */
export const MAX_SURVIVAL_ITEMS = 200;
/** Decisions taken from the assistant's text, the newest: older ones were usually superseded. */
export const MAX_DECISIONS = 20;
/** A decision is one sentence; a longer one is a paragraph that happens to contain the word. */
const MAX_DECISION_CHARS = 300;
/**
 * Share of a fact's words that one window of the text must hold for the fact to count as kept.
 * Rules are quoted by good summaries, so the bar is high; todos and error lines are often
 * shortened; decisions are paraphrased most.
 */
export const OVERLAP: Record<Exclude<SurvivalKind, 'file'>, number> = {
  rule: 0.8,
  error: 0.7,
  todo: 0.7,
  decision: 0.6,
};
/** Lines a window spans: a fact is one bullet, sometimes wrapped onto the next lines. */
const WINDOW_LINES = 3;
/** Words shorter than this carry no meaning of their own ("a", "to", "is"). */
const MIN_WORD = 3;
/** Common words that would let unrelated lines match. */
const STOPWORDS = new Set(
  'the and for with that this from into not are was were has have had but you your our its all any can will use'.split(
    ' ',
  ),
);
/** Sentences where the assistant states what it chose (the plan, a library, an approach). */
const DECISION =
  /\b(?:decided|decision|chose|choosing|going with|settled on|(?:we|i)(?:['’]ll| will) use|instead of|the plan is)\b/i;
const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z"'`([])|\n+/;

export interface SessionFact {
  kind: SurvivalKind;
  text: string;
  /** Files: the strings any one of which names the file (absolute, cwd-relative, unique basename). */
  names?: string[];
}

/** Lowercase words, quotes and markdown aside: what paraphrase-tolerant matching compares. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_][\p{L}\p{N}_.\-/]*/gu) ?? [])
    .map((word) => word.replace(/[.\-/]+$/, ''))
    .filter((word) => word.length >= MIN_WORD && !STOPWORDS.has(word));
}

const normalized = (text: string) =>
  text
    .toLowerCase()
    .replace(/[`*_"“”'‘’]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

function relative(path: string, cwd: string | null): string {
  if (cwd === null) return path;
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(root) ? path.slice(root.length) : path;
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Files changed by the main agent's or a sub-agent's file tools, with the first change's kind. */
function changedFiles(all: readonly TranscriptFacts[], cwd: string | null): SessionFact[] {
  const files = new Map<string, 'created' | 'modified'>();
  for (const call of all.flatMap((facts) => facts.calls)) {
    const action = FILE_TOOLS[call.name];
    const path = filePath(call);
    if (action === undefined || action === 'read' || path === null || !didWork(call) || files.has(path)) continue;
    const meta = call.result?.meta as { type?: unknown } | null | undefined;
    files.set(path, action === 'written' && meta?.type === 'create' ? 'created' : 'modified');
  }
  const counts = new Map<string, number>();
  for (const path of files.keys()) counts.set(basename(path), (counts.get(basename(path)) ?? 0) + 1);
  return [...files].map(([path, status]) => {
    const names = new Set([path, relative(path, cwd)]);
    // A basename names the file only when no other changed file has it and it is not a bare word.
    if (counts.get(basename(path)) === 1 && basename(path).includes('.')) names.add(basename(path));
    return { kind: 'file' as const, text: `${relative(path, cwd)} (${status})`, names: [...names] };
  });
}

/** Each failed call's key line once; a later successful run of the same command or file marks it fixed. */
function errors(calls: readonly Call[]): SessionFact[] {
  const found = new Map<string, boolean>();
  const target = (call: Call) => inputString(call, 'command') ?? filePath(call) ?? null;
  calls.forEach((call, index) => {
    if (call.result === null || !call.result.failed || call.result.text.trim() === '') return;
    const key = errorKeyLine(call.result.text);
    const fixed = calls
      .slice(index + 1)
      .some((later) => later.name === call.name && target(later) === target(call) && didWork(later));
    found.set(key, (found.get(key) ?? false) || fixed);
  });
  return [...found].map(([key, fixed]) => ({ kind: 'error' as const, text: fixed ? `${key} (fixed)` : key }));
}

function decisions(facts: TranscriptFacts): SessionFact[] {
  const found = new Set<string>();
  for (const reply of facts.replies)
    for (const sentence of reply.text.split(SENTENCE_END).map((part) => part.trim()))
      if (sentence.length <= MAX_DECISION_CHARS && DECISION.test(sentence)) found.add(sentence);
  return [...found].slice(-MAX_DECISIONS).map((text) => ({ kind: 'decision' as const, text }));
}

/** The facts of a session's conversation: its main transcript's, and its sub-agents' file changes. */
export function sessionFacts(main: TranscriptFacts, sidechains: readonly TranscriptFacts[] = []): SessionFact[] {
  const prompts = main.prompts.map((prompt) => prompt.text).filter((text) => !INTERRUPTED.test(text));
  const rules = userRules(prompts);
  return [
    ...changedFiles([main, ...sidechains], main.cwd),
    ...errors(main.calls),
    ...[...rules.constraints, ...rules.ruledOut].map((text) => ({ kind: 'rule' as const, text })),
    ...openTasks(main.calls).map((task) => ({ kind: 'todo' as const, text: task.text })),
    ...decisions(main),
  ];
}

/** The text split into windows of WINDOW_LINES lines, each as a set of words. */
function windowsOf(text: string): Set<string>[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const windows: Set<string>[] = [];
  for (let start = 0; start < Math.max(1, lines.length - WINDOW_LINES + 1); start++)
    windows.push(new Set(words(lines.slice(start, start + WINDOW_LINES).join(' '))));
  return windows;
}

/** Whether a file name stands in the text on its own (not as part of a longer name). */
function namesFile(text: string, name: string): boolean {
  let from = text.indexOf(name);
  while (from !== -1) {
    const before = text[from - 1] ?? ' ';
    const after = text[from + name.length] ?? ' ';
    if (!/[\w./-]/.test(before) && !/[\w/-]/.test(after)) return true;
    from = text.indexOf(name, from + 1);
  }
  return false;
}

/** Which facts the text carries: verbatim (normalized), or enough of their words in one window. */
export function survivalOf(facts: readonly SessionFact[], text: string): Survival {
  const flat = normalized(text);
  const windows = windowsOf(text);
  const kept = (fact: SessionFact): boolean => {
    const kind = fact.kind;
    if (kind === 'file') return (fact.names ?? [fact.text]).some((name) => namesFile(text, name));
    // An error's key line joins verbatim pieces with an ellipsis: each piece must be there.
    const pieces = fact.text
      .replace(/ \(fixed\)$/, '')
      .split(ELLIPSIS)
      .map(normalized)
      .filter((piece) => piece !== '');
    if (pieces.length > 0 && pieces.every((piece) => flat.includes(piece))) return true;
    const wanted = new Set(words(fact.text.replace(/ \(fixed\)$/, '')));
    if (wanted.size === 0) return false;
    const share = (window: Set<string>) => [...wanted].filter((word) => window.has(word)).length / wanted.size;
    return windows.some((window) => share(window) >= OVERLAP[kind]);
  };
  const items: SurvivalItem[] = facts.map((fact) => ({ kind: fact.kind, text: fact.text, kept: kept(fact) }));
  const lost = items.filter((item) => !item.kept);
  return {
    kept: items.length - lost.length,
    lost: lost.length,
    items: [...lost, ...items.filter((item) => item.kept)].slice(0, MAX_SURVIVAL_ITEMS),
  };
}
