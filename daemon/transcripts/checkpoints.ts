/**
 * A session's checkpoints, read from its main transcript. The index says where the
 * `file-history-snapshot` lines and the prompts of their messages are; only those lines are read
 * back, by offset and in batches, so memory grows with the checkpoints, not with the transcript.
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { type EntryRow, entryFromRow, selectEntries } from '../store/entry-row.js';
import { type IngestedFile, prepared } from '../store/rows.js';
import type { Slicer } from '../workers/slices.js';
import { mainTranscript } from './conversation.js';
import { readEntries } from './entries.js';
import { sessionFiles } from './queries.js';
import { addSnapshot, parseSnapshotEntry, promptPreview, type RecordedCheckpoint } from './snapshots.js';

/** Snapshot lines read back at once: each repeats the session's whole map of tracked files. */
const SNAPSHOT_BATCH = 256;

const SNAPSHOTS_SQL = selectEntries("WHERE e.file_id = ? AND e.type = 'file-history-snapshot' ORDER BY e.offset");
/** Claude Code resolves recorded paths against the cwd it started in: the session's first one. */
const FIRST_CWD_SQL = selectEntries(
  'WHERE e.file_id = ? AND (e.cwd IS NOT NULL OR e.cwd_id IS NOT NULL) ORDER BY e.offset LIMIT 1',
);
const PROMPTS_SQL = selectEntries(
  "WHERE e.file_id = ? AND e.type = 'user' AND e.uuid IN (SELECT value FROM json_each(?)) ORDER BY e.offset",
);

export interface SessionCheckpoints {
  sessionId: string;
  cwd: string | null;
  /** Oldest first. */
  checkpoints: RecordedCheckpoint[];
  /** Prompt preview by message id; absent when the message is not in the transcript. */
  prompts: Map<string, string | null>;
}

function changedUnderIndex(path: string, offset: number): RpcError {
  return new RpcError(
    ErrorCode.InvalidTranscript,
    'InvalidTranscript',
    `${path} changed at byte ${offset}; try again once memd has read it`,
    { path, offset },
  );
}

async function readCheckpoints(
  file: IngestedFile,
  rows: readonly EntryRow[],
  slicer: Slicer,
): Promise<RecordedCheckpoint[]> {
  const checkpoints = new Map<string, RecordedCheckpoint>();
  for (let start = 0; start < rows.length; start += SNAPSHOT_BATCH) {
    for (const { entry, raw } of await readEntries(
      file.path,
      rows.slice(start, start + SNAPSHOT_BATCH).map(entryFromRow),
      slicer,
    )) {
      if (raw.type !== 'file-history-snapshot') throw changedUnderIndex(file.path, entry.offset);
      const snapshot = parseSnapshotEntry(raw);
      if (snapshot !== null) addSnapshot(checkpoints, snapshot);
    }
  }
  return [...checkpoints.values()];
}

async function readPrompts(
  db: Database.Database,
  file: IngestedFile,
  messageIds: readonly string[],
  slicer: Slicer,
): Promise<Map<string, string | null>> {
  const rows = prepared(db, PROMPTS_SQL).all(file.id, JSON.stringify(messageIds)) as EntryRow[];
  const prompts = new Map<string, string | null>();
  for (const { entry, raw } of await readEntries(file.path, rows.map(entryFromRow), slicer)) {
    if (entry.uuid !== null && !prompts.has(entry.uuid)) prompts.set(entry.uuid, promptPreview(raw));
  }
  return prompts;
}

/** NotFound when the index has no main transcript of the session, or it was deleted. Lines are read back in slices. */
export async function loadSessionCheckpoints(
  db: Database.Database,
  sessionId: string,
  slicer: Slicer,
): Promise<SessionCheckpoints> {
  const { file, rows, cwd } = db.transaction(() => {
    const main = mainTranscript(sessionFiles(db, sessionId), sessionId);
    const first = prepared(db, FIRST_CWD_SQL).get(main.id) as EntryRow | undefined;
    return { file: main, rows: prepared(db, SNAPSHOTS_SQL).all(main.id) as EntryRow[], cwd: first?.cwd ?? null };
  })();
  if (file.gone)
    throw new RpcError(
      ErrorCode.NotFound,
      'NotFound',
      `the transcript of session ${sessionId} (${file.path}) was deleted`,
      { sessionId },
    );
  const checkpoints = await readCheckpoints(file, rows, slicer);
  const prompts =
    checkpoints.length === 0
      ? new Map<string, string | null>()
      : await readPrompts(
          db,
          file,
          checkpoints.map((checkpoint) => checkpoint.messageId),
          slicer,
        );
  return { sessionId, cwd, checkpoints, prompts };
}
