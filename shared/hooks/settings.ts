/**
 * memd's Claude Code hooks, and how they are merged into (and taken out of) a parsed
 * settings.json: `hooks.<Event>[] = { matcher?, hooks: [{ type: "command", command, timeout }] }`.
 * Pure: the caller reads and writes the file, so `memctl install-hooks` and `memctl doctor` share
 * one definition of what "installed" means.
 *
 * The merge touches only memd's hooks. Everything else (other events, other entries of the same
 * event, other hooks beside ours in an entry, every other key and its order) is kept as it was.
 */

export const MEMD_HOOK_NAMES = [
  'pre-compact',
  'session-start',
  'post-compact',
  'turn-start',
  'turn-end',
  'turn-failed',
  'instructions-loaded',
  'tool-failed',
] as const;
export type MemdHookName = (typeof MEMD_HOOK_NAMES)[number];

export interface MemdHookSpec {
  readonly name: MemdHookName;
  /** Claude Code's event, the key under `hooks`. */
  readonly event: string;
  /** undefined: the entry has no `matcher` key (Claude Code then runs it for every trigger). */
  readonly matcher: string | undefined;
  /** Claude Code kills the command after this many seconds. */
  readonly timeoutSeconds: number;
  /**
   * The first Claude Code version with the event: settings.json's `hooks` is a record keyed by the
   * events a version knows, so an older one may refuse the whole file for a key it does not.
   */
  readonly since: string;
}

/**
 * The version whose hooks are installed when `claude --version` cannot be read: the one installed
 * here, which knows every event memd uses (checked in its binary's settings schema).
 */
export const DEFAULT_CLAUDE_CODE_VERSION = '2.1.197';

/** A handoff is written by a model call before the context goes; Claude Code waits for it. */
const PRE_COMPACT_TIMEOUT_S = 60;
/** Start and post-compact hooks only read a file the pre-compact hook already wrote. */
const QUICK_HOOK_TIMEOUT_S = 15;
/** The turn hooks give up on memd after 100 ms themselves; this only bounds a wedged node start. */
const TURN_HOOK_TIMEOUT_S = 5;

export const MEMD_HOOKS: readonly MemdHookSpec[] = [
  // "" matches both triggers, manual (/compact) and auto.
  { name: 'pre-compact', event: 'PreCompact', matcher: '', timeoutSeconds: PRE_COMPACT_TIMEOUT_S, since: '1.0.0' },
  // SessionStart's matcher would be tested against its `source` (startup, resume, clear, compact).
  // None is set: `memctl hook session-start` filters on `source` itself (compact and resume unless
  // MEMD_SESSION_START_SOURCES says otherwise), and a matcher here would silently override that
  // setting. The price is one node start-up (tens of ms) when a session starts or is cleared.
  {
    name: 'session-start',
    event: 'SessionStart',
    matcher: undefined,
    timeoutSeconds: QUICK_HOOK_TIMEOUT_S,
    since: '1.0.0',
  },
  // Print mode only: interactive /compact fires PreCompact but not PostCompact (issue 31), so what it
  // records is recorded by SessionStart(compact) too, and memd depends on neither alone.
  {
    name: 'post-compact',
    event: 'PostCompact',
    matcher: undefined,
    timeoutSeconds: QUICK_HOOK_TIMEOUT_S,
    since: '2.1.76',
  },
  // The main agent's turn, from the prompt to its end, holds the session-memory lock (DESIGN.md §6).
  {
    name: 'turn-start',
    event: 'UserPromptSubmit',
    matcher: undefined,
    timeoutSeconds: TURN_HOOK_TIMEOUT_S,
    since: '1.0.0',
  },
  { name: 'turn-end', event: 'Stop', matcher: undefined, timeoutSeconds: TURN_HOOK_TIMEOUT_S, since: '1.0.0' },
  // A session closed mid-turn (Ctrl-C twice, /exit) sends no Stop.
  { name: 'turn-end', event: 'SessionEnd', matcher: undefined, timeoutSeconds: TURN_HOOK_TIMEOUT_S, since: '1.0.0' },
  // A turn ended by an API error (413, rate limit) sends no Stop either: the lock goes at once, with why.
  {
    name: 'turn-failed',
    event: 'StopFailure',
    matcher: undefined,
    timeoutSeconds: TURN_HOOK_TIMEOUT_S,
    since: '2.1.78',
  },
  // Which CLAUDE.md and rule files are in context, so that memd can say which a compaction dropped.
  {
    name: 'instructions-loaded',
    event: 'InstructionsLoaded',
    matcher: undefined,
    timeoutSeconds: TURN_HOOK_TIMEOUT_S,
    since: '2.1.69',
  },
  // Issue 33: a failed call (a Bash command's non-zero exit, a tool's error; PostToolUse fires only
  // for calls that succeeded) gets a note when the same error was seen in another session. 2.1.197's
  // settings schema has the event; when it came is not known here, so the floor is set late (2.1.69,
  // early 2026, when users reported it firing): an older version is left without it, never refused.
  {
    name: 'tool-failed',
    event: 'PostToolUseFailure',
    matcher: undefined,
    timeoutSeconds: TURN_HOOK_TIMEOUT_S,
    since: '2.1.69',
  },
];

