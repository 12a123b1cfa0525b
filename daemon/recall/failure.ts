/**
 * What happened after a failure in a past session (issue 33, item 4): the failed call whose result
 * is the recalled line, then the edits and commands that followed it, up to the next run of the
 * same command (or call on the same target) that passed. Read from the session's main transcript,
 * a window of lines after the failure, not the whole session.
 */
import { relative } from 'node:path';
import type { Call } from '../transcripts/facts.js';
import { errorKeyLine, readTranscript } from '../transcripts/facts.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { clip } from './frame.js';

/** Lines read before the failed result (its call is on an earlier line) and after it. */
const LINES_BEFORE = 6;
const LINES_AFTER = 120;
/** Steps named between the failure and the run that passed: more is a session, not a fix. */
const MAX_STEPS = 4;
/** Characters of a command or an edit's text in the note. */
const SHOWN_CHARS = 100;
/** Words of a command that say which run it is (`npm test`, `pytest tests/test_cart.py`). */
const COMMAND_HEAD_WORDS = 2;

const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

export interface FailureCourse {
  /** The failed call, as the note names it: `` `npm test` `` or `Edit src/cart.js`. */
  failed: string;
  keyLine: string;
  /** What came after it, in order: edits and commands. */
  steps: string[];
  /** The run that passed afterwards, or null when none did within the window. */
  passed: string | null;
}

const text = (input: Record<string, unknown>, key: string): string | null =>
  typeof input[key] === 'string' && input[key] !== '' ? (input[key] as string) : null;

function shownPath(call: Call, path: string): string {
  const cwd = call.cwd ?? null;
  if (cwd === null || !path.startsWith(`${cwd}/`)) return path;
  return relative(cwd, path);
}

/** What a call did, in a few words. */
export function describeCall(call: Call): string {
  const command = text(call.input, 'command');
  if (call.name === 'Bash' && command !== null) return `\`${clip(command, SHOWN_CHARS)}\``;
  const path = text(call.input, 'file_path') ?? text(call.input, 'notebook_path') ?? text(call.input, 'path');
  if (path === null) return call.name;
  const where = `${call.name} ${shownPath(call, path)}`;
  if (call.name === 'Edit' || call.name === 'MultiEdit') {
    const edits = Array.isArray(call.input.edits) ? (call.input.edits as Record<string, unknown>[]) : [call.input];
    const first = edits[0] ?? {};
    const before = typeof first.old_string === 'string' ? first.old_string : null;
    const after = typeof first.new_string === 'string' ? first.new_string : null;
    if (before !== null && after !== null)
      return `${where}: \`${clip(before, SHOWN_CHARS / 2)}\` → \`${clip(after, SHOWN_CHARS / 2)}\``;
  }
  return where;
}

/** The command's first words, or the call's tool and target: what makes two runs the same run. */
function runOf(call: Call): string {
  const command = text(call.input, 'command');
  if (command !== null) return command.trim().split(/\s+/).slice(0, COMMAND_HEAD_WORDS).join(' ');
  return `${call.name} ${text(call.input, 'file_path') ?? text(call.input, 'path') ?? text(call.input, 'url') ?? ''}`;
}

/** The course after the failed result on the line `uuid` of `sessionId`; null when the line or its call is not found. */
export async function courseAfter(
  transcripts: Pick<Transcripts, 'mainEntries' | 'read'>,
  sessionId: string,
  uuid: string,
  signal?: AbortSignal,
): Promise<FailureCourse | null> {
  const { file, entries } = await transcripts.mainEntries(sessionId, signal);
  const at = entries.findIndex((entry) => entry.uuid === uuid);
  if (at === -1) return null;
  const from = Math.max(0, at - LINES_BEFORE);
  const loaded = await transcripts.read(file.path, entries.slice(from, at + LINES_AFTER), signal);
  const { calls } = readTranscript(loaded);
  const failedAt = calls.findIndex((call) => call.result?.failed === true && call.result.at === at - from);
  const failed = calls[failedAt];
  if (failed?.result === undefined || failed.result === null) return null;
  const run = runOf(failed);
  const steps: string[] = [];
  let passed: string | null = null;
  for (const call of calls.slice(failedAt + 1)) {
    const ok = call.result !== null && !call.result.failed;
    if (runOf(call) === run && call.name === failed.name && !EDIT_TOOLS.has(call.name)) {
      if (ok) {
        passed = describeCall(call);
        break;
      }
      steps.push(`${describeCall(call)} failed again`);
    } else if (EDIT_TOOLS.has(call.name) || (call.name === 'Bash' && ok)) {
      steps.push(describeCall(call));
    }
  }
  return {
    failed: describeCall(failed),
    keyLine: errorKeyLine(failed.result.text),
    // The steps nearest the run that passed are the fix; the first ones, when none passed.
    steps: passed === null ? steps.slice(0, MAX_STEPS) : steps.slice(-MAX_STEPS),
    passed,
  };
}
