/**
 * `archive.forget`: a session removed from everywhere memd keeps it, for people who must delete
 * data: its rows (entries, files, accounting, extraction jobs and spend, compactions, handoff
 * checks), its search texts, its archive, the session memory memd wrote, and the rewind undo
 * points of its files. SQLite's freed pages are zeroed (secure_delete), the search index's pages
 * that held its words are merged away, and the WAL is emptied, so that the session's text is not
 * left in memd's state dir. Claude Code's own files are deleted only when asked (else a transcript
 * still there would be read again at once, and forget refuses). Last, memd's own log files lose every
 * line naming the session (the log is in the state dir too).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { sessionMemoryDir, syncedTranscriptsDir, undoRoot } from '../../shared/paths.js';
import type { ArchiveForgetResult } from '../../shared/protocol/archive.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { tombstoneKey } from '../../shared/sync/tombstone.js';
import { readUndoPoint, removeUndoPoint } from '../memory/rewind/undo-store.js';
import { createSearchWriter } from '../store/search-writer.js';
import { sessionArchiveDir } from './layout.js';

/** Index pages merged per turn of the event loop (each step ~1-20 ms at a heavy user's scale). */
const MERGE_PAGES = 16;
/** A bound on the merge turns: the index is merged whole far sooner. */
const MAX_MERGE_STEPS = 100_000;

const SESSION_TABLES = [
  'session_aggregates',
  'session_responses',
  'memory_jobs',
  'memory_extractions',
  'memory_spend',
  'handoff_injections',
  'compact_records',
  'archive_files',
  'session_windows',
  'deleted_files',
  'session_memory_writers',
] as const;

export interface ForgetDeps {
  db: Database.Database;
  projectsDir: string;
  stateDir: string;
  /** Stops what works on the session (a running extraction) before its rows go. */
  stopWork(sessionId: string): Promise<void>;
  /** Drops what the daemon keeps in memory of the session (caches). */
  forgetInMemory(sessionId: string): void;
  /** In the same transaction, once the session's files rows are gone: what other domains derived from them. */
  dropDerived(): void;
  /** Takes the lines naming the session out of memd's log files; the number removed. */
  scrubLogs(sessionId: string): number;
  /**
   * This machine's device id (issue 35): the forget is recorded as a tombstone that the sync
   * folder carries to the other machines, and that keeps their copies from being read again here.
   */
  deviceId: string;
}