/** `2.1.197 (Claude Code)` → [2, 1, 197]; null when the text holds no version. */
export function parseClaudeVersion(text: string): [number, number, number] | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match === null ? null : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function atLeast(version: readonly number[], since: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) {
    const a = version[i] ?? 0;
    const b = since[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** memd's hooks that a Claude Code version knows; an unreadable version gets DEFAULT_CLAUDE_CODE_VERSION's. */
export function memdHooksFor(version: string | null): readonly MemdHookSpec[] {
  const parsed =
    (version === null ? null : parseClaudeVersion(version)) ?? parseClaudeVersion(DEFAULT_CLAUDE_CODE_VERSION);
  if (parsed === null) return MEMD_HOOKS;
  return MEMD_HOOKS.filter((spec) => atLeast(parsed, parseClaudeVersion(spec.since) ?? [0, 0, 0]));
}

/** The command line of each hook, as it goes into settings.json. */
export type MemdHookCommands = Readonly<Record<MemdHookName, string>>;

/** One argument for a POSIX shell: single-quoted, an embedded `'` written as `'\''`. */
export function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

/**
 * Absolute paths for both node and memctl's main script: hooks run with the PATH Claude Code was
 * started with, which need not contain either (nvm, a desktop launcher, a project-local install).
 */
export function memdHookCommands(nodePath: string, memctlMain: string): MemdHookCommands {
  const prefix = `${shellQuote(nodePath)} ${shellQuote(memctlMain)} hook`;
  return Object.fromEntries(MEMD_HOOK_NAMES.map((name) => [name, `${prefix} ${name}`])) as Record<MemdHookName, string>;
}

/**
 * `memctl hook <name>` at the end of a command, with memctl as a bare name, a path to the binary,
 * to bin/memctl.cjs, or to its main script in dist/, quoted or not. Matching on the ending, not the whole command, lets
 * an install from another checkout or another node be updated in place instead of duplicated.
 */
const MEMD_HOOK_COMMAND =
  /(?:^|[\s'"/])memctl(?:\/main)?(?:\.[cm]?[jt]s)?['"]?\s+hook\s+(pre-compact|session-start|post-compact|turn-start|turn-end|turn-failed|instructions-loaded|tool-failed)\s*$/;

/** Which of memd's hooks a command runs, or undefined when it is not one of memd's. */
export function memdHookName(command: unknown): MemdHookName | undefined {
  if (typeof command !== 'string') return undefined;
  return MEMD_HOOK_COMMAND.exec(command)?.[1] as MemdHookName | undefined;
}

/** The settings have a shape memd will not edit; `key` is where, e.g. `hooks.PreCompact[0].hooks`. */
export class HookSettingsError extends Error {
  override name = 'HookSettingsError';
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`${key} ${reason}`);
  }
}

export interface HookMergeResult {
  settings: Record<string, unknown>;
  changed: boolean;
  /** One line per change, e.g. `added PreCompact hook: 'node' '…/main.js' hook pre-compact`. */
  actions: string[];
}

type JsonObject = Record<string, unknown>;
interface Entry extends JsonObject {
  hooks: JsonObject[];
}
interface Found {
  entry: Entry;
  hook: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'is missing';
  if (value === null) return 'is null';
  if (Array.isArray(value)) return 'is an array';
  return typeof value === 'object' ? 'is an object' : `is a ${typeof value}`;
}

function expected(key: string, value: unknown, wanted: string): HookSettingsError {
  return new HookSettingsError(key, `${describeValue(value)}; expected ${wanted}`);
}

/** A copy of the settings, and its `hooks` checked to be an object (undefined when absent). */
function cloneSettings(settings: unknown): { root: JsonObject; hooks: JsonObject | undefined } {
  if (!isObject(settings)) throw expected('the top level', settings, 'an object');
  const root = structuredClone(settings);
  if (root.hooks === undefined) return { root, hooks: undefined };
  if (!isObject(root.hooks)) throw expected('hooks', root.hooks, 'an object');
  return { root, hooks: root.hooks };
}

/** The entries of one event, every level checked; undefined when the event is absent. */
function readEvent(hooks: JsonObject, event: string): Entry[] | undefined {
  const entries = hooks[event];
  if (entries === undefined) return undefined;
  const key = `hooks.${event}`;
  if (!Array.isArray(entries)) throw expected(key, entries, 'an array');
  entries.forEach((entry: unknown, i) => {
    if (!isObject(entry)) throw expected(`${key}[${i}]`, entry, 'an object');
    if (!Array.isArray(entry.hooks)) throw expected(`${key}[${i}].hooks`, entry.hooks, 'an array');
    entry.hooks.forEach((hook: unknown, j) => {
      if (!isObject(hook)) throw expected(`${key}[${i}].hooks[${j}]`, hook, 'an object');
    });
  });
  return entries as Entry[];
}

function findMemdHooks(entries: Entry[], accept: (name: MemdHookName) => boolean): Found[] {
  const found: Found[] = [];
  for (const entry of entries) {
    for (const hook of entry.hooks) {
      const name = memdHookName(hook.command);
      if (name !== undefined && accept(name)) found.push({ entry, hook });
    }
  }
  return found;
}

/** No matcher and "" both mean every trigger to Claude Code. */
function sameMatcher(actual: unknown, wanted: string | undefined): boolean {
  return (actual ?? '') === (wanted ?? '');
}

function newEntry(spec: MemdHookSpec, command: string): Entry {
  const hook = { type: 'command', command, timeout: spec.timeoutSeconds };
  return spec.matcher === undefined ? { hooks: [hook] } : { matcher: spec.matcher, hooks: [hook] };
}

/**
 * Takes hooks out of their entries, then drops entries this emptied, and the event when it is
 * left with none. Entries that were empty before are not ours to tidy.
 */
function removeHooks(hooks: JsonObject, event: string, entries: Entry[], found: Found[]): void {
  const emptied = new Set<Entry>();
  for (const { entry, hook } of found) {
    entry.hooks.splice(entry.hooks.indexOf(hook), 1);
    if (entry.hooks.length === 0) emptied.add(entry);
  }
  const kept = entries.filter((entry) => !emptied.has(entry));
  if (kept.length === 0) delete hooks[event];
  else if (kept.length !== entries.length) hooks[event] = kept;
}

/** Brings the one memd hook we keep to the spec; returns what had to change. */
function updateHook(hooks: JsonObject, spec: MemdHookSpec, command: string, { entry, hook }: Found): string[] {
  const changes: string[] = [];
  if (hook.type !== 'command') changes.push('type');
  if (hook.command !== command) changes.push('command');
  if (hook.timeout !== spec.timeoutSeconds) changes.push('timeout');
  // Assigning existing keys keeps their place in the object, so the file's order survives.
  hook.type = 'command';
  hook.command = command;
  hook.timeout = spec.timeoutSeconds;
  if (sameMatcher(entry.matcher, spec.matcher)) return changes;
  changes.push('matcher');
  if (entry.hooks.length === 1) {
    if (spec.matcher === undefined) delete entry.matcher;
    else entry.matcher = spec.matcher;
    return changes;
  }
  // The entry's matcher is someone else's too: move our hook to an entry of its own.
  entry.hooks.splice(entry.hooks.indexOf(hook), 1);
  (hooks[spec.event] as Entry[]).push({ ...newEntry(spec, command), hooks: [hook] });
  return changes;
}

/** Adds one of memd's hooks, or brings an older install of it up to date; returns what it did. */
function installOne(hooks: JsonObject, spec: MemdHookSpec, command: string): string[] {
  const entries = readEvent(hooks, spec.event);
  if (entries === undefined) {
    hooks[spec.event] = [newEntry(spec, command)];
    return [`added ${spec.event} hook: ${command}`];
  }
  const [keep, ...duplicates] = findMemdHooks(entries, (name) => name === spec.name);
  if (keep === undefined) {
    entries.push(newEntry(spec, command));
    return [`added ${spec.event} hook: ${command}`];
  }
  const actions = duplicates.map(({ hook }) => `removed duplicate ${spec.event} hook: ${String(hook.command)}`);
  removeHooks(hooks, spec.event, entries, duplicates);
  const changes = updateHook(hooks, spec, command, keep);
  if (changes.length > 0) actions.push(`updated ${spec.event} hook (${changes.join(', ')}): ${command}`);
  return actions;
}

/** Takes out memd's hook of one spec, for a version that does not know its event. */
function removeOne(hooks: JsonObject, spec: MemdHookSpec): string[] {
  const entries = readEvent(hooks, spec.event);
  if (entries === undefined) return [];
  const found = findMemdHooks(entries, (name) => name === spec.name);
  removeHooks(hooks, spec.event, entries, found);
  return found.map(({ hook }) => `removed ${spec.event} hook (unknown to this Claude Code): ${String(hook.command)}`);
}

/**
 * Adds memd's hooks that `specs` names (memdHooksFor the running version), or brings an older
 * install of them up to date, and takes out memd's hooks of events the version does not know.
 * Installing twice changes nothing.
 */
export function installHooks(
  settings: unknown,
  commands: MemdHookCommands,
  specs: readonly MemdHookSpec[] = MEMD_HOOKS,
): HookMergeResult {
  const { root, hooks: existing } = cloneSettings(settings);
  const hooks = existing ?? {};
  const actions = MEMD_HOOKS.flatMap((spec) =>
    specs.includes(spec) ? installOne(hooks, spec, commands[spec.name]) : removeOne(hooks, spec),
  );
  if (existing === undefined) root.hooks = hooks;
  return { settings: root, changed: actions.length > 0, actions };
}

/** Removes memd's hooks and nothing else; `hooks` itself goes when nothing is left in it. */
export function uninstallHooks(settings: unknown): HookMergeResult {
  const { root, hooks } = cloneSettings(settings);
  const actions: string[] = [];
  if (hooks === undefined) return { settings: root, changed: false, actions };
  for (const event of new Set(MEMD_HOOKS.map((spec) => spec.event))) {
    const entries = readEvent(hooks, event);
    if (entries === undefined) continue;
    const found = findMemdHooks(entries, () => true);
    if (found.length === 0) continue;
    removeHooks(hooks, event, entries, found);
    for (const { hook } of found) actions.push(`removed ${event} hook: ${String(hook.command)}`);
  }
  if (actions.length > 0 && Object.keys(hooks).length === 0) delete root.hooks;
  return { settings: root, changed: actions.length > 0, actions };
}

export type MemdHookState = 'installed' | 'outdated' | 'missing';

/** Each of memd's hooks as the settings have it, for `memctl doctor`. Throws as installHooks does. */
export function memdHookStates(
  settings: unknown,
  commands: MemdHookCommands,
  specs: readonly MemdHookSpec[] = MEMD_HOOKS,
): { spec: MemdHookSpec; state: MemdHookState }[] {
  const { hooks } = cloneSettings(settings);
  return specs.map((spec) => {
    const entries = hooks ? readEvent(hooks, spec.event) : undefined;
    if (entries === undefined || findMemdHooks(entries, (name) => name === spec.name).length === 0)
      return { spec, state: 'missing' };
    // installOne edits what it is given: let it work on a copy and only count what it would do.
    const wouldChange = installOne(structuredClone(hooks) as JsonObject, spec, commands[spec.name]).length > 0;
    return { spec, state: wouldChange ? 'outdated' : 'installed' };
  });
}

/** settings.json as Claude Code writes it: 2-space indentation and a final newline. */
export function formatSettings(settings: unknown): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}
