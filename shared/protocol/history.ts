/** Results of `history.list`: Claude Code's prompt history (`<claude root>/history.jsonl`). */
export interface HistoryPaste {
  /** The paste's number in the prompt (`[Pasted text #1 ...]`). */
  id: number;
  type: 'text' | 'image';
  /** The text: inline in history.jsonl, or read from `paste-cache/<hash>.txt`; null when missing. */
  content: string | null;
  /** The paste-cache hash when the content is stored there. */
  contentHash: string | null;
  /** True when the paste refers to a paste-cache file that is not there (never an error). */
  missing: boolean;
  chars: number | null;
}

export interface HistoryEntry {
  display: string;
  /** ISO time. */
  timestamp: string;
  /** The project's root path, as Claude Code records it. */
  project: string;
  sessionId: string | null;
  pastes: HistoryPaste[];
}

export interface HistoryListResult {
  /** Newest first. */
  entries: HistoryEntry[];
  /** Pass as `before` for the next (older) page; null when there is no more. */
  nextBefore: string | null;
  /** Lines that are not valid history entries (torn, corrupt), skipped and counted. */
  badLines: number;
}
