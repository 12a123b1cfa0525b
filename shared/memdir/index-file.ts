/**
 * `MEMORY.md`, the index of a memory dir: one line per memory, its link and its description,
 * newest first. It is loaded into the agent's context, so it is capped (Claude Code's limits):
 * when the memories do not fit, the oldest are left out and a last line says how many.
 */
export const INDEX_FILE = 'MEMORY.md';
/** Claude Code reads at most this many lines of MEMORY.md into the context. */
export const INDEX_MAX_LINES = 200;
/** ...and at most this many characters. */
export const INDEX_MAX_CHARS = 25_000;

export interface IndexedMemory {
  name: string;
  description: string;
  /** ISO; newest first in the index. */
  updated: string;
}

export interface BuiltIndex {
  text: string;
  lines: number;
  chars: number;
  /** Memories left out, the oldest. */
  dropped: number;
}

/** A markdown link target: angle brackets keep spaces and parentheses in the path intact. */
function target(name: string): string {
  const file = `${name}.md`;
  return /[\s()<>]/.test(file) ? `<${file}>` : file;
}

export function indexLine(memory: IndexedMemory): string {
  const label = memory.name.replace(/[[\]\\]/g, '\\$&');
  const description = memory.description.replace(/\s+/g, ' ').trim();
  return `- [${label}](${target(memory.name)})${description === '' ? '' : ` — ${description}`}`;
}

const droppedNote = (count: number) =>
  `- … ${count} older ${count === 1 ? 'memory is' : 'memories are'} not listed here (the index is full); their files are in this directory.`;

export function buildIndex(memories: readonly IndexedMemory[]): BuiltIndex {
  const ordered = [...memories].sort((a, b) =>
    a.updated === b.updated ? a.name.localeCompare(b.name) : a.updated < b.updated ? 1 : -1,
  );
  const lines = ordered.map(indexLine);
  const size = (kept: string[]) => kept.reduce((sum, line) => sum + line.length + 1, 0);
  let kept = lines;
  // Take lines off the end (the oldest) until what is kept, plus the note about the rest, fits.
  while (kept.length > 0) {
    const dropped = lines.length - kept.length;
    const withNote = dropped === 0 ? kept : [...kept, droppedNote(dropped)];
    if (withNote.length <= INDEX_MAX_LINES && size(withNote) <= INDEX_MAX_CHARS) {
      kept = withNote;
      break;
    }
    kept = kept.slice(0, -1);
  }
  if (kept.length === 0 && lines.length > 0) kept = [droppedNote(lines.length)];
  const dropped = lines.length - kept.filter((line) => !line.startsWith('- … ')).length;
  const text = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  return { text, lines: kept.length, chars: text.length, dropped };
}
