/**
 * The verifiable part of a handoff (issue 7, item 2): the files the session touched (by its file
 * tools and its Bash commands; git's status wins for those it changed, issue 32), the last commands
 * with their exit codes, the commands still failing, the todo list's final state, and the user's
 * rules. Read from the transcripts' tool calls (transcripts/facts.ts) and from git. Pure.
 */
import { join } from 'node:path';
import { INTERRUPTED } from '../../shared/handoff/prompts.js';
import { userRules } from '../../shared/handoff/rules.js';
import type { HandoffCommand, HandoffFacts, HandoffFileTouched } from '../../shared/protocol/handoff.js';
import { isRecord } from '../../shared/values.js';
import { type Call, callFiles, didWork, inputString, type TranscriptFacts } from '../transcripts/facts.js';
import { type GitFacts, gitStatusOf, relativeToCwd } from './git.js';

/** Commands kept, the newest: what was run last is what the next turn needs. */
export const MAX_COMMANDS = 20;
/** Files only read, the most recent: a long session reads hundreds; changed files are all kept. */
export const MAX_READ_FILES = 40;
export { INTERRUPTED } from '../../shared/handoff/prompts.js';

export interface FactsInput {
  main: TranscriptFacts;
  /** Sub-agents' transcripts: their file changes are the session's too. */
  sidechains: readonly TranscriptFacts[];
  git: GitFacts | null;
  /** cwd as the caller named it, and resolved: tool paths use the first, git the second. */
  cwd: string;
  realCwd: string;
}

interface ToolFile {
  path: string;
  status: 'created' | 'modified' | 'deleted' | 'read';
  counts: Map<string, number>;
  bySubagent: boolean;
  /** Order of the last call that touched it. */
  last: number;
}

/** Write's result says whether it created the file or overwrote it. */
function writeKind(call: Call): 'created' | 'modified' {
  const meta = call.result?.meta;
  return isRecord(meta) && meta.type === 'create' ? 'created' : 'modified';
}

/** What a Bash command did to a file, as the file's summary names it. */
const BASH_VERBS = { read: 'Bash read', edited: 'Bash write', written: 'Bash write', deleted: 'Bash remove' } as const;

/** The files this session's calls touched (file tools and Bash commands), each with what the session did to it. */
function toolFiles(calls: readonly { call: Call; subagent: boolean }[]): Map<string, ToolFile> {
  const files = new Map<string, ToolFile>();
  calls.forEach(({ call, subagent }, order) => {
    for (const { path, action, bash } of callFiles(call)) {
      const file = files.get(path) ?? {
        path,
        status: 'read',
        counts: new Map<string, number>(),
        bySubagent: true,
        last: order,
      };
      files.set(path, file);
      const tool = bash ? BASH_VERBS[action] : call.name;
      file.counts.set(tool, (file.counts.get(tool) ?? 0) + 1);
      file.bySubagent &&= subagent;
      file.last = order;
      if (action === 'deleted') file.status = 'deleted';
      // The first change decides: a file this session created stays "created" through later edits.
      else if (action !== 'read' && (file.status === 'read' || file.status === 'deleted'))
        file.status =
          action === 'written' && !bash ? writeKind(call) : file.status === 'deleted' ? 'created' : 'modified';
    }
  });
  return files;
}

