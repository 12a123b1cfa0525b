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
import type { LoadedEntry } from '../compact/content.js';
import { CONTINUATION_CLOSING, CONTINUATION_OPENING, RECENT_PRESERVED, SESSION_MEMORY_TEMPLATE, TRANSCRIPT_POINTER } from '../compact/session-memory.js';
import { SUMMARY_SECTIONS } from './compact-summary.js';
import { ELLIPSIS, errorKeyLine, fitUserMessages, isCommandPlumbing } from './offline-compact.js';

export const SESSION_SECTION_MAX_TOKENS = 2_000; // DESIGN.md §5: no one section crowds out the others
export const SESSION_MEMORY_MAX_TOKENS = 12_000; // DESIGN.md §5: the memory must leave room when it replaces the conversation
const CHARS_PER_TOKEN = 4; // estimateTokens' chars/4 (DESIGN.md §5), to turn token limits into lengths
const REQUEST_CHARS = 1_000; // the current request and user corrections: enough to keep their wording
const REPLY_CHARS = 1_500; // the last assistant text: what it said it did and what is next
const LINE_CHARS = 200; // commands, key lines, outcomes: one glance each
const TITLE_CHARS = 80; // the template asks for 5 to 10 words
const WORKLOG_PROMPT_CHARS = 100; // a worklog line names its turn; the request list holds the rest
const WORKLOG_SHORT_CHARS = 80; // what an old worklog line keeps when the memory is over budget
const MIN_WORKLOG_LINES = 5; // the latest turns stay while other sections give way
const NAMES_PER_FILE = 12; // declarations listed per file: the newest say what the file is now
const FACTS_LINE_CHARS = 1_000; // a codebase line lists directories or extensions; past this it is noise
const NONE = '- None yet.';

/** Sections by their place in SESSION_MEMORY_TEMPLATE. */
const [TITLE, CURRENT, TASK, FILES, WORKFLOW, ERRORS, CODEBASE, LEARNINGS, RESULTS, WORKLOG] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
const FILE_TOOLS: Record<string, 'read' | 'edited' | 'written'> = { Read: 'read', Edit: 'edited', MultiEdit: 'edited', NotebookEdit: 'edited', Write: 'written' };
const CORRECTION = /\b(?:no|don['’]t|do not|never|always|instead)\b/i;
const CHANGE_OF_MIND = /^\s*(?:actually\b|instead\b|no,|change of plan\b|scratch that\b|on second thought\b|forget (?:that|it)\b|never ?mind\b)/i;
const INTERRUPTED = /^\[Request interrupted by user/;
const EXIT_HEADER = /^(?:Error: )?Exit code (\d+)/;
const DECLARATION = /\b(?:function\s*\*?\s*|class\s+|def\s+|fn\s+|func\s+(?:\([^)]*\)\s*)?)([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/g;
const PASS_LINE = /\bpass(?:ed|es|ing)?\b|^OK\b|✓|^ok\b|\bRan \d+ tests?\b/i;
const GIT_COMMIT = /\bgit\s+(?:-\S+\s+)*commit\b/;
const TEST_COMMAND = /\b(?:test|tests|pytest|unittest|jest|vitest|mocha|spec)\b/;
const OMITTED = /^- \(\d+ older entr(?:y|ies) left out\)$/;
const BOILERPLATE = [CONTINUATION_OPENING, TRANSCRIPT_POINTER, RECENT_PRESERVED, CONTINUATION_CLOSING].map((text) => text.slice(0, 40));
/** Sections of a compaction summary (numbered from 1) and where their lines go; what was current then is labelled so. */
const FROM_COMPACTION: Record<number, { section: number; label?: string }> = {
  1: { section: TASK }, 2: { section: CODEBASE }, 3: { section: FILES }, 4: { section: ERRORS }, 5: { section: LEARNINGS }, 6: { section: TASK },
  7: { section: CURRENT, label: 'Pending at the last compaction' }, 8: { section: WORKLOG, label: 'Before the last compaction' },
};
/** A line's file or command, or its label ("Tools used:"). */
const SUBJECT = /^- (`[^`]+`|[^:`]+:)/;
/**
 * What makes two lines the same fact (the line itself where not listed): a request by its start
 * (older ones get shortened as the list grows), a turn by its prompt.
 */
const KEYS: Record<number, RegExp> = {
  [TASK]: /^- (?:First request|Then|Change of plan): ([^…]{1,40})/,
  [CURRENT]: /^- (Last request|Last assistant text):/,
  [FILES]: SUBJECT,
  [WORKFLOW]: SUBJECT,
  [CODEBASE]: SUBJECT,
  [RESULTS]: SUBJECT,
  [WORKLOG]: /^(.*?) — /,
};

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
}

interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  at: number;
  result: { failed: boolean; exit: number | null; text: string; meta: unknown } | null;
}

