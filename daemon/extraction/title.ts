/** A session's title as the session memory names it: the one sessions.list shows (accounting.ts). */
import { sessionTitle as titleOfSession } from '../../shared/transcript/accounting.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

export function sessionTitle(entries: readonly IndexedEntry[]): string | null {
  return titleOfSession(entries.filter((entry) => !entry.isSidechain));
}
