/**
 * The sections of the offline session memory that the tool calls alone make (offline-summary.ts
 * assembles them with the ones read from the turns): files and the names they declare, the
 * workflow's commands, the codebase touched, learnings (a failure, then its fix) and key results.
 * Kept apart because they share one vocabulary, the calls and their results, and no turn. Pure.
 */

import { runLengths } from '../../shared/text/run-lengths.js';
import { isRecord } from '../../shared/values.js';
import type { Outcomes } from '../transcripts/decisions.js';
import {
  type Call,
  didWork,
  errorKeyLine,
  FILE_TOOLS,
  filePath,
  inputString,
  LINE_CHARS,
  oneLine,
} from '../transcripts/facts.js';
import { earlierNote, type FileEntry, resolvePath } from './progress.js';

const NAMES_PER_FILE = 12; // declarations listed per file: the newest say what the file is now
const FACTS_LINE_CHARS = 1_000; // a codebase line lists directories or extensions; past this it is noise
const DECLARATION =
  /\b(?:function\s*\*?\s*|class\s+|def\s+|fn\s+|func\s+(?:\([^)]*\)\s*)?)([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/g;
const PASS_LINE = /\bpass(?:ed|es|ing)?\b|^OK\b|✓|^ok\b|\bRan \d+ tests?\b/i;
const GIT_COMMIT = /\bgit\s+(?:-\S+\s+)*commit\b/;
const TEST_COMMAND = /\b(?:test|tests|pytest|unittest|jest|vitest|mocha|spec)\b/;

/** What a call worked on: its command, file, pattern, else its whole input. */
export const targetOf = (call: Call) =>
  inputString(call, 'command') ?? filePath(call) ?? inputString(call, 'pattern') ?? JSON.stringify(call.input);

function declarations(code: string): string[] {
  return [...code.matchAll(DECLARATION)].map((match) => match[1] ?? match[2] ?? '').filter((name) => name !== '');
}

export function filesAndFunctions(
  calls: readonly Call[],
  files: ReadonlyMap<string, FileEntry>,
  notes: ReadonlyMap<string, string[]>,
  cwd: string | null,
): string[] {
  const names = new Map<string, Set<string>>();
  const searches = new Set<string>();
  for (const call of calls.filter(didWork)) {
    if ((call.name === 'Grep' || call.name === 'Glob') && inputString(call, 'pattern') !== null)
      searches.add(
        `${call.name} \`${oneLine(`${inputString(call, 'pattern')}`, LINE_CHARS)}\`${inputString(call, 'path') === null ? '' : ` in ${inputString(call, 'path')}`}`,
      );
    const path = filePath(call);
    if (FILE_TOOLS[call.name] === undefined || path === null) continue;
    const declared = names.get(resolvePath(path, cwd)) ?? new Set<string>();
    names.set(resolvePath(path, cwd), declared);
    const edits = Array.isArray(call.input.edits) ? call.input.edits.filter(isRecord) : [call.input];
    const code = edits
      .map((edit) =>
        [edit.new_string, edit.new_source, edit.content].filter((part) => typeof part === 'string').join('\n'),
      )
      .join('\n');
    // A name declared again moves to the end: the newest declarations are the ones listed.
    for (const name of declarations(code)) {
      declared.delete(name);
      declared.add(name);
    }
  }
  const lines = [...files].map(([key, file]) => {
    const listed = [...(names.get(key) ?? [])].slice(-NAMES_PER_FILE).map((name) => `\`${name}\``);
    return `- \`${file.path}\` — ${file.status}${listed.length === 0 || file.status === 'deleted' ? '' : `; defines ${listed.join(', ')}`}${earlierNote(notes.get(key))}`;
  });
  if (searches.size > 0) lines.push(`- Searches: ${[...searches].join(', ')}`);
  return lines;
}

const statusOf = (call: Call) =>
  call.result === null
    ? 'no result yet'
    : call.result.exit !== null
      ? `exit ${call.result.exit}`
      : call.result.failed
        ? 'failed'
        : 'done';

export function workflow(calls: readonly Call[]): string[] {
  const commands = new Map<string, string[]>();
  const tools = new Map<string, number>();
  for (const call of calls) {
    tools.set(call.name, (tools.get(call.name) ?? 0) + 1);
    const command = call.name === 'Bash' ? inputString(call, 'command') : null;
    const key = command === null ? null : oneLine(command, LINE_CHARS);
    if (key !== null) commands.set(key, [...(commands.get(key) ?? []), statusOf(call)]);
  }
  const lines = [...commands].map(
    ([command, runs]) =>
      `- \`${command}\` — ${runs.length === 1 ? (runs[0] as string) : `ran ${runs.length}×: ${runLengths(runs)}`}`,
  );
  if (tools.size > 0)
    lines.push(
      `- Tools used: ${[...tools].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ')}`,
    );
  return lines;
}

const WORKLOG_ITEMS = 3; // files or commands named per kind in a worklog line; the other sections list them all
const WORKLOG_COMMAND_CHARS = 60; // a command in a worklog line: enough to tell which
const TASK_TOOLS = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate']);

/** The first items, and how many more. */
function named(items: readonly string[]): string {
  const shown = items.slice(0, WORKLOG_ITEMS).join(', ');
  return items.length > WORKLOG_ITEMS ? `${shown} and ${items.length - WORKLOG_ITEMS} more` : shown;
}

/**
 * What a turn's calls did, for its worklog line (issue 32: what was done, not tool counts): the
 * files read and changed, the commands run with their status, searches, the todo list, other tools
 * by name, and the calls that failed.
 */
export function turnWork(calls: readonly Call[], cwd: string | null): string {
  const root = cwd === null ? null : `${cwd.replace(/\/$/, '')}/`;
  const shortPath = (path: string) => (root !== null && path.startsWith(root) ? path.slice(root.length) : path);
  const files = (wanted: (action: string) => boolean) => [
    ...new Set(
      calls.flatMap((call) => {
        const path = filePath(call);
        const action = FILE_TOOLS[call.name];
        return path !== null && action !== undefined && wanted(action) && didWork(call) ? [shortPath(path)] : [];
      }),
    ),
  ];
  const runs = new Map<string, string[]>();
  for (const call of calls) {
    const command = call.name === 'Bash' ? inputString(call, 'command') : null;
    const key = command === null ? null : oneLine(command, WORKLOG_COMMAND_CHARS);
    if (key !== null) runs.set(key, [...(runs.get(key) ?? []), statusOf(call)]);
  }
  const commands = [...runs].map(([command, statuses]) => `\`${command}\` (${runLengths(statuses)})`);
  const searches = calls.flatMap((call) => {
    const pattern = call.name === 'Grep' || call.name === 'Glob' ? inputString(call, 'pattern') : null;
    return pattern === null ? [] : [`\`${oneLine(pattern, WORKLOG_COMMAND_CHARS)}\``];
  });
  const others = [
    ...new Set(
      calls
        .map((call) => call.name)
        .filter(
          (name) => !['Bash', 'Grep', 'Glob'].includes(name) && FILE_TOOLS[name] === undefined && !TASK_TOOLS.has(name),
        ),
    ),
  ];
  const failed = [
    ...new Set(calls.filter((call) => call.name !== 'Bash' && call.result?.failed === true).map((call) => call.name)),
  ];
  const read = files((action) => action === 'read');
  const changed = files((action) => action !== 'read');
  const parts = [
    ...(read.length > 0 ? [`read ${named(read)}`] : []),
    ...(changed.length > 0 ? [`changed ${named(changed)}`] : []),
    ...(commands.length > 0 ? [`ran ${named(commands)}`] : []),
    ...(searches.length > 0 ? [`searched ${named(searches)}`] : []),
    ...(calls.some((call) => TASK_TOOLS.has(call.name)) ? ['updated the todo list'] : []),
    ...(others.length > 0 ? [`used ${named(others)}`] : []),
    ...(failed.length > 0 ? [`failed: ${named(failed)}`] : []),
  ];
  return parts.length === 0 ? 'no tools' : parts.join('; ');
}

/** Where the session ran: its working directory and git branch. */
export interface Whereabouts {
  cwd: string | null;
  branch: string | null;
}

export function codebase(session: Whereabouts, calls: readonly Call[]): string[] {
  const root = session.cwd === null ? null : `${session.cwd.replace(/\/$/, '')}/`;
  const directories = new Map<string, Set<string>>();
  const extensions = new Map<string, Set<string>>();
  for (const path of calls.filter(didWork).map(filePath)) {
    if (path === null) continue;
    const relative = root !== null && path.startsWith(root) ? path.slice(root.length) : path;
    const slash = relative.lastIndexOf('/');
    const directory = slash === -1 ? './' : relative.slice(0, slash + 1);
    directories.set(directory, (directories.get(directory) ?? new Set<string>()).add(relative.slice(slash + 1)));
    const extension = /\.([A-Za-z0-9]+)$/.exec(relative)?.[1]?.toLowerCase();
    if (extension !== undefined) extensions.set(extension, (extensions.get(extension) ?? new Set<string>()).add(path));
  }
  const tests = new Set(
    calls.flatMap((call) =>
      call.name === 'Bash' && TEST_COMMAND.test(inputString(call, 'command') ?? '')
        ? [`\`${oneLine(inputString(call, 'command') ?? '', LINE_CHARS)}\``]
        : [],
    ),
  );
  const lines: string[] = [];
  if (session.cwd !== null) lines.push(`- Working directory: ${session.cwd}`);
  if (session.branch !== null && session.branch !== '') lines.push(`- Git branch: ${session.branch}`);
  if (directories.size > 0)
    lines.push(
      `- Directories touched: ${[...directories].map(([directory, names]) => `${directory} (${[...names].join(', ')})`).join('; ')}`,
    );
  if (extensions.size > 0)
    lines.push(
      `- File types: ${[...extensions].map(([extension, paths]) => `.${extension} ×${paths.size}`).join(', ')}`,
    );
  if (tests.size > 0) lines.push(`- Test commands: ${[...tests].join(', ')}`);
  return lines.map((line) => oneLine(line, FACTS_LINE_CHARS));
}

/** A failure, then a success of the same call: what changed in between. */
export function learnings(calls: readonly Call[]): string[] {
  const lines: string[] = [];
  const explained = new Set<Call>();
  calls.forEach((call, index) => {
    if (call.result === null || !call.result.failed) return;
    const target = targetOf(call);
    const fixedAt = calls.findIndex(
      (other, at) =>
        at > index &&
        other.name === call.name &&
        other.result !== null &&
        !other.result.failed &&
        targetOf(other) === target,
    );
    const fixedBy = calls[fixedAt];
    // Several failures before one success make one learning, from the first failure.
    if (fixedBy === undefined || explained.has(fixedBy)) return;
    explained.add(fixedBy);
    const between = calls.slice(index + 1, fixedAt);
    const changed = [
      ...new Set(
        between
          .filter(
            (other) => didWork(other) && FILE_TOOLS[other.name] !== undefined && FILE_TOOLS[other.name] !== 'read',
          )
          .map(filePath),
      ),
    ];
    const after =
      changed.length > 0
        ? `after changes to ${changed.join(', ')}`
        : `after ${between.length} other step${between.length === 1 ? '' : 's'}`;
    const verb = call.name === 'Bash' ? 'passed' : 'succeeded';
    lines.push(
      `- \`${oneLine(target, LINE_CHARS)}\` failed (${errorKeyLine(call.result.text)}), then ${verb} ${after}.`,
    );
  });
  return lines;
}

/** A plan's label: where the transcript holds it. */
function planLabel(source: string): string {
  if (source === 'a reply') return "the assistant's reply";
  if (source.startsWith('plan mode')) return source;
  return `written to ${source}`;
}

/**
 * What was decided and what came of it (issue 32): the decisions quoted, the latest plan step by
 * step, the last result of each command that passed or committed, and of each check that failed.
 */
export function keyResults(calls: readonly Call[], outcomes: Outcomes): string[] {
  const decided = outcomes.decisions.map(
    (decision) =>
      `- "${decision.text}" (${decision.who === 'user' ? "user's decision" : "assistant's decision"}${decision.reason === null ? '' : `; the assistant's reason: "${decision.reason}"`})`,
  );
  const { plan } = outcomes;
  const planned =
    plan === null
      ? []
      : [
          `- Plan: ${planLabel(plan.source)}, ${plan.steps.length + plan.more} steps`,
          ...plan.steps.map((step, index) => `- Plan step ${index + 1}: ${step}`),
        ];
  const results = new Map<string, string>();
  for (const call of calls) {
    const command = call.name === 'Bash' ? inputString(call, 'command') : null;
    if (command === null || call.result === null || call.result.exit !== 0) continue;
    const output = call.result.text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const key = oneLine(command, LINE_CHARS);
    results.delete(key);
    if (GIT_COMMIT.test(command)) results.set(key, `- \`${key}\` committed — ${oneLine(output[0] ?? '', LINE_CHARS)}`);
    else if (output.some((line) => PASS_LINE.test(line)))
      results.set(
        key,
        `- \`${key}\` passed — ${oneLine(output.findLast((line) => PASS_LINE.test(line)) ?? '', LINE_CHARS)}`,
      );
  }
  // A check whose last run failed is an outcome too: the work is not done.
  for (const check of outcomes.checks)
    if (!check.passed) results.set(check.command, `- \`${check.command}\` failed — ${check.line}`);
  return [...decided, ...planned, ...results.values()];
}