interface Turn {
  /** Null for the work before the first prompt (after a compaction, say). */
  prompt: string | null;
  at: number;
  calls: ToolCall[];
  replies: string[];
}

interface Session {
  turns: Turn[];
  /** Texts of compaction summaries, oldest first. */
  summaries: string[];
  cwd: string | null;
  branch: string | null;
}

interface TemplateSection {
  heading: string;
  description: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function textsOf(blocks: readonly Record<string, unknown>[]): string {
  return blocks.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n\n').trim();
}

/** A title from a request: its first sentence, cut at a word. */
function titleOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?[.?!](?=\s|$)/.exec(flat)?.[0] ?? flat;
  if (sentence.length <= TITLE_CHARS) return sentence;
  const cut = sentence.slice(0, TITLE_CHARS - 1);
  return `${cut.lastIndexOf(' ') > 0 ? cut.slice(0, cut.lastIndexOf(' ')) : oneLine(cut, TITLE_CHARS - 1)}${ELLIPSIS}`;
}

/** The text on one line (memory lines are list items), shortened to `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}${ELLIPSIS}`;
}

/** The exit code a result reports; a Bash result without Claude Code's failure header exited 0. */
function exitOf(isError: boolean, meta: unknown, text: string, tool: string): number | null {
  if (isRecord(meta) && typeof meta.exitCode === 'number') return meta.exitCode;
  const header = EXIT_HEADER.exec(text)?.[1];
  if (header !== undefined) return Number(header);
  return tool === 'Bash' && !isError ? 0 : null;
}

function readSession(loaded: readonly LoadedEntry[]): Session {
  const session: Session = { turns: [], summaries: [], cwd: null, branch: null };
  const calls = new Map<string, ToolCall>();
  const turnAt = (at: number): Turn => {
    const last = session.turns.at(-1);
    if (last !== undefined) return last;
    const started: Turn = { prompt: null, at, calls: [], replies: [] };
    session.turns.push(started);
    return started;
  };
  loaded.forEach(({ entry, raw }, at) => {
    session.cwd = entry.cwd ?? session.cwd;
    session.branch = entry.gitBranch ?? session.branch;
    const blocks = blocksOf(isRecord(raw.message) ? raw.message.content : undefined);
    if (entry.type === 'assistant') {
      for (const block of blocks) {
        if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') turnAt(at).replies.push(block.text.trim());
        if (block.type !== 'tool_use' || typeof block.id !== 'string' || typeof block.name !== 'string') continue;
        const call: ToolCall = { name: block.name, input: isRecord(block.input) ? block.input : {}, at, result: null };
        calls.set(block.id, call);
        turnAt(at).calls.push(call);
      }
      return;
    }
    if (entry.type !== 'user') return;
    if (entry.isCompactSummary) {
      session.summaries.push(textsOf(blocks));
      return;
    }
    for (const block of blocks) {
      const call = block.type === 'tool_result' && typeof block.tool_use_id === 'string' ? calls.get(block.tool_use_id) : undefined;
      if (call === undefined) continue;
      const text = typeof block.content === 'string' ? block.content : textsOf(blocksOf(block.content));
      const exit = exitOf(block.is_error === true, raw.toolUseResult, text, call.name);
      call.result = { failed: block.is_error === true || (exit !== null && exit !== 0), exit, text, meta: raw.toolUseResult };
    }
    const prompt = textsOf(blocks.filter((block) => block.type === 'text'));
    if (entry.isMeta || prompt === '' || isCommandPlumbing(prompt) || INTERRUPTED.test(prompt)) return;
    session.turns.push({ prompt, at, calls: [], replies: [] });
  });
  return session;
}

