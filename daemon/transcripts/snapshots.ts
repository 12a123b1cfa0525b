/**
 * Claude Code's file checkpoints, read from its `file-history-snapshot` transcript entries. Pure:
 * the daemon reads the entries, this decides what they mean.
 *
 * What Claude Code writes (2.1.x; the `checkpoints` fixture shows every case): when a user message
 * is sent, an entry with `isSnapshotUpdate: false` opens the checkpoint of that message
 * (`snapshot.messageId`) with a backup of every file tracked so far, as it is at that moment (a new
 * `<hash>@v<N>` only when the file changed since its last backup, else the last one again). While
 * the turn runs, each file touched for the first time in the session adds an entry with
 * `isSnapshotUpdate: true` to that same checkpoint, carrying the whole map again plus the new file,
 * backed up just before the tool changed it. `backupFileName: null` means the file did not exist
 * then. So a checkpoint stands for the files as they were just before its message's turn changed
 * them.
 */
import { isRecord } from '../../shared/values.js';

/** One file's backup in one checkpoint, as recorded. */
export interface FileBackup {
  /** Relative to the session's cwd, or absolute. */
  path: string;
  version: number;
  /** Null when the file did not exist at the checkpoint. */
  backupFileName: string | null;
  backupTime: string;
}

/** One parsed `file-history-snapshot` entry. */
export interface SnapshotEntry {
  messageId: string;
  timestamp: string;
  isUpdate: boolean;
  files: FileBackup[];
}

/** The checkpoint of one user message, its entries merged. */
export interface RecordedCheckpoint {
  messageId: string;
  timestamp: string;
  /** By recorded path, in the order Claude Code first listed them. */
  files: Map<string, FileBackup>;
}

/** Prompts in `rewind.list` are for recognising the message, not for reading it whole. */
export const PROMPT_PREVIEW_CHARS = 200;

function backupOf(path: string, value: unknown): FileBackup | null {
  if (path === '' || !isRecord(value)) return null;
  const { backupFileName, version, backupTime } = value;
  if (backupFileName !== null && typeof backupFileName !== 'string') return null;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return null;
  return { path, version, backupFileName, backupTime: typeof backupTime === 'string' ? backupTime : '' };
}

/**
 * A transcript line as a snapshot entry; null when it is not one or lacks the checkpoint's message
 * id. A malformed file backup inside an otherwise good entry is left out, not the whole entry.
 */
export function parseSnapshotEntry(raw: unknown): SnapshotEntry | null {
  if (!isRecord(raw) || raw.type !== 'file-history-snapshot' || !isRecord(raw.snapshot)) return null;
  const { messageId, timestamp, trackedFileBackups } = raw.snapshot;
  if (typeof messageId !== 'string' || messageId === '') return null;
  const files: FileBackup[] = [];
  if (isRecord(trackedFileBackups)) {
    for (const [path, value] of Object.entries(trackedFileBackups)) {
      const backup = backupOf(path, value);
      if (backup !== null) files.push(backup);
    }
  }
  return {
    messageId,
    timestamp: typeof timestamp === 'string' ? timestamp : '',
    isUpdate: raw.isSnapshotUpdate === true,
    files,
  };
}

/**
 * Adds one entry to the checkpoints (by message id, in order of first appearance). Updates carry
 * the whole map, so a later entry's backup of a path replaces the earlier one.
 */
export function addSnapshot(checkpoints: Map<string, RecordedCheckpoint>, entry: SnapshotEntry): void {
  let checkpoint = checkpoints.get(entry.messageId);
  if (checkpoint === undefined) {
    checkpoint = { messageId: entry.messageId, timestamp: entry.timestamp, files: new Map() };
    checkpoints.set(entry.messageId, checkpoint);
  } else if (!entry.isUpdate && entry.timestamp !== '') {
    // The opening entry's time is the checkpoint's, should an update have come first.
    checkpoint.timestamp = entry.timestamp;
  }
  for (const file of entry.files) checkpoint.files.set(file.path, file);
}

/**
 * What restoring to the checkpoint at `index` puts back: for every file tracked at or after it,
 * the backup recorded in the earliest checkpoint from `index` on that lists the file.
 *
 * A file listed at the checkpoint goes back to that backup (its state when the message was sent).
 * A file first tracked later was not changed by Claude Code before that later turn (a change
 * would have tracked it), so its first backup is also its state at the checkpoint: it goes back to
 * that backup, or is deleted when that backup is null (the file did not exist yet). Claude Code's
 * own /rewind does the same (a file missing from the target checkpoint falls back to its first
 * version). Files tracked only
 * before the checkpoint are not in this set and stay as they are; Claude Code carries every
 * tracked file into each later checkpoint, so that happens only when its entries were lost.
 */
export function restoreTargets(checkpoints: readonly RecordedCheckpoint[], index: number): FileBackup[] {
  const targets = new Map<string, FileBackup>();
  for (const checkpoint of checkpoints.slice(index)) {
    for (const file of checkpoint.files.values()) if (!targets.has(file.path)) targets.set(file.path, file);
  }
  return [...targets.values()];
}

/** The text of a user entry's message, on one line and cut short; null when it has none. */
export function promptPreview(raw: unknown): string | null {
  if (!isRecord(raw) || !isRecord(raw.message)) return null;
  const { content } = raw.message;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = content
      .filter(isRecord)
      .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
      .join(' ');
  } else return null;
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  return line.length > PROMPT_PREVIEW_CHARS ? `${line.slice(0, PROMPT_PREVIEW_CHARS - 1)}…` : line;
}
