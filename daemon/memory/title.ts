/** A session's title as the session memory names it: the latest custom title, else the latest AI title. */
import type { IndexedEntry } from '../../shared/transcript/types.js';

export function sessionTitle(entries: readonly IndexedEntry[]): string | null {
  let custom: string | null = null;
  let ai: string | null = null;
  for (const entry of entries) {
    if (entry.title?.kind === 'custom') custom = entry.title.value;
    else if (entry.title?.kind === 'ai') ai = entry.title.value;
  }
  return custom ?? ai;
}
