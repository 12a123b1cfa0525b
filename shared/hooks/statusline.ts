/**
 * Claude Code's `statusLine` setting as `memctl install-statusline` merges it into a parsed
 * settings.json: `{ "statusLine": { "type": "command", "command": "...", "padding": 0 } }`. There is
 * one status line; another tool's is never replaced unless asked (`force`), and the answer says
 * how to show both. Pure, like settings.ts: the caller reads and writes the file.
 */
import { HookSettingsError, shellQuote } from './settings.js';

/** `memctl statusline` at the end of a command, memctl named as in settings.ts's hook pattern. */
const MEMD_STATUS_COMMAND = /(?:^|[\s'"/])memctl(?:\/main)?(?:\.[cm]?[jt]s)?['"]?\s+statusline\s*$/;

export function memdStatusLineCommand(nodePath: string, memctlMain: string): string {
  return `${shellQuote(nodePath)} ${shellQuote(memctlMain)} statusline`;
}

export function isMemdStatusLine(command: unknown): boolean {
  return typeof command === 'string' && MEMD_STATUS_COMMAND.test(command);
}

export interface StatusLineMergeResult {
  settings: Record<string, unknown>;
  changed: boolean;
  actions: string[];
  /** Another tool's status line command, left in place (install without `force`). */
  conflict: string | null;
}

/** How to show another status line and memd's together: one line, theirs first. */
export function combinedCommand(theirs: string, ours: string): string {
  return `input=$(cat); printf '%s' "$(printf '%s' "$input" | ${theirs} | head -n1) · $(printf '%s' "$input" | ${ours})"`;
}

function rootOf(settings: unknown): Record<string, unknown> {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    throw new HookSettingsError('the top level', 'is not an object; expected an object');
  return structuredClone(settings) as Record<string, unknown>;
}

function commandOf(statusLine: unknown): string | null {
  if (statusLine === undefined) return null;
  if (typeof statusLine !== 'object' || statusLine === null || Array.isArray(statusLine))
    throw new HookSettingsError('statusLine', 'is not an object; expected an object');
  const command = (statusLine as Record<string, unknown>).command;
  return typeof command === 'string' ? command : '';
}

export function installStatusLine(
  settings: unknown,
  command: string,
  options: { force: boolean },
): StatusLineMergeResult {
  const root = rootOf(settings);
  const current = commandOf(root.statusLine);
  const wanted = { type: 'command', command, padding: 0 };
  if (current !== null && !isMemdStatusLine(current) && !options.force)
    return { settings: root, changed: false, actions: [], conflict: current };
  const same = current !== null && JSON.stringify(root.statusLine) === JSON.stringify(wanted);
  if (same) return { settings: root, changed: false, actions: [], conflict: null };
  const action =
    current === null ? 'added' : isMemdStatusLine(current) ? 'updated' : `replaced ${JSON.stringify(current)} with`;
  root.statusLine = wanted;
  return { settings: root, changed: true, actions: [`${action} statusLine: ${command}`], conflict: null };
}

/** Removes memd's status line, and only memd's. */
export function uninstallStatusLine(settings: unknown): StatusLineMergeResult {
  const root = rootOf(settings);
  const current = commandOf(root.statusLine);
  if (current === null || !isMemdStatusLine(current))
    return { settings: root, changed: false, actions: [], conflict: null };
  delete root.statusLine;
  return { settings: root, changed: true, actions: [`removed statusLine: ${current}`], conflict: null };
}
