/**
 * `archive.*` (issue 18): memd's gzipped copy of every transcript, its sub-agent transcripts and its
 * persisted tool results, kept past Claude Code's cleanup; restored byte for byte on request.
 */
import { bool, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

export const ARCHIVE_STATES = ['off', 'waiting', 'catching-up', 'live', 'stopped'] as const;
export type ArchiveState = (typeof ARCHIVE_STATES)[number];

export interface ArchiveStatus {
  enabled: boolean;
  /** `waiting`: for the backfill to finish; `catching-up`: archiving the history found at start; `stopped`: see `reason`. */
  state: ArchiveState;
  /** Why archiving stopped (a full disk, the size cap); null otherwise. */
  reason: string | null;
  sessions: number;
  files: number;
  /** The archive's size on disk, and the source bytes it holds. */
  archiveBytes: number;
  sourceBytes: number;
  /** Committed transcript bytes not archived yet (a live transcript's are batched). */
  pendingBytes: number;
  failures: number;
}

export const archiveStatusSchema: Schema<ArchiveStatus> = looseObject({
  enabled: bool(),
  state: oneOf(...ARCHIVE_STATES),
  reason: nullable(str()),
  sessions: num(),
  files: num(),
  archiveBytes: num(),
  sourceBytes: num(),
  pendingBytes: num(),
  failures: num(),
});

export interface ArchivedSession {
  sessionId: string;
  project: string;
  /** The name tables show for the project (`shop`; issue 28), the folder's when none is known. */
  projectName: string;
  title: string | null;
  files: number;
  sourceBytes: number;
  archiveBytes: number;
  /** When the archive last took bytes of the session (ISO). */
  archivedAt: string;
  /** The main transcript is no longer where Claude Code keeps it: the archive is the only copy. */
  transcriptGone: boolean;
  /** `archive.prune` removed its copy. */
  pruned: boolean;
}

export interface ArchiveListResult {
  sessions: ArchivedSession[];
  nextCursor: string | null;
  status: ArchiveStatus;
}

export interface ArchiveRestoreResult {
  sessionId: string;
  files: { path: string; bytes: number; action: 'restored' | 'present' }[];
}

export interface ArchiveVerifyResult {
  checked: number;
  ok: number;
  problems: { path: string; archivePath: string; problem: string }[];
}

export interface ArchivePruneResult {
  dryRun: boolean;
  sessions: string[];
  freedBytes: number;
}

export interface ArchiveForgetResult {
  sessionId: string;
  /** What was removed: index rows (entries), search texts, archived files, session memory files, Claude Code's own files, lines of memd's log files. */
  removed: {
    entries: number;
    searchTexts: number;
    archivedFiles: number;
    sessionMemory: number;
    transcripts: number;
    logLines: number;
  };
}