const str = (call: ToolCall, field: string) => (typeof call.input[field] === 'string' ? (call.input[field] as string) : null);
const pathOf = (call: ToolCall) => str(call, 'file_path') ?? str(call, 'notebook_path');
const targetOf = (call: ToolCall) => str(call, 'command') ?? pathOf(call) ?? str(call, 'pattern') ?? JSON.stringify(call.input);
const didWork = (call: ToolCall) => call.result === null || !call.result.failed;

/** The open items of the latest TodoWrite list and of the TaskCreate/TaskUpdate tasks. */
function openTasks(calls: readonly ToolCall[]): { status: string; text: string }[] {
  let todos: { status: string; text: string }[] = [];
  const tasks = new Map<string, { status: string; text: string }>();
  for (const call of calls.filter(didWork)) {
    if (call.name === 'TodoWrite' && Array.isArray(call.input.todos)) {
      todos = call.input.todos.filter(isRecord).flatMap((todo) => (typeof todo.status === 'string' && typeof todo.content === 'string' ? [{ status: todo.status, text: todo.content }] : []));
    }
    const meta = call.name === 'TaskCreate' ? call.result?.meta : null;
    if (isRecord(meta) && isRecord(meta.task) && typeof meta.task.id === 'string') tasks.set(meta.task.id, { status: 'pending', text: str(call, 'subject') ?? '' });
    const task = call.name === 'TaskUpdate' ? tasks.get(str(call, 'taskId') ?? '') : undefined;
    if (task !== undefined) task.status = str(call, 'status') ?? task.status;
  }
  return [...todos, ...tasks.values()].filter((task) => task.status === 'pending' || task.status === 'in_progress');
}

function currentState(session: Session, calls: readonly ToolCall[]): string[] {
  const prompt = session.turns.findLast((turn) => turn.prompt !== null)?.prompt;
  const reply = session.turns.flatMap((turn) => turn.replies).at(-1);
  const lines: string[] = [];
  if (prompt != null) lines.push(`- Last request: ${oneLine(prompt, REQUEST_CHARS)}`);
  if (reply !== undefined) lines.push(`- Last assistant text: ${oneLine(reply, REPLY_CHARS)}`);
  for (const task of openTasks(calls)) lines.push(`- ${task.status === 'in_progress' ? 'In progress' : 'Pending'}: ${oneLine(task.text, LINE_CHARS)}`);
  return lines;
}

/** The requests in order; the first is the original one unless an earlier part of the session is carried. */
function taskSpecification(prompts: readonly string[], continued: boolean): string[] {
  const [first, ...later] = continued ? ['', ...prompts] : prompts;
  if (first === undefined) return [];
  // The newest requests stay whole; older ones shrink first (the section trimmer drops them last).
  const fitted = fitUserMessages(later.map((prompt) => oneLine(prompt, REQUEST_CHARS)), SESSION_SECTION_MAX_TOKENS * 2);
  return [...(continued ? [] : [`- First request: ${oneLine(first, REQUEST_CHARS)}`]), ...fitted.map((prompt) => `- ${CHANGE_OF_MIND.test(prompt) ? 'Change of plan' : 'Then'}: ${prompt}`)];
}

function declarations(code: string): string[] {
  return [...code.matchAll(DECLARATION)].map((match) => match[1] ?? match[2] ?? '').filter((name) => name !== '');
}

