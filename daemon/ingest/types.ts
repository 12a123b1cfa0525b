/**
 * The vocabulary of a pass, shared by the files that make and read its parts: what a chunk's lines
 * came to (the parser, in the worker or inline), what a pass found and reported (the tailer, the
 * group pass, the backoff, the ingestor), what a commit tells its observer, and a file as the
 * scan and the watcher find it. Types only, so that a file low in ingest (the parser, the backoff,
 * the file identity) names them without importing the files that use it; and the ingestor as the
 * daemon's parts see it.
 */
import type { BadLineReason, BadValueReason } from '../../shared/protocol/events.js';
import type { IngestProgress, IngestStatus, WatcherStatus } from '../../shared/protocol/ingest.js';
import type { TranscriptFile } from '../../shared/transcript/layout.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { EntryParam } from '../store/entry-row.js';
import type { FileRow } from '../store/rows.js';
import type { SearchParam } from '../store/search-row.js';

/** A line skipped (BadLineReason), or kept without a bad value (BadValueReason). */
export interface BadLine {
  offset: number;
  length: number;
  reason: BadLineReason | BadValueReason;
}

/** A file as fstat saw it (dev and ino as strings: bigint stats, which a number would round). */
export interface FileIdentity {
  dev: string;
  ino: string;
  size: number;
}

/** What one chunk's complete lines came to. */
export interface ParsedChunk {
  /** INSERT parameters in ENTRY_COLUMNS order, `count` rows of them. */
  rows: EntryParam[];
  count: number;
  bad: BadLine[];
  /** File offset just past the last complete line seen so far in this pass. */
  completeOffset: number;
  /** The newest entry timestamp among the rows (canonical ISO strings compare as strings: timestamp.ts). */
  newest: string | null;
  /** Searchable texts of the lines (shared/search/text.ts), as (offset, kind, text) triples. */
  search: SearchParam[];
}

/** What the ingestor decides for a pass besides its file (pass-choices.ts). */
export interface PassChoices {
  /** A file read from its start leaves its search texts to the search index builder. */
  deferSearch?: boolean;
  /** Its commits' place among those waiting for a turn (commit-turn.ts): lower goes first. */
  commitRank?: number;
}

/** `absent`: missing and already known as gone (or never indexed). */
/** `outside`: a symlink that leads out of the projects dir (not ingested; DESIGN departure, docs/security.md). */
export type PassOutcome = 'caught-up' | 'yielded' | 'gone' | 'absent' | 'not-a-file' | 'outside';

export interface PassResult {
  outcome: PassOutcome;
  /** Rows or the gone flag changed. */
  changed: boolean;
  bytesRead: number;
  /** Inode and size up to which the file was read, when it was read to its end. */
  end: { ino: string; size: number } | null;
  /** The session the file is filed under (for a 2.0.x agent file, the one its entries name). */
  sessionId: string;
}

/** One commit of a pass, told to the ingestor right after its transaction. */
export interface CommitEvent {
  file: TranscriptFile;
  row: FileRow;
  entries: number;
  bad: readonly BadLine[];
  reset: boolean;
  bytesRead: number;
}

/** Shared by the tailers of one ingestor. */
export interface TailerCounters {
  /** Transcript bytes read by this process. */
  bytesRead: number;
  /** Bytes read to check a file's identity (head, last newline). */
  checkBytesRead: number;
}

/** A transcript as found on disk (scan, sweep), before any pass over it. */
export interface FoundFile {
  path: string;
  size: number;
  ino: string;
  /** When it last changed: the backfill reads the newest first. */
  mtimeMs?: number;
}

/**
 * Told of each commit inside its transaction, after the rows are written: what derives from the
 * rows (the sessions' aggregates) is kept in the same transaction, so a crash keeps both or neither.
 */
export interface CommitObserver {
  committed(rows: {
    sessionId: string;
    /** The session the file was filed under before this commit, when the commit moved it. */
    movedFrom?: string;
    path: string;
    agentId: string | null;
    /** The file's rows were replaced from its start (truncated or replaced). */
    reset: boolean;
    entries: readonly IndexedEntry[];
    /** The file's entries after the commit: equal to `entries.length` when these are all of them. */
    fileEntries: number;
    /** Nothing more is known to be in the file: the context is worth counting now if it must be. */
    complete: boolean;
  }): void;
  /** A file of the session was marked gone, in the transaction that marks it (its row as it was before). */
  gone(sessionId: string, file: FileRow): void;
}

/** What the daemon's parts ask of ingest (ingestor.ts createIngestor). */
export interface Ingestor {
  /** A file changed (or appeared, or went): read it soon. Non-transcript paths are ignored. */
  touch(path: string): void;
  /**
   * The files found at start (and those indexed but no longer found), read newest first.
   * `comingBytes`: never-read bytes this backfill is the first part of (sync hands another
   * machine's history over in batches as it decodes it), for the choice of deferring search texts.
   */
  backfill(files: readonly FoundFile[], missing: readonly string[], comingBytes?: number): void;
  /** progress.ts BackfillProgress.hold: a later backfill stays open (followers wait) until released. */
  holdBackfill(): () => void;
  /** Inode and size up to which a file was last read to its end, if it was. */
  lastRead(path: string): { ino: string; size: number } | undefined;
  /** Queued or being read now. */
  isPending(path: string): boolean;
  /** Failed (or the store fails), and read again on the backoff: the watcher need not re-check it. */
  isFailing(path: string): boolean;
  /** What the watcher reports of itself, for status. */
  setWatcher(watcher: Omit<WatcherStatus, 'since'>): void;
  progress(): IngestProgress;
  status(): IngestStatus;
  /** Resolves once nothing is queued or being read. */
  idle(): Promise<void>;
  /** Ends the running pass at its next chunk (what it read is committed) and reads nothing more. */
  stop(): Promise<void>;
}
