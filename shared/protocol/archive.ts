/**
 * `archive.*` (issue 18): memd's gzipped copy of every transcript, its sub-agent transcripts and its
 * persisted tool results, kept past Claude Code's cleanup; restored byte for byte on request.
 */
import { arrayOf, bool, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

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

/**
 * What memd holds of a session Claude Code deleted (issue 31): `kept` (the archive holds every byte
 * memd had read of each of its files, and each copy inflated whole), `partial` (some), `lost`
 * (none: the archive was off, or the file went before memd archived it), `checking` (not checked yet).
 */
export const DELETION_STATES = ['kept', 'partial', 'lost', 'checking'] as const;
export type DeletionState = (typeof DELETION_STATES)[number];

export interface DeletedSession {
  sessionId: string;
  project: string;
  projectName: string;
  title: string | null;
  /** When memd saw its last file go (ISO). */
  goneAt: string;
  /** Its transcripts that went (main and sub-agents), their bytes, and the bytes the archive holds of them. */
  files: number;
  bytes: number;
  heldBytes: number;
  state: DeletionState;
  /** Why it is not `kept`, in words (the first file's problem); null when kept or checking. */
  problem: string | null;
}

/** Deletions that came together (a cleanup, a purge: none more than DELETION_BURST_GAP_MS after the one before). */
export interface DeletionEvent {
  from: string;
  to: string;
  sessions: number;
  files: number;
  bytes: number;
  /** Sessions by state: kept, and not held whole (partial or lost), and not checked yet. */
  kept: number;
  notHeld: number;
  checking: number;
  /** The projects' names, as tables show them. */
  projects: string[];
}

export interface ArchiveDeletedResult {
  /** Newest first. */
  events: DeletionEvent[];
  /** Newest first, at most `limit`. */
  sessions: DeletedSession[];
  /** More sessions matched than `limit`. */
  truncated: boolean;
}

/** daemon.status's `deletions` (issue 31; an addition): every deletion on the record. */
export interface DeletionsStatus {
  sessions: number;
  files: number;
  bytes: number;
  /** Sessions memd did not hold whole when they went (partial or lost). */
  notHeld: number;
  checking: number;
  /** The newest burst of deletions; null when none is on the record. */
  last: DeletionEvent | null;
}

export const deletionEventSchema: Schema<DeletionEvent> = looseObject({
  from: str(),
  to: str(),
  sessions: num(),
  files: num(),
  bytes: num(),
  kept: num(),
  notHeld: num(),
  checking: num(),
  projects: arrayOf(str()),
});

export const deletedSessionSchema: Schema<DeletedSession> = looseObject({
  sessionId: str(),
  project: str(),
  projectName: str(),
  title: nullable(str()),
  goneAt: str(),
  files: num(),
  bytes: num(),
  heldBytes: num(),
  state: oneOf(...DELETION_STATES),
  problem: nullable(str()),
});

export const archiveDeletedResultSchema: Schema<ArchiveDeletedResult> = looseObject({
  events: arrayOf(deletionEventSchema),
  sessions: arrayOf(deletedSessionSchema),
  truncated: bool(),
});

export const deletionsStatusSchema: Schema<DeletionsStatus> = looseObject({
  sessions: num(),
  files: num(),
  bytes: num(),
  notHeld: num(),
  checking: num(),
  last: nullable(deletionEventSchema),
});