export async function forgetSession(
  deps: ForgetDeps,
  sessionId: string,
  deleteTranscripts: boolean,
): Promise<ArchiveForgetResult> {
  const { db } = deps;
  const files = db
    .prepare('SELECT id, path, project, gone, entries, device FROM files WHERE session_id = ?')
    .all(sessionId) as {
    id: number;
    path: string;
    project: string;
    gone: number;
    entries: number;
    device: string | null;
  }[];
  // Other machines' copies (issue 35) are memd's own, decoded in its state dir: they go without asking.
  const synced = files.filter((file) => file.device !== null);
  const projects = new Set(files.map((file) => file.project));
  for (const row of db
    .prepare('SELECT DISTINCT project FROM archive_files WHERE session_id = ?')
    .pluck()
    .all(sessionId) as string[])
    projects.add(row);
  if (files.length === 0 && projects.size === 0)
    throw new RpcError(ErrorCode.NotFound, 'NotFound', `memd knows no session ${sessionId}`, { sessionId });
  const present = files.filter((file) => file.gone === 0 && file.device === null);
  if (present.length > 0 && !deleteTranscripts) {
    throw new RpcError(
      ErrorCode.Conflict,
      'Conflict',
      `${present[0]?.path} still exists: memd would read it again. Delete it first, or ask to delete Claude Code's files too (memctl archive forget --delete-transcripts)`,
      {
        paths: present.map((file) => file.path),
      },
    );
  }
  const removed = { entries: 0, searchTexts: 0, archivedFiles: 0, sessionMemory: 0, transcripts: 0, logLines: 0 };
  if (deleteTranscripts) {
    for (const file of present) {
      await rm(file.path, { force: true });
      removed.transcripts += 1;
    }
  }

  await deps.stopWork(sessionId);
  const search = createSearchWriter(db);
  // The store runs with secure_delete on (store/db.ts): what is deleted here is zeroed.
  db.transaction(() => {
    for (const file of files) {
      removed.searchTexts += search.dropFile(file.id);
      removed.entries += db.prepare('DELETE FROM entries WHERE file_id = ?').run(file.id).changes;
      db.prepare('DELETE FROM bad_lines WHERE file_id = ?').run(file.id);
    }
    db.prepare('DELETE FROM files WHERE session_id = ?').run(sessionId);
    deps.dropDerived();
    removed.archivedFiles = db
      .prepare('SELECT count(*) FROM archive_files WHERE session_id = ? AND pruned_at IS NULL')
      .pluck()
      .get(sessionId) as number;
    for (const table of SESSION_TABLES) db.prepare(`DELETE FROM ${table} WHERE session_id = ?`).run(sessionId);
    for (const file of synced) {
      const folder = `${file.project}/${sessionId}/`.replace(/[\\%_]/g, (char) => `\\${char}`);
      db.prepare("DELETE FROM sync_received WHERE device = ? AND rel LIKE ? || '%' ESCAPE '\\'").run(
        file.device,
        folder,
      );
    }
    db.prepare(
      'INSERT INTO sync_tombstones (session_hash, device, at, delete_transcripts) VALUES (?, ?, ?, ?) ON CONFLICT (session_hash) DO NOTHING',
    ).run(tombstoneKey(sessionId), deps.deviceId, Date.now(), deleteTranscripts ? 1 : 0);
  })();
  deps.forgetInMemory(sessionId);
  await mergeSearchIndex(db);
  // The deleted pages leave the WAL too.
  db.pragma('wal_checkpoint(TRUNCATE)');

  for (const project of projects) {
    await rm(sessionArchiveDir(deps.stateDir, project, sessionId), { recursive: true, force: true });
    const memoryDir = sessionMemoryDir(deps.projectsDir, project, sessionId);
    const memory = await readdir(memoryDir).catch(() => [] as string[]);
    removed.sessionMemory += memory.length;
    await rm(memoryDir, { recursive: true, force: true });
    // Claude Code's own session folder (sub-agents, tool results) goes only when asked.
    if (deleteTranscripts) await rm(join(deps.projectsDir, project, sessionId), { recursive: true, force: true });
  }
  for (const file of synced) {
    await rm(file.path, { force: true });
    await rm(join(syncedTranscriptsDir(deps.stateDir), file.device as string, file.project, sessionId), {
      recursive: true,
      force: true,
    });
  }
  await removeUndoPoints(deps.stateDir, sessionId);
  // Last: what the work stopped above logged about the session goes too.
  removed.logLines = deps.scrubLogs(sessionId);
  return { sessionId, removed };
}

/**
 * The search index keeps a deleted row's words in its segments until they are merged: merged
 * here a few pages a turn (the event loop free between), until a merge step writes nothing.
 */
async function mergeSearchIndex(db: Database.Database): Promise<void> {
  const merge = db.prepare(`INSERT INTO search_fts (search_fts, rank) VALUES ('merge', -${MERGE_PAGES})`);
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  for (let step = 0; step < MAX_MERGE_STEPS; step++) {
    const before = totalChanges.get() as number;
    merge.run();
    // FTS5: fewer than two changes means there was nothing left to merge.
    if ((totalChanges.get() as number) - before < 2) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function removeUndoPoints(stateDir: string, sessionId: string): Promise<void> {
  const root = undoRoot(stateDir);
  for (const undoId of await readdir(root).catch(() => [] as string[])) {
    const manifest = await readUndoPoint(join(root, undoId), undoId).catch(() => null);
    if (manifest?.sessionId === sessionId) await removeUndoPoint(join(root, undoId));
  }
}
