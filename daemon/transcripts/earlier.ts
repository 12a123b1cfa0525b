/**
 * The file facts of a session's calls before its active conversation (issue 32): a compaction
 * hides what came before its compact_boundary from the conversation the offline summarizers
 * read, yet a file edited before it is still a file changed in this session. Those calls are read
 * back from the main transcript with bounded memory and time, as the handoff's reader does
 * (slim.ts): only the assistant entries that call a file tool or Bash, each cut to the paths and
 * the command of those calls, and the results of those calls, stubbed to their id and status
 * from the index (Write's read for whether it created the file). One line per step: a worker
 * reads them at once, the daemon in slices of its event loop. A session without a compaction
 * reads nothing more.
 */
import type { ActiveConversation } from '../../shared/transcript/conversation.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { isRecord } from '../../shared/values.js';
import { createSlicer, runNow, runSliced, type Steps } from '../workers/slices.js';
import { MAX_COMMAND_CHARS } from './bash-paths.js';
import { keptSteps, type LoadedEntry } from './entries.js';
import { type Call, FILE_TOOLS, resultOf } from './facts.js';
import { MAX_ENTRY_BYTES, slimMeta, stub } from './slim.js';

/** The calls whose inputs name files: the file tools, and Bash by its command (bash-paths.ts). */
const FILE_CALLS: ReadonlySet<string> = new Set([...Object.keys(FILE_TOOLS), 'Bash']);
/** Entries chosen or paired per step: a few milliseconds of work. */
const STEP_ENTRIES = 500;
/** What names a call's files; a longer command names none (bash-paths.ts), so it is not kept. */
const PATH_INPUTS = ['file_path', 'notebook_path', 'command'];

export interface EarlierEntry {
  entry: IndexedEntry;
  /** Its line is read (a call's input, Write's result); otherwise its index row says enough (a result's status). */
  read: boolean;
}

/**
 * The entries of the main transcript before its active conversation that carry file facts, in
 * file order; `active` is the active conversation of these `entries`. None without a boundary.
 * Entries of the active conversation (a preserved segment) and sub-agent entries are not among them.
 */
export function earlierEntries(entries: readonly IndexedEntry[], active: ActiveConversation): EarlierEntry[] {
  return runNow(chooseSteps(entries, active));
}

function* chooseSteps(entries: readonly IndexedEntry[], active: ActiveConversation): Steps<EarlierEntry[]> {
  const boundary = active.boundary;
  if (boundary === null) return [];
  const kept = new Set(active.entries);
  const names = new Map<string, string>();
  const chosen: EarlierEntry[] = [];
  for (const [at, entry] of entries.entries()) {
    if (entry.offset >= boundary.offset) break;
    if (at % STEP_ENTRIES === 0) yield;
    if (kept.has(entry) || entry.isSidechain) continue;
    if (entry.type === 'assistant') {
      const calls = entry.toolUses.filter((use) => FILE_CALLS.has(use.name));
      for (const use of calls) names.set(use.id, use.name);
      // A line past MAX_ENTRY_BYTES (a Write of a huge file) is not read: its call names no file.
      if (calls.length > 0 && entry.length <= MAX_ENTRY_BYTES) chosen.push({ entry, read: true });
    } else if (entry.type === 'user') {
      const results = entry.toolResults.filter((result) => names.has(result.id));
      if (results.length === 0) continue;
      const written = results.some((result) => !result.isError && names.get(result.id) === 'Write');
      chosen.push({ entry, read: written && entry.length <= MAX_ENTRY_BYTES });
    }
  }
  return chosen;
}

function pathInputs(input: unknown): Record<string, string> {
  if (!isRecord(input)) return {};
  return Object.fromEntries(
    PATH_INPUTS.flatMap((key) => {
      const value = input[key];
      return typeof value === 'string' && value.length <= MAX_COMMAND_CHARS ? [[key, value]] : [];
    }),
  );
}

/** A read line as little as its file facts need: the file calls' paths and commands, Write's kind. */
function keepFileFacts({ entry, raw }: LoadedEntry): LoadedEntry {
  if (entry.type !== 'assistant')
    return { entry, raw: { ...stub(entry).raw, toolUseResult: slimMeta(raw.toolUseResult) } };
  const message = isRecord(raw.message) ? raw.message : {};
  const blocks = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  const content = blocks
    .filter((block) => block.type === 'tool_use' && typeof block.name === 'string' && FILE_CALLS.has(block.name))
    .map((block) => ({ type: 'tool_use', id: block.id, name: block.name, input: pathInputs(block.input) }));
  return { entry, raw: { type: raw.type, uuid: raw.uuid, message: { role: 'assistant', content } } };
}

function* earlierSteps(path: string, entries: readonly IndexedEntry[], active: ActiveConversation): Steps<Call[]> {
  const chosen = yield* chooseSteps(entries, active);
  if (chosen.length === 0) return [];
  const read = yield* keptSteps(
    path,
    chosen.filter((item) => item.read).map((item) => item.entry),
    keepFileFacts,
  );
  // The calls with their results, as readTranscript pairs them, a step at a time: a session may hold thousands.
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  let next = 0;
  for (let at = 0; at < chosen.length; at += STEP_ENTRIES) {
    const part = chosen
      .slice(at, at + STEP_ENTRIES)
      .map((item) => (item.read ? (read[next++] as LoadedEntry) : stub(item.entry)));
    calls.push(...pairCalls(part, at, byId));
    yield;
  }
  return calls;
}

/** The calls of `part` (at `offset` of the whole), each result given to its call: `byId` holds the calls so far. */
function pairCalls(part: readonly LoadedEntry[], offset: number, byId: Map<string, Call>): Call[] {
  const found: Call[] = [];
  part.forEach(({ entry, raw }, index) => {
    const content = isRecord(raw.message) && Array.isArray(raw.message.content) ? raw.message.content : [];
    for (const block of content.filter(isRecord)) {
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        const call: Call = {
          name: block.name,
          input: isRecord(block.input) ? block.input : {},
          at: offset + index,
          result: null,
          cwd: entry.cwd ?? null,
        };
        byId.set(block.id, call);
        found.push(call);
      } else if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
        const call = byId.get(block.tool_use_id);
        if (call !== undefined) call.result = resultOf(block, raw.toolUseResult, offset + index, call.name);
      }
    }
  });
  return found;
}
/**
 * The file calls before the active conversation, with their results, read at once (a worker, a
 * test). Their `at` indexes nothing the caller holds: only the files they touched are for use.
 */
export function loadEarlierCalls(path: string, entries: readonly IndexedEntry[], active: ActiveConversation): Call[] {
  return runNow(earlierSteps(path, entries, active));
}

/** The same, in slices of the event loop (the daemon's main thread); stops when `signal` aborts. */
export function readEarlierCalls(
  path: string,
  entries: readonly IndexedEntry[],
  active: ActiveConversation,
  signal?: AbortSignal,
): Promise<Call[]> {
  return runSliced(earlierSteps(path, entries, active), createSlicer(signal));
}