function toolSummary(file: ToolFile | undefined): string {
  if (file === undefined) return '';
  const tools = [...file.counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ');
  return file.bySubagent ? `${tools} (by a sub-agent)` : tools;
}

/** A tool's absolute path under the caller's cwd, re-rooted at the resolved cwd so that it meets git's. */
function comparable(path: string, cwd: string, realCwd: string): string {
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(root) ? join(realCwd, path.slice(root.length)) : path;
}

function filesTouched(input: FactsInput): HandoffFileTouched[] {
  const calls = [input.main, ...input.sidechains].flatMap((facts, index) =>
    facts.calls.map((call) => ({ call, subagent: index > 0 })),
  );
  const byTool = toolFiles(calls);
  const byKey = new Map([...byTool.values()].map((file) => [comparable(file.path, input.cwd, input.realCwd), file]));
  const rows: HandoffFileTouched[] = [];
  for (const entry of input.git?.entries ?? []) {
    const file = byKey.get(entry.path) ?? (entry.from === null ? undefined : byKey.get(entry.from));
    // Changed means changed in this session: what git shows and the session did not touch is no file of it.
    if (file === undefined) continue;
    byTool.delete(file.path);
    const path = relativeToCwd(input.realCwd, entry.path);
    const from = entry.from === null ? '' : ` from ${relativeToCwd(input.realCwd, entry.from)}`;
    const git = `git \`${entry.code.trim()}\`${from}`;
    // Only read: uncommitted already, or changed by another program; either way not by this session.
    if (file.status === 'read')
      rows.push({ path, status: 'read', summary: `${toolSummary(file)}; ${git}, not changed by this session` });
    else rows.push({ path, status: gitStatusOf(entry.code), summary: `${toolSummary(file)}; ${git}` });
  }
  const rest = [...byTool.values()];
  for (const file of rest.filter((candidate) => candidate.status !== 'read'))
    rows.push({ path: file.path, status: file.status, summary: toolSummary(file) });
  const reads = rest
    .filter((candidate) => candidate.status === 'read')
    .sort((a, b) => a.last - b.last)
    .slice(-MAX_READ_FILES);
  for (const file of reads) rows.push({ path: file.path, status: 'read', summary: toolSummary(file) });
  return rows;
}

function commandOf(call: Call): HandoffCommand | null {
  const command = call.name === 'Bash' ? inputString(call, 'command') : null;
  if (command === null) return null;
  return { command, exitCode: call.result?.exit ?? null, isError: call.result?.failed ?? false };
}

/** Every Bash run of the main agent, oldest first. */
export function commandRuns(main: TranscriptFacts): HandoffCommand[] {
  return main.calls.map(commandOf).filter((command): command is HandoffCommand => command !== null);
}

/** Commands whose last run failed, in the order of those runs. */
export function failingCommands(runs: readonly HandoffCommand[]): HandoffCommand[] {
  const last = new Map<string, HandoffCommand>();
  for (const run of runs) {
    last.delete(run.command);
    last.set(run.command, run);
  }
  return [...last.values()].filter((run) => run.isError);
}

/** The final TodoWrite list and the TaskCreate/TaskUpdate tasks, every status but deleted. */
export function finalTodos(calls: readonly Call[]): { content: string; status: string }[] {
  let todos: { content: string; status: string }[] = [];
  const tasks = new Map<string, { content: string; status: string }>();
  for (const call of calls.filter(didWork)) {
    if (call.name === 'TodoWrite' && Array.isArray(call.input.todos)) {
      todos = call.input.todos
        .filter(isRecord)
        .flatMap((todo) =>
          typeof todo.status === 'string' && typeof todo.content === 'string'
            ? [{ content: todo.content, status: todo.status }]
            : [],
        );
    }
    const meta = call.name === 'TaskCreate' ? call.result?.meta : null;
    if (isRecord(meta) && isRecord(meta.task) && typeof meta.task.id === 'string')
      tasks.set(meta.task.id, { content: inputString(call, 'subject') ?? '', status: 'pending' });
    const task = call.name === 'TaskUpdate' ? tasks.get(inputString(call, 'taskId') ?? '') : undefined;
    if (task === undefined) continue;
    task.status = inputString(call, 'status') ?? task.status;
    task.content = inputString(call, 'subject') ?? task.content;
  }
  return [...todos, ...tasks.values()].filter((todo) => todo.status !== 'deleted');
}

/** What the user typed, interruption notices aside. */
export function requests(main: TranscriptFacts): string[] {
  return main.prompts.map((prompt) => prompt.text).filter((text) => !INTERRUPTED.test(text));
}

export function handoffFacts(input: FactsInput): HandoffFacts {
  const runs = commandRuns(input.main);
  const rules = userRules(requests(input.main));
  return {
    git:
      input.git === null
        ? null
        : { branch: input.git.branch, porcelain: input.git.porcelain, diffStat: input.git.diffStat },
    filesTouched: filesTouched(input),
    commands: runs.slice(-MAX_COMMANDS),
    failing: failingCommands(runs),
    todos: finalTodos(input.main.calls),
    constraints: rules.constraints,
    ruledOut: rules.ruledOut,
  };
}
