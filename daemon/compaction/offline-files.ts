/**
 * Section 3 of the offline compaction summary, Files and Code Sections: each file the session
 * touched, once, with what was done to it. The calls of the conversation give their actions and
 * the first line of each edit; the calls a compaction hid (before the last compact_boundary,
 * transcripts/earlier.ts) give the file's status then, so that a file changed before a compaction
 * is still listed as changed (issue 32). The earlier summary's section is carried, less the items
 * about a file listed here: such an item gives way to the file's line, which keeps what it said
 * of the file and its details. Pure.
 */

import { isRecord } from '../../shared/values.js';
import type { FileEntry } from '../extraction/progress.js';
import { resolvePath } from '../extraction/progress.js';
import { type Call, callFiles, clip, inputString, LINE_CHARS } from '../transcripts/facts.js';

/** Edits quoted per file: enough to say what changed. */
const SNIPPETS_PER_FILE = 3;
/** How a file's status from the calls a compaction hid is said. */
const BEFORE_COMPACTION = 'before the last compaction';
/** An earlier summary's item about a file: its path, backticked or not, then what it says of it, if anything. */
const FILE_ITEM = /^- `?([^`\s]*[\w-]\.[A-Za-z]\w{0,7}|[^`\s]*\/[^`\s]+?)`?:?(?:\s+(?:—|-|:)\s+(.+))?$/;
/** A description that is only a status (memd's own summary carried): the file's line says it anew. */
const STATUS_ONLY = /^(?:created|edited|written|read|deleted)\b/;

export interface FilesInput {
  calls: readonly Call[];
  /** The files the calls before the last compact_boundary touched, with their status then, by absolute path. */
  before: ReadonlyMap<string, FileEntry>;
  cwd: string | null;
  /** Section 3 of the earlier summary, dedented; undefined without one. */
  earlier: string | undefined;
}

interface Carried {
  /** The earlier section less the items about listed files. */
  kept: string[];
  /** What those items said of each file (by absolute path): the text after the path, and the lines under it. */
  notes: Map<string, { said: string[]; details: string[] }>;
}

function editSnippets(call: Call): string[] {
  const edits = Array.isArray(call.input.edits) ? call.input.edits.filter(isRecord) : [call.input];
  return edits
    .map((edit) =>
      typeof edit.new_string === 'string'
        ? edit.new_string
        : typeof edit.new_source === 'string'
          ? edit.new_source
          : '',
    )
    .map(
      (code) =>
        code
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.trim() ?? '',
    )
    .filter((line) => line !== '')
    .map((line) => `\`${clip(line, LINE_CHARS)}\``);
}

/** The earlier section's items, each its first line and the lines under it, split off the items about listed files. */
function splitCarried(body: string, listed: ReadonlySet<string>, cwd: string | null): Carried {
  const kept: string[] = [];
  const notes: Carried['notes'] = new Map();
  let taken: { details: string[] } | null = null;
  for (const line of body.split('\n')) {
    if (taken !== null && (line.startsWith(' ') || line.trim() === '')) {
      if (line.trim() !== '') taken.details.push(line.trimEnd());
      continue;
    }
    taken = null;
    const found = FILE_ITEM.exec(line);
    const key = found?.[1] === undefined ? null : resolvePath(found[1], cwd);
    if (key === null || !listed.has(key)) {
      kept.push(line);
      continue;
    }
    const note = notes.get(key) ?? { said: [], details: [] };
    notes.set(key, note);
    const said = found?.[2]?.trim() ?? '';
    if (said !== '' && !STATUS_ONLY.test(said)) note.said.push(said);
    taken = note;
  }
  return { kept, notes };
}

/** The lines under a carried item, re-indented under the file's line. */
function underLine(details: readonly string[]): string[] {
  const widths = details.map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = widths.length === 0 ? 0 : Math.min(...widths);
  return details.map((line) => `      ${line.slice(common)}`);
}

export function filesAndCode(input: FilesInput): string[] {
  const { before, cwd } = input;
  const files = new Map<string, { actions: Map<string, number>; snippets: string[] }>();
  // File tools and Bash commands alike (`cat f`, `sed -i … f`, `> f`: transcripts/bash-paths.ts).
  for (const call of input.calls)
    for (const { path, action, bash } of callFiles(call)) {
      const file = files.get(path) ?? { actions: new Map<string, number>(), snippets: [] as string[] };
      files.set(path, file);
      const named = bash ? `${action} by Bash` : action;
      file.actions.set(named, (file.actions.get(named) ?? 0) + 1);
      if (bash) continue;
      if (action === 'edited') file.snippets.push(...editSnippets(call));
      const content = inputString(call, 'content');
      if (action === 'written' && content !== null)
        file.snippets.push(`written in full: ${content.split('\n').length} lines`);
    }
  const now = new Map([...files.keys()].map((path) => [resolvePath(path, cwd), path]));
  const carried = splitCarried(input.earlier ?? '', new Set([...before.keys(), ...now.keys()]), cwd);
  const lines: string[] = [];
  if (carried.kept.some((line) => line.trim() !== '' && !/^-?\s*None\.?$/.test(line.trim())))
    lines.push(
      '   Earlier (from the previous summary):',
      ...carried.kept.map((line) => (line === '' ? '' : `      ${line}`)),
    );
  const fileLine = (key: string, path: string, actions: string[], snippets: string[]) => {
    const note = carried.notes.get(key);
    const said = note === undefined || note.said.length === 0 ? '' : ` — ${note.said.join('; ')}`;
    lines.push(
      `   - ${path}: ${actions.join('; ')}${said}`,
      ...underLine(note?.details ?? []),
      ...snippets.slice(-SNIPPETS_PER_FILE).map((snippet) => `      - ${snippet}`),
    );
  };
  // The files the compaction hid come first: they were touched first.
  for (const [key, file] of before)
    if (!now.has(key)) fileLine(key, file.path, [`${file.status} ${BEFORE_COMPACTION}`], []);
  for (const [path, file] of files) {
    const key = resolvePath(path, cwd);
    const earlier = before.get(key);
    const actions = [
      ...(earlier === undefined ? [] : [`${earlier.status} ${BEFORE_COMPACTION}`]),
      ...[...file.actions].map(([action, count]) => (count > 1 ? `${action} ×${count}` : action)),
    ];
    fileLine(key, path, actions, file.snippets);
  }
  return lines;
}
