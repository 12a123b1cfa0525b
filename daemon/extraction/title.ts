/** A session's title as the session memory names it: the one sessions.list shows (accounting.ts), redacted (issue 27). */
import { redactSecrets } from '../../shared/text/redact.js';
import { sessionTitle as titleOfSession } from '../../shared/transcript/accounting.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

export function sessionTitle(entries: readonly IndexedEntry[]): string | null {
  const title = titleOfSession(entries.filter((entry) => !entry.isSidechain));
  // Entries indexed by older versions hold their titles as they were typed.
  return title === null ? null : redactSecrets(title);
}
