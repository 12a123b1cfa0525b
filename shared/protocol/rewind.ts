/**
 * Results of rewind.*: file checkpoints from a session's `file-history-snapshot` entries and the
 * backups Claude Code keeps under `<claude root>/file-history/<sessionId>/<hash>@v<N>`.
 */
export interface CheckpointFile {
  /** As recorded: relative to the session's cwd (or absolute). */
  path: string;
  /** The backup's version. */
  version: number;
  /** The backup file's name; null when the file did not exist at the checkpoint. */
  backupFileName: string | null;
  backupTime: string;
  /** False when the backup file is not on disk (then the file cannot be restored). */
  backupPresent: boolean;
}

export interface Checkpoint {
  /** The user message the checkpoint was taken before. */
  messageId: string;
  timestamp: string;
  /** That message's prompt text, cut short; null when it is not in the transcript. */
  prompt: string | null;
  files: CheckpointFile[];
  /**
   * Files a restore to this checkpoint needs whose backup is no longer on disk (newer Claude Code
   * versions prune superseded backups): the restore leaves them as they are. Empty when the
   * checkpoint can be restored whole (an addition, issue 31; a memd before it does not send it).
   */
  goneFiles: string[];
}

export interface RewindListResult {
  sessionId: string;
  cwd: string | null;
  /** Oldest first. */
  checkpoints: Checkpoint[];
}

export type RewindAction = 'write' | 'delete' | 'unchanged' | 'missing-backup';

export interface RewindFileChange {
  /** Absolute path. */
  path: string;
  action: RewindAction;
  /** Sizes before and after; null when the file is (or will be) absent. */
  bytesBefore: number | null;
  bytesAfter: number | null;
}

export interface RewindRestoreResult {
  sessionId: string;
  messageId: string;
  dryRun: boolean;
  files: RewindFileChange[];
  /** Restores the files as they were before this restore (`rewind.undo`); null for a dry run or nothing changed. */
  undoId: string | null;
}

export interface RewindUndoResult {
  undoId: string;
  dryRun: boolean;
  files: RewindFileChange[];
}