function filesAndFunctions(calls: readonly ToolCall[]): string[] {
  const files = new Map<string, { actions: Set<string>; names: Set<string> }>();
  const searches = new Set<string>();
  for (const call of calls.filter(didWork)) {
    if ((call.name === 'Grep' || call.name === 'Glob') && str(call, 'pattern') !== null) searches.add(`${call.name} \`${oneLine(`${str(call, 'pattern')}`, LINE_CHARS)}\`${str(call, 'path') === null ? '' : ` in ${str(call, 'path')}`}`);
    const action = FILE_TOOLS[call.name];
    const path = pathOf(call);
    if (action === undefined || path === null) continue;
    const file = files.get(path) ?? { actions: new Set<string>(), names: new Set<string>() };
    files.set(path, file);
    file.actions.add(action);
    const edits = Array.isArray(call.input.edits) ? call.input.edits.filter(isRecord) : [call.input];
    const code = edits.map((edit) => [edit.new_string, edit.new_source, edit.content].filter((part) => typeof part === 'string').join('\n')).join('\n');
    // A name declared again moves to the end: the newest declarations are the ones listed.
    for (const name of declarations(code)) {
      file.names.delete(name);
      file.names.add(name);
    }
  }
  const order = ['written', 'edited', 'read'];
  const lines = [...files].map(([path, file]) => {
    const actions = order.filter((action) => file.actions.has(action)).join(', ');
    const names = [...file.names].slice(-NAMES_PER_FILE).map((name) => `\`${name}\``);
    return `- \`${path}\` — ${actions}${names.length === 0 ? '' : `; defines ${names.join(', ')}`}`;
  });
  if (searches.size > 0) lines.push(`- Searches: ${[...searches].join(', ')}`);
  return lines;
}

const statusOf = (call: ToolCall) =>
  call.result === null ? 'no result yet' : call.result.exit !== null ? `exit ${call.result.exit}` : call.result.failed ? 'failed' : 'done';

/** Statuses in order, repeats counted: "exit 1 ×2, then exit 0". */
function runLengths(statuses: readonly string[]): string {
  const groups: { status: string; count: number }[] = [];
  for (const status of statuses) {
    const last = groups.at(-1);
    if (last?.status === status) last.count++;
    else groups.push({ status, count: 1 });
  }
  return groups.map((group) => (group.count === 1 ? group.status : `${group.status} ×${group.count}`)).join(', then ');
}

function workflow(calls: readonly ToolCall[]): string[] {
  const commands = new Map<string, string[]>();
  const tools = new Map<string, number>();
  for (const call of calls) {
    tools.set(call.name, (tools.get(call.name) ?? 0) + 1);
    const command = call.name === 'Bash' ? str(call, 'command') : null;
    const key = command === null ? null : oneLine(command, LINE_CHARS);
    if (key !== null) commands.set(key, [...(commands.get(key) ?? []), statusOf(call)]);
  }
  const lines = [...commands].map(([command, runs]) => `- \`${command}\` — ${runs.length === 1 ? (runs[0] as string) : `ran ${runs.length}×: ${runLengths(runs)}`}`);
  if (tools.size > 0) lines.push(`- Tools used: ${[...tools].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ')}`);
  return lines;
}

function errorsAndCorrections(session: Session, calls: readonly ToolCall[]): string[] {
  const found: { at: number; line: string }[] = [];
  for (const call of calls) {
    if (call.result === null || !call.result.failed) continue;
    const exit = call.result.exit === null ? '' : ` (exit ${call.result.exit})`;
    found.push({ at: call.at, line: `- ${call.name} \`${oneLine(targetOf(call), LINE_CHARS)}\` failed${exit}: ${errorKeyLine(call.result.text)}` });
  }
  for (const turn of session.turns) {
    if (turn.prompt !== null && CORRECTION.test(turn.prompt)) found.push({ at: turn.at, line: `- User correction: "${oneLine(turn.prompt, REQUEST_CHARS)}"` });
  }
  return found.sort((a, b) => a.at - b.at).map((item) => item.line);
}

