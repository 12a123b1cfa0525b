/**
 * Scores a session memory, compaction summary or handoff against a session's known facts
 * (docs/fidelity.md). Recall: of the facts the session holds, how many the text states. Precision:
 * of the facts the text states in its sections (files listed, errors listed, rules listed, open
 * todos, decisions), how many the transcript supports. Matching is textual, after folding case,
 * quotes, backticks and whitespace.
 */

import { type Manifest, manifest } from './fixtures.js';
import type { FileStatus, SeededSession } from './seeded-facts.js';

export const KINDS = ['files', 'errors', 'todos', 'rules', 'decisions'] as const;
export type Kind = (typeof KINDS)[number];

export interface FactTruth {
  cwd: string;
  /** Changed in the session; a null status is not checked (the fixtures' manifests do not say). */
  changed: { path: string; status: FileStatus | null }[];
  /** Every file the session read or changed: listing one of these as read is supported. */
  touched: string[];
  /** The commands the session ran: a file one of them names is supported as read (`cat`, a log's path). */
  commands: string[];
  /** Key lines of failures. */
  errors: string[];
  /** Open todos at the end; done ones stated as open are unsupported. */
  todos: string[];
  rules: string[];
  /** Prompts that do correct the assistant (rules included): a "correction" quoting one is supported. */
  corrections: string[];
  decisions: { text: string; key: string[] }[];
}

export interface KindScore {
  /** Facts of this kind the session holds, and how many of them the text states. */
  seeded: number;
  found: number;
  /** Statements of this kind in the text's sections, and how many the transcript supports. */
  stated: number;
  supported: number;
  missed: string[];
  unsupported: string[];
}

export type Score = Record<Kind, KindScore>;

/** Folds what a summary may change without changing the fact: case, quotes, backticks, spaces, an end stop. */
export const fold = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[`*“”"‘]/g, '')
    .replace(/’/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '')
    .trim();

/** How much of a long key line must appear: summaries clip long lines. */
const KEY_CHARS = 60;
const SECTION_KINDS: [RegExp, Kind][] = [
  [/\bfiles?\b/i, 'files'],
  [/\berrors?\b|\bissues?\b/i, 'errors'],
  [/\bconstraints?\b|\brules?\b/i, 'rules'],
  [/\bdecisions?\b/i, 'decisions'],
];
const HEADING = /^(?:#{1,3} (.+)|\d{1,2}\. ([^:]+):)\s*$/;
/** A line that says the file was changed, not only read. */
const CHANGE_WORD =
  /\b(?:edit|edited|modified|created|written|wrote|write|changed|untracked|added|new|updated|deleted)\b/i;
const CREATED_WORD = /\b(?:created|new|written|wrote|write|untracked|added)\b/i;
const MODIFIED_WORD = /\b(?:edit|edited|modified|changed|updated)\b|\bM\b/i;
/** An open todo as the summaries write it: `[pending] #3 Item`, `[ ] Item (pending)`, `Pending: Item`. */
const OPEN_TODO = /^(?:\[(?:pending|in_progress)\]|\[ \]|(?:pending|in progress|to ?do)\s*:)\s*(?:#\d+\s+)?(.*)$/i;
const DECISION_LINE = /^(?:decision|decided|we decided|chose)\b\s*:?\s*(.*)$/i;
const CORRECTION_LINE = /^(?:user )?correction\s*:?\s*(.*)$/i;
const NONE_LINE = /^(?:none|nothing|no files|ask the user)/i;

interface Section {
  title: string;
  kind: Kind | null;
  /** Top-level items: the statements of the section's kind. */
  items: string[];
  /** Every item, nested ones too (a todo list under a "Todo list:" item). */
  all: string[];
}

/** The text's sections and their top-level items (bullets, numbered steps, table rows). */
export function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  let indent = Infinity;
  for (const line of text.split('\n')) {
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const title = (heading[1] ?? heading[2] ?? '').trim();
      sections.push({
        title,
        kind: SECTION_KINDS.find(([pattern]) => pattern.test(title))?.[1] ?? null,
        items: [],
        all: [],
      });
      indent = Infinity;
      continue;
    }
    const item = /^(\s*)(?:[-*] |\| (?!Path |---))(.*)$/.exec(line);
    const section = sections.at(-1);
    if (item === null || section === undefined) continue;
    const depth = (item[1] ?? '').length;
    const body = (item[2] ?? '').trim();
    if (body === '' || NONE_LINE.test(body)) continue;
    section.all.push(body);
    if (depth > indent) continue; // a detail under an item, not a statement of its own
    indent = depth;
    section.items.push(body);
  }
  return sections;
}

