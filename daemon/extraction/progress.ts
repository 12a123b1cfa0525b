/**
 * What later turns finished, for the offline session memory (issue 12 item 6): whether a pending
 * item was done after it was written down, and each file's final status. A todo list is often
 * not updated after the work it lists is done, and a compaction's "pending" was current only
 * then; the transcript shows the work itself: the file written, the tests passing. Pure.
 */
import { posix } from 'node:path';
import { isRecord } from '../../shared/values.js';
import { type Call, callFiles, didWork, inputString } from '../transcripts/facts.js';

export type FileStatus = 'created' | 'edited' | 'written' | 'read' | 'deleted';

/** A file named in text: a path or a name with an extension (`tests/test_parser.py`, `README.md`). */
const FILE_NAME = /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][\w]{0,7})(?=$|[\s`'"),:;!?]|\.(?:\s|$))/g;
/** An item that is done when the tests pass. */
const TEST_ITEM =
  /\b(?:run|rerun|re-run)\b.*\b(?:tests?|suite|pytest|jest|vitest|specs?)\b|\b(?:tests?|suite|specs?)\b.*\b(?:pass|passes|passing|green)\b|\bmake\b.*\bpass\b/i;
const TEST_COMMAND = /\b(?:test|tests|pytest|unittest|jest|vitest|mocha|spec)\b/;
const STOP_WORDS = new Set([
  'also',
  'when',
  'whenever',
  'that',
  'this',
  'with',
  'from',
  'then',
  'into',
  'each',
  'every',
  'after',
  'before',
  'should',
  'have',
  'will',
  'your',
  'there',
  'them',
  'they',
  'what',
  'which',
  'make',
  'sure',
  'please',
]);
const RESTATED_SHARE = 0.6; // a later request with this share of an item's words asks for the same thing
const MIN_RESTATED_WORDS = 3; // fewer shared words than this is coincidence
/** Our own file line: `` `path` — status[; defines …][; earlier: …] ``; what follows "earlier:" is a carried description. */
const OWN_STATUS = /^(?:created|edited|written|read|deleted)(?:, (?:created|edited|written|read|deleted))*(?:;|$)/;
const EARLIER = '; earlier: ';
/** A carried file line: the path, backticked or not, then its description. */
const CARRIED_FILE = /^- `?([^`\s]*[\w-]\.[A-Za-z]\w{0,7}|[^`\s]*\/[^`\s]+)`?\s*(?:—|:|-)\s+(.+)$/;

export interface Request {
  at: number;
  text: string;
}

const words = (text: string) =>
  new Set((text.toLowerCase().match(/[a-z][a-z0-9_]{3,}/g) ?? []).filter((word) => !STOP_WORDS.has(word)));

/** The path made absolute against the working directory, `..` and `.` resolved. */
export function resolvePath(path: string, cwd: string | null): string {
  return posix.normalize(path.startsWith('/') || cwd === null ? path : posix.join(cwd, path));
}

function changedFiles(calls: readonly Call[], after: number, cwd: string | null): string[] {
  return calls
    .filter((call) => call.at > after)
    .flatMap((call) =>
      callFiles(call)
        .filter((file) => file.action !== 'read')
        .map((file) => resolvePath(file.path, cwd)),
    );
}

const isTestRun = (call: Call) => call.name === 'Bash' && TEST_COMMAND.test(inputString(call, 'command') ?? '');

/** Whether the last test run after `at` passed; null when there was none. */
function testsPassedAfter(calls: readonly Call[], at: number): boolean | null {
  const last = calls.filter((call) => call.at > at && isTestRun(call) && call.result !== null).at(-1);
  return last === undefined ? null : last.result?.exit === 0;
}

/**
 * Whether the work an item names was done after `at` (the index in `loaded` where it was last
 * said to be open): a later todo list or task marks it completed, the files it names were
 * changed, the tests it wants passing passed, or a later request asked for it and changed files.
 */
export function doneAfter(
  item: string,
  at: number,
  calls: readonly Call[],
  requests: readonly Request[],
  cwd: string | null,
): boolean {
  const text = item.trim().toLowerCase();
  for (const call of calls.filter((candidate) => candidate.at > at && didWork(candidate))) {
    const todos = call.name === 'TodoWrite' && Array.isArray(call.input.todos) ? call.input.todos.filter(isRecord) : [];
    if (
      todos.some(
        (todo) =>
          todo.status === 'completed' && typeof todo.content === 'string' && todo.content.trim().toLowerCase() === text,
      )
    )
      return true;
  }
  const named = [...item.matchAll(FILE_NAME)].map((match) => match[1] ?? '').filter((name) => name !== '');
  const changed = changedFiles(calls, at, cwd);
  if (
    named.length > 0 &&
    named.every((name) => changed.some((path) => path === resolvePath(name, cwd) || path.endsWith(`/${name}`)))
  )
    return true;
  if (TEST_ITEM.test(item) && testsPassedAfter(calls, at) === true) return true;
  const wanted = words(item);
  return requests.some((request) => {
    if (request.at <= at) return false;
    const shared = [...words(request.text)].filter((word) => wanted.has(word)).length;
    return (
      shared >= MIN_RESTATED_WORDS &&
      shared >= wanted.size * RESTATED_SHARE &&
      changedFiles(calls, request.at, cwd).length > 0 &&
      testsPassedAfter(calls, request.at) !== false
    );
  });
}

export interface FileEntry {
  /** The path as the first call named it. */
  path: string;
  status: FileStatus;
  /** The index in `calls` of the call that first touched it: entries keep that order. */
  order: number;
}

/**
 * Each file the calls touched, once, with its final status: deleted when last removed, created
 * when made in this session (Write's toolUseResult says create, or nothing read or changed it
 * first), edited when changed, written when replaced whole, read otherwise.
 */
export function fileEntries(calls: readonly Call[], cwd: string | null): Map<string, FileEntry> {
  const files = new Map<string, FileEntry>();
  calls.forEach((call, order) => {
    for (const { path, action, bash } of callFiles(call)) {
      const key = resolvePath(path, cwd);
      const known = files.get(key);
      if (action === 'deleted') {
        // A directory or a build output nobody touched is no file of the session.
        if (known === undefined && !/\.[A-Za-z]\w{0,7}$/.test(key)) continue;
        files.set(key, { path: known?.path ?? path, status: 'deleted', order: known?.order ?? order });
        continue;
      }
      const file = known ?? { path, status: 'read' as FileStatus, order };
      files.set(key, file);
      if (action === 'written') file.status = writtenStatus(call, file, order, bash);
      else if (action === 'edited' && file.status !== 'created') file.status = 'edited';
    }
  });
  return files;
}

/**
 * Created when Write's toolUseResult says so, or (without one) when nothing touched the file
 * before; a Bash write (`> f`, `tee`, `cp`) does not say whether the file was there: written.
 */
function writtenStatus(call: Call, file: FileEntry, order: number, bash: boolean): FileStatus {
  if (file.status === 'created' || file.status === 'deleted') return 'created';
  const meta = call.result?.meta;
  if (bash) return 'written';
  const created = isRecord(meta) && typeof meta.type === 'string' ? meta.type === 'create' : file.order === order;
  return created ? 'created' : 'written';
}

/**
 * Carried file lines merged into the new ones: a carried line about a file listed anew goes,
 * and what it said of the file (a compaction's or a model's description) stays on the new line.
 */
export function mergeCarriedFiles(
  carried: readonly string[],
  fresh: ReadonlyMap<string, unknown>,
  cwd: string | null,
): { carried: string[]; notes: Map<string, string[]> } {
  const notes = new Map<string, string[]>();
  const kept = carried.filter((line) => {
    const found = CARRIED_FILE.exec(line);
    const key = found?.[1] === undefined ? null : resolvePath(found[1], cwd);
    if (key === null || !fresh.has(key)) return true;
    const rest = found?.[2] ?? '';
    const note = OWN_STATUS.test(rest)
      ? rest.includes(EARLIER)
        ? rest.slice(rest.indexOf(EARLIER) + EARLIER.length)
        : ''
      : rest;
    if (note !== '') notes.set(key, [...new Set([...(notes.get(key) ?? []), note])]);
    return false;
  });
  return { carried: kept, notes };
}

export const earlierNote = (notes: readonly string[] | undefined) =>
  notes === undefined || notes.length === 0 ? '' : `${EARLIER}${notes.join('; ')}`;