function codebase(session: Session, calls: readonly ToolCall[]): string[] {
  const root = session.cwd === null ? null : `${session.cwd.replace(/\/$/, '')}/`;
  const directories = new Map<string, Set<string>>();
  const extensions = new Map<string, Set<string>>();
  for (const path of calls.filter(didWork).map(pathOf)) {
    if (path === null) continue;
    const relative = root !== null && path.startsWith(root) ? path.slice(root.length) : path;
    const slash = relative.lastIndexOf('/');
    const directory = slash === -1 ? './' : relative.slice(0, slash + 1);
    directories.set(directory, (directories.get(directory) ?? new Set<string>()).add(relative.slice(slash + 1)));
    const extension = /\.([A-Za-z0-9]+)$/.exec(relative)?.[1]?.toLowerCase();
    if (extension !== undefined) extensions.set(extension, (extensions.get(extension) ?? new Set<string>()).add(path));
  }
  const tests = new Set(calls.flatMap((call) => (call.name === 'Bash' && TEST_COMMAND.test(str(call, 'command') ?? '') ? [`\`${oneLine(str(call, 'command') ?? '', LINE_CHARS)}\``] : [])));
  const lines: string[] = [];
  if (session.cwd !== null) lines.push(`- Working directory: ${session.cwd}`);
  if (session.branch !== null && session.branch !== '') lines.push(`- Git branch: ${session.branch}`);
  if (directories.size > 0) lines.push(`- Directories touched: ${[...directories].map(([directory, names]) => `${directory} (${[...names].join(', ')})`).join('; ')}`);
  if (extensions.size > 0) lines.push(`- File types: ${[...extensions].map(([extension, paths]) => `.${extension} ×${paths.size}`).join(', ')}`);
  if (tests.size > 0) lines.push(`- Test commands: ${[...tests].join(', ')}`);
  return lines.map((line) => oneLine(line, FACTS_LINE_CHARS));
}

/** A failure, then a success of the same call: what changed in between. */
function learnings(calls: readonly ToolCall[]): string[] {
  const lines: string[] = [];
  const explained = new Set<ToolCall>();
  calls.forEach((call, index) => {
    if (call.result === null || !call.result.failed) return;
    const target = targetOf(call);
    const fixedAt = calls.findIndex((other, at) => at > index && other.name === call.name && other.result !== null && !other.result.failed && targetOf(other) === target);
    const fixedBy = calls[fixedAt];
    // Several failures before one success make one learning, from the first failure.
    if (fixedBy === undefined || explained.has(fixedBy)) return;
    explained.add(fixedBy);
    const between = calls.slice(index + 1, fixedAt);
    const changed = [...new Set(between.filter((other) => didWork(other) && FILE_TOOLS[other.name] !== undefined && FILE_TOOLS[other.name] !== 'read').map(pathOf))];
    const after = changed.length > 0 ? `after changes to ${changed.join(', ')}` : `after ${between.length} other step${between.length === 1 ? '' : 's'}`;
    const verb = call.name === 'Bash' ? 'passed' : 'succeeded';
    lines.push(`- \`${oneLine(target, LINE_CHARS)}\` failed (${errorKeyLine(call.result.text)}), then ${verb} ${after}.`);
  });
  return lines;
}

function keyResults(calls: readonly ToolCall[]): string[] {
  const results = new Map<string, string>();
  for (const call of calls) {
    const command = call.name === 'Bash' ? str(call, 'command') : null;
    if (command === null || call.result === null || call.result.exit !== 0) continue;
    const output = call.result.text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    const key = oneLine(command, LINE_CHARS);
    results.delete(key);
    if (GIT_COMMIT.test(command)) results.set(key, `- \`${key}\` committed — ${oneLine(output[0] ?? '', LINE_CHARS)}`);
    else if (output.some((line) => PASS_LINE.test(line))) results.set(key, `- \`${key}\` passed — ${oneLine(output.findLast((line) => PASS_LINE.test(line)) ?? '', LINE_CHARS)}`);
  }
  return [...results.values()];
}