const relativeTo = (cwd: string, path: string) => (path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path);

/** The path an item names: a backticked one, a table cell, or a leading path. */
function pathIn(item: string): string | null {
  const candidates = [
    ...item.matchAll(
      /`([^`\s]+)`|(?:^|\s|\|\s*)((?:\/|\.{0,2}[\w.-]+\/)[\w./-]*\.\w+|[\w.-]+\.\w{1,5})(?=[:\s|,;]|$)/g,
    ),
  ]
    .map((match) => match[1] ?? match[2] ?? '')
    .filter((path) => /[/.]\w/.test(path) && !/^\d/.test(path) && !/[*?{]/.test(path)); // a glob names no file
  return candidates[0] ?? null;
}

const samePath = (cwd: string, a: string, b: string) => relativeTo(cwd, a) === relativeTo(cwd, b);
const includesFolded = (haystack: string, needle: string) => fold(haystack).includes(fold(needle).slice(0, KEY_CHARS));

function empty(): KindScore {
  return { seeded: 0, found: 0, stated: 0, supported: 0, missed: [], unsupported: [] };
}

function recall(score: KindScore, facts: readonly string[], isFound: (fact: string) => boolean): void {
  for (const fact of facts) {
    score.seeded++;
    if (isFound(fact)) score.found++;
    else score.missed.push(fact);
  }
}

function judge(score: KindScore, item: string, supported: boolean): void {
  score.stated++;
  if (supported) score.supported++;
  else score.unsupported.push(item);
}

/** Recall and precision per kind of `text` against `truth`. */
export function scoreText(text: string, truth: FactTruth): Score {
  const score: Score = { files: empty(), errors: empty(), todos: empty(), rules: empty(), decisions: empty() };
  const sections = sectionsOf(text);
  const items = (kind: Kind) => sections.filter((section) => section.kind === kind).flatMap((section) => section.items);
  const fileItems = items('files');
  const { cwd } = truth;

  for (const file of truth.changed) {
    const line = fileItems.find((item) => {
      const path = pathIn(item);
      return path !== null && samePath(cwd, path, file.path);
    });
    const statusOk =
      line !== undefined &&
      (file.status === null
        ? CHANGE_WORD.test(line)
        : (file.status === 'created' ? CREATED_WORD : MODIFIED_WORD).test(line));
    score.files.seeded++;
    if (statusOk) score.files.found++;
    else score.files.missed.push(`${relativeTo(cwd, file.path)} (${file.status ?? 'changed'})`);
  }
  for (const item of fileItems) {
    const path = pathIn(item);
    if (path === null) continue;
    const claimsChange = CHANGE_WORD.test(item.replace(path, ''));
    const ok = claimsChange
      ? truth.changed.some((file) => samePath(cwd, file.path, path))
      : truth.touched.some((file) => samePath(cwd, file, path)) ||
        truth.commands.some((command) => command.includes(relativeTo(cwd, path)));
    judge(score.files, item, ok);
  }

  recall(score.errors, truth.errors, (key) => includesFolded(text, key));
  for (const item of items('errors')) {
    const correction = CORRECTION_LINE.exec(item)?.[1];
    const ok =
      correction !== undefined
        ? truth.corrections.some((prompt) => fold(prompt).includes(fold(correction).slice(0, KEY_CHARS)))
        : truth.errors.some((key) => includesFolded(item, key));
    judge(score.errors, item, ok);
  }

  recall(score.todos, truth.todos, (todo) => includesFolded(text, todo));
  for (const section of sections) {
    for (const item of section.all) {
      const open = OPEN_TODO.exec(item)?.[1];
      if (open === undefined || open.trim() === '') continue;
      judge(
        score.todos,
        item,
        truth.todos.some((todo) => fold(open).startsWith(fold(todo).slice(0, KEY_CHARS))),
      );
    }
  }

  // Where the text has a rules section (the handoff's Constraints), a rule counts only there.
  const ruleItems = items('rules');
  const ruleText = fold(ruleItems.length > 0 ? ruleItems.join('\n') : text);
  recall(score.rules, truth.rules, (rule) => ruleText.includes(fold(rule)));
  for (const item of ruleItems) {
    if (/:$/.test(item)) continue;
    // A rule, or a sentence of a prompt that corrects (the user's own words, though not a listed rule).
    const ok =
      truth.rules.some((rule) => fold(item).includes(fold(rule)) || fold(rule).includes(fold(item))) ||
      truth.corrections.some((prompt) => fold(prompt).includes(fold(item)));
    judge(score.rules, item, ok);
  }

  for (const decision of truth.decisions) {
    score.decisions.seeded++;
    if (decision.key.every((key) => fold(text).includes(fold(key)))) score.decisions.found++;
    else score.decisions.missed.push(decision.text);
  }
  for (const section of sections) {
    for (const item of section.items) {
      const stated = section.kind === 'decisions' ? item : DECISION_LINE.exec(item)?.[1];
      if (stated === undefined) continue;
      judge(
        score.decisions,
        item,
        truth.decisions.some((decision) => decision.key.every((key) => fold(stated).includes(fold(key)))),
      );
    }
  }
  return score;
}

/** A seeded session's truth in the matcher's terms. */
export function seededTruth(session: SeededSession): FactTruth {
  const { truth } = session;
  return {
    cwd: truth.cwd,
    changed: truth.changed,
    touched: [...truth.changed.map((file) => file.path), ...truth.read],
    commands: [],
    errors: truth.errors.map((error) => error.keyLine),
    todos: truth.todos,
    rules: truth.rules,
    corrections: truth.prompts.filter((prompt) => truth.rules.some((rule) => prompt.includes(rule))),
    decisions: truth.decisions,
  };
}

/** The parts of a fixture's manifest.json that hold its facts (fixtures.ts types only the common ones). */
interface FactsManifest extends Manifest {
  commands: { command: string }[];
  errors: { message: string }[];
  todos: { content: string; status: string }[] | null;
  tasks: { subject: string; status: string }[] | null;
  taskChanges: { text: string }[];
  prompts: { text: string }[];
}

/**
 * A later prompt that asks for a file the session wrote to be done another way ("Make docs/flags.md
 * a table instead of a list."): the user telling the agent to do something differently, which the
 * source document's Errors & Corrections asks to keep. The manifests list only constraints and
 * changes of task, so this is read from the prompt: "instead" and a file the session changed.
 */
function redoesOwnWork(prompt: string, changed: readonly string[]): boolean {
  return /\binstead\b/i.test(prompt) && changed.some((path) => prompt.includes(path.split('/').slice(-2).join('/')));
}

/** A recorded fixture's truth, from its manifest (written when it was recorded). */
export function fixtureTruth(scenario: string): FactTruth {
  const found = manifest(scenario) as FactsManifest;
  const changed = [...new Set([...found.files.edited, ...found.files.written])];
  const rules = found.constraints.map((constraint) => constraint.text);
  const open = (status: string) => status !== 'completed';
  return {
    cwd: found.cwd,
    changed: changed.map((path) => ({ path, status: null })),
    touched: [...new Set([...found.files.read, ...changed])],
    commands: found.commands.map((command) => command.command),
    errors: found.errors.map((error) => error.message),
    todos: [
      ...(found.todos ?? []).filter((todo) => open(todo.status)).map((todo) => todo.content),
      ...(found.tasks ?? []).filter((task) => open(task.status)).map((task) => task.subject),
    ],
    rules,
    corrections: found.prompts
      .map((prompt) => prompt.text)
      .filter(
        (text, at) =>
          [...rules, ...found.taskChanges.map((change) => change.text)].some((fact) => text.includes(fact)) ||
          (at > 0 && redoesOwnWork(text, changed)),
      ),
    decisions: [],
  };
}

/** Sums scores per kind. */
export function addScores(scores: readonly Score[]): Score {
  const total: Score = { files: empty(), errors: empty(), todos: empty(), rules: empty(), decisions: empty() };
  for (const score of scores) {
    for (const kind of KINDS) {
      const into = total[kind];
      const from = score[kind];
      into.seeded += from.seeded;
      into.found += from.found;
      into.stated += from.stated;
      into.supported += from.supported;
      into.missed.push(...from.missed);
      into.unsupported.push(...from.unsupported);
    }
  }
  return total;
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '   n/a' : `${((100 * part) / whole).toFixed(1).padStart(5)}%`;

/** The table the fidelity test and `npm run bench -- fidelity` print: one row per kind. */
export function scoreTable(title: string, score: Score): string {
  const rows = KINDS.map((kind) => {
    const { seeded, found, stated, supported } = score[kind];
    return `  ${kind.padEnd(10)} recall ${percent(found, seeded)} (${found}/${seeded})  precision ${percent(supported, stated)} (${supported}/${stated})`;
  });
  return [title, ...rows].join('\n');
}
