/** The prompt history as `memctl history` prints it: one row per prompt, newest first. */
import type { HistoryEntry, HistoryListResult } from '../../../shared/protocol/history.js';
import type { Output } from '../output.js';

/** Without a terminal (a pipe, a file) rows are cut here, so they still read as one line each. */
export const DEFAULT_WIDTH = 100;
/** Below this a display would be cut to nothing useful; wider rows wrap instead. */
const MIN_DISPLAY_CHARS = 20;
const PROJECT_CHARS = 20;
const GAP = '  ';

const pad2 = (value: number) => String(value).padStart(2, '0');

/** Local time to the minute: the prompt's moment, not its precision, is what a reader wants. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${pad2(date.getHours())}:${pad2(date.getMinutes())}`;
}

function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** The last two folders of the project's path: enough to tell projects apart in a narrow column. */
function shortProject(project: string): string {
  return project.split('/').filter(Boolean).slice(-2).join('/') || project;
}

function pasteNote(entry: HistoryEntry): string {
  const count = entry.pastes.length;
  const missing = entry.pastes.filter((paste) => paste.missing).length;
  if (count === 0) return '';
  if (count === 1 && missing === 1) return '(paste missing)';
  const note = `+${count} paste${count === 1 ? '' : 's'}`;
  return missing === 0 ? note : `${note} (${missing} missing)`;
}

export function renderHistory(result: HistoryListResult, out: Output, width = DEFAULT_WIDTH): string[] {
  if (result.entries.length === 0) return [out.dim('no prompts in the history')];
  const lines = result.entries.map((entry) => {
    const time = formatTime(entry.timestamp);
    const project = cut(shortProject(entry.project), PROJECT_CHARS).padEnd(PROJECT_CHARS);
    const note = pasteNote(entry);
    const tail = note === '' ? '' : `${GAP}${note}`;
    const room = Math.max(MIN_DISPLAY_CHARS, width - time.length - PROJECT_CHARS - 2 * GAP.length - tail.length);
    // A prompt can span lines; one row per prompt keeps the list scannable.
    const display = cut(entry.display.replace(/\s+/g, ' ').trim(), room);
    return `${out.dim(time)}${GAP}${project}${GAP}${display}${tail === '' ? '' : out.dim(tail)}`;
  });
  if (result.badLines > 0)
    lines.push(
      out.dim(`${result.badLines} unreadable line${result.badLines === 1 ? '' : 's'} of history.jsonl skipped`),
    );
  if (result.nextBefore !== null) lines.push(out.dim(`older prompts: run again with --before ${result.nextBefore}`));
  return lines;
}