function worklog(session: Session): string[] {
  return session.turns.map((turn) => {
    const prompt = turn.prompt === null ? '(continued)' : oneLine(turn.prompt, WORKLOG_PROMPT_CHARS).replaceAll(' — ', ' - ');
    const counts = new Map<string, number>();
    for (const call of turn.calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    const failed = turn.calls.filter((call) => call.result?.failed === true).length;
    const tools = turn.calls.length === 0 ? 'no tools' : `${turn.calls.length} tool call${turn.calls.length === 1 ? '' : 's'} (${[...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ')})${failed > 0 ? `, ${failed} failed` : ''}`;
    const reply = turn.replies.at(-1);
    return `- ${prompt} — ${tools}; ${reply === undefined ? 'no reply yet' : oneLine(reply, LINE_CHARS)}`;
  });
}

/** The template's sections: each `#` heading and the lines under it, kept exactly. */
export function templateSections(template: string = SESSION_MEMORY_TEMPLATE): TemplateSection[] {
  const sections: TemplateSection[] = [];
  for (const line of template.split('\n').map((text) => text.trimEnd())) {
    if (/^#{1,6}\s/.test(line)) sections.push({ heading: line, description: [] });
    else if (line.trim() !== '') sections.at(-1)?.description.push(line);
  }
  return sections;
}

/** The sections of a template, or of the default one when it has no headings (an empty override file). */
function usableTemplate(template: string | undefined): TemplateSection[] {
  const sections = templateSections(template ?? SESSION_MEMORY_TEMPLATE);
  return sections.length > 0 ? sections : templateSections();
}

/** Whether `text` has every heading of the template, each followed by its description lines, in order. */
export function hasAllSections(text: string, template?: string): boolean {
  const lines = text.split('\n').map((line) => line.trim());
  let at = 0;
  for (const section of usableTemplate(template)) {
    const heading = lines.indexOf(section.heading.trim(), at);
    if (heading === -1) return false;
    at = heading + 1;
    for (const description of section.description) {
      while (lines[at] === '') at++;
      if (lines[at] !== description.trim()) return false;
      at++;
    }
  }
  return true;
}

const DEFAULT_SECTIONS = templateSections();
const DEFAULT_HEADINGS = DEFAULT_SECTIONS.map((section) => normalizeHeading(section.heading));

function normalizeHeading(heading: string): string {
  return heading.replace(/^#+/, '').trim().toLowerCase();
}

/** Which of the 10 sections a template section holds: by its name, else by its place. */
function sectionIds(template: readonly TemplateSection[]): (number | null)[] {
  return template.map((section, index) => {
    const byName = DEFAULT_HEADINGS.indexOf(normalizeHeading(section.heading));
    return byName !== -1 ? byName : index < DEFAULT_HEADINGS.length ? index : null;
  });
}

/** What a line of an earlier text opens: null when it is no heading; no section for a heading not known here. */
function headingSection(line: string, numbered: boolean, template: readonly TemplateSection[], ids: readonly (number | null)[]): { section?: number; label?: string } | null {
  if (numbered) {
    const found = /^(\d)\.\s+(.*):$/.exec(line);
    return found !== null && SUMMARY_SECTIONS[Number(found[1]) - 1] === found[2] ? (FROM_COMPACTION[Number(found[1])] ?? {}) : null;
  }
  if (!line.startsWith('#')) return null;
  const at = template.findIndex((section) => section.heading.trim() === line);
  const byName = DEFAULT_HEADINGS.indexOf(normalizeHeading(line));
  return { section: (at !== -1 ? ids[at] : byName !== -1 ? byName : undefined) ?? undefined };
}

/**
 * The lines of an earlier memory (headings of the template) or compaction summary (numbered
 * sections), by section. Text under no heading counts as part of the task.
 */
function earlierLines(text: string, template: readonly TemplateSection[]): string[][] {
  const bySection: string[][] = DEFAULT_HEADINGS.map(() => []);
  const lines = text.split('\n').map((line) => line.trim());
  const numbered = lines.some((line) => SUMMARY_SECTIONS.some((title, index) => line === `${index + 1}. ${title}:`));
  const ids = sectionIds(template);
  const descriptions = new Set([...template, ...DEFAULT_SECTIONS].flatMap((section) => section.description.map((line) => line.trim())));
  let into: { section?: number; label?: string } = numbered ? {} : { section: TASK };
  for (const line of lines) {
    const opened = headingSection(line, numbered, template, ids);
    if (opened !== null) {
      into = opened;
      continue;
    }
    const noise = line === '' || descriptions.has(line) || OMITTED.test(line) || /^-?\s*None(?: yet)?\.?$/.test(line) || BOILERPLATE.some((start) => line.startsWith(start));
    if (into.section === undefined || noise) continue;
    const item = line.replace(/^- /, '');
    bySection[into.section]?.push(into.section === TITLE ? line : into.label !== undefined ? `- ${into.label}: ${item}` : `- ${item}`);
  }
  return bySection;
}

/**
 * Carried lines first, then the new ones. A carried line goes when a new one has its key (a file's
 * new state), except for requests: a request does not change, and the carried one has its place.
 */
function merge(section: number, carried: readonly string[], fresh: readonly string[]): string[] {
  const keyOf = (line: string) => KEYS[section]?.exec(line)?.[1] ?? line;
  if (section === TASK) {
    const carriedKeys = new Set(carried.map(keyOf));
    return [...new Set([...carried, ...fresh.filter((line) => !carriedKeys.has(keyOf(line)))])];
  }
  const freshKeys = new Set(fresh.map(keyOf));
  return [...new Set([...carried.filter((line) => !freshKeys.has(keyOf(line))), ...fresh])];
}

/** The full text of `summary.md`. Pure and deterministic. */
export function offlineSessionMemory(input: OfflineMemoryInput): string {
  const template = usableTemplate(input.template);
  const ids = sectionIds(template);
  const session = readSession(input.loaded);
  const calls = session.turns.flatMap((turn) => turn.calls);
  const prompts = session.turns.flatMap((turn) => (turn.prompt === null ? [] : [turn.prompt]));
  const earlier = [...(input.previous == null ? [] : [input.previous]), ...session.summaries].map((text) => earlierLines(text, template));
  const carried = (section: number) => earlier.flatMap((sections) => sections[section] ?? []);
  const derived = [carried(TITLE)[0], carried(TASK)[0]?.replace(/^- (?:First request: )?/, ''), prompts[0]].find((text) => text !== undefined && text.trim() !== '');
  const title = input.title != null && input.title.trim() !== '' ? oneLine(input.title, LINE_CHARS) : titleOf(derived ?? 'Untitled session');
  const fresh: string[][] = [
    [title],
    currentState(session, calls),
    taskSpecification(prompts, carried(TASK).length > 0),
    filesAndFunctions(calls),
    workflow(calls),
    errorsAndCorrections(session, calls),
    codebase(session, calls),
    learnings(calls),
    keyResults(calls),
    worklog(session),
  ];
  const hasTaskCalls = calls.some((call) => ['TodoWrite', 'TaskCreate', 'TaskUpdate'].includes(call.name));
  const bodies = fresh.map((lines, section) => {
    if (section === TITLE) return lines;
    // A todo list in `loaded` is the whole list: carried open items are stale.
    const old = section === CURRENT && hasTaskCalls ? carried(section).filter((line) => !/^- (?:Pending|In progress):/.test(line)) : carried(section);
    return merge(section, old, lines);
  });
  const sections = template.map((section, index): BudgetSection => {
    const id = ids[index] ?? null;
    const lines = id === null ? [] : (bodies[id] ?? []);
    return {
      head: [section.heading, ...section.description, ''].join('\n'),
      lines: (lines.length === 0 ? [NONE] : lines).map((text, at) => ({ text, keep: id === TITLE || (id === TASK && at === 0) })),
      omitted: 0,
      worklog: id === WORKLOG,
    };
  });
  return renderWithinLimits(sections);
}

interface BudgetLine {
  text: string;
  /** Lines the section is pointless without: the title, the first request. */
  keep: boolean;
}

interface BudgetSection {
  head: string;
  lines: BudgetLine[];
  omitted: number;
  worklog: boolean;
}

const marker = (omitted: number) => `- (${omitted} older entr${omitted === 1 ? 'y' : 'ies'} left out)`;
const markerChars = (omitted: number) => (omitted === 0 ? 0 : marker(omitted).length + 1);

function renderSection(section: BudgetSection): string {
  const lines = section.lines.map((line) => line.text);
  if (section.omitted > 0) {
    const first = section.lines.findIndex((line) => !line.keep);
    lines.splice(first === -1 ? lines.length : first, 0, marker(section.omitted));
  }
  return `${section.head}\n${lines.join('\n')}`;
}

/** Drops the oldest lines that may go until the section is down to `maxChars` or `minLines` of them. */
function shedOldest(section: BudgetSection, maxChars: number, minLines = 0): void {
  let chars = renderSection(section).length;
  const droppable = section.lines.filter((line) => !line.keep);
  const gone = new Set<BudgetLine>();
  for (const line of droppable) {
    if (chars <= maxChars || droppable.length - gone.size <= minLines) break;
    const omitted = section.omitted + gone.size;
    chars += -(line.text.length + 1) - markerChars(omitted) + markerChars(omitted + 1);
    gone.add(line);
  }
  section.lines = section.lines.filter((line) => !gone.has(line));
  section.omitted += gone.size;
}

/** The longest line cut in half, for a section over its limit with nothing left to drop. */
function halveLongest(section: BudgetSection): boolean {
  const longest = section.lines.reduce<BudgetLine | undefined>((best, line) => (best === undefined || line.text.length > best.text.length ? line : best), undefined);
  if (longest === undefined || longest.text.length < LINE_CHARS) return false;
  longest.text = oneLine(longest.text, Math.floor(longest.text.length / 2));
  return true;
}

/**
 * Each section within SESSION_SECTION_MAX_TOKENS (oldest lines out first), then the whole within
 * SESSION_MEMORY_MAX_TOKENS: the oldest worklog lines shortened, then dropped down to the latest
 * few, then the oldest lines of the largest other section, then the rest of the worklog.
 */
function renderWithinLimits(sections: BudgetSection[]): string {
  const sectionMax = SESSION_SECTION_MAX_TOKENS * CHARS_PER_TOKEN;
  for (const section of sections) {
    shedOldest(section, sectionMax);
    while (renderSection(section).length > sectionMax && halveLongest(section));
  }
  const totalMax = SESSION_MEMORY_MAX_TOKENS * CHARS_PER_TOKEN;
  // Sections joined by a blank line, and a final newline.
  const total = () => sections.reduce((chars, section) => chars + renderSection(section).length + 2, -1);
  const worklog = sections.find((section) => section.worklog);
  let chars = total();
  for (const line of worklog?.lines ?? []) {
    if (chars <= totalMax) break;
    const before = line.text.length;
    line.text = oneLine(line.text, WORKLOG_SHORT_CHARS);
    chars -= before - line.text.length;
  }
  if (worklog !== undefined && chars > totalMax) shedOldest(worklog, renderSection(worklog).length - (chars - totalMax), MIN_WORKLOG_LINES);
  for (chars = total(); chars > totalMax; chars = total()) {
    const sizes = sections.filter((section) => !section.worklog && section.lines.some((line) => !line.keep)).map((section) => ({ section, chars: renderSection(section).length }));
    const largest = sizes.reduce<(typeof sizes)[number] | undefined>((best, size) => (best === undefined || size.chars > best.chars ? size : best), undefined);
    if (largest === undefined) break;
    shedOldest(largest.section, largest.chars - 1);
  }
  if (worklog !== undefined && chars > totalMax) shedOldest(worklog, renderSection(worklog).length - (chars - totalMax));
  return `${sections.map(renderSection).join('\n\n')}\n`;
}
