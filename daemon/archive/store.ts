/** The archive's book (migration 15): what each archived file holds, committed with the bytes. */
import type Database from 'better-sqlite3';

/** A transcript (appended to as ingest reads it), or another file of the session's folder (archived whole). */
export type ArchiveKind = 'transcript' | 'file';

export interface ArchiveRow {
  path: string;
  session_id: string;
  project: string;
  rel: string;
  kind: ArchiveKind;
  /** The transcript's `files.generation` the archive follows (0 for tool results). */
  generation: number;
  /** Bytes of the source the archive holds. */
  source_bytes: number;
  /** Length of the archive file holding them: anything after is a torn append, cut at start. */
  archive_bytes: number;
  mtime_ms: number;
  archived_at: number;
  /** Set when `archive.prune` removed the copy: the file is not archived again. */
  pruned_at: number | null;
}

/** A transcript with bytes the archive does not hold yet. */
export interface PendingTranscript {
  id: number;
  path: string;
  project: string;
  session_id: string;
  committed_offset: number;
  generation: number;
  dev: string;
  ino: string;
  head_len: number;
  head_hash: string;
  last_activity: string | null;
  source_bytes: number | null;
  archive_bytes: number | null;
  archived_generation: number | null;
}

export function createArchiveStore(db: Database.Database) {
  const pending = db.prepare(`
    SELECT f.id, f.path, f.project, f.session_id, f.committed_offset, f.generation, f.dev, f.ino, f.head_len, f.head_hash, f.last_activity,
           a.source_bytes, a.archive_bytes, a.generation AS archived_generation
    FROM files f LEFT JOIN archive_files a ON a.path = f.path
    WHERE f.gone = 0 AND f.device IS NULL AND a.pruned_at IS NULL
      AND (f.committed_offset > coalesce(a.source_bytes, 0) OR (a.generation IS NOT NULL AND a.generation != f.generation))
    ORDER BY coalesce(f.last_activity, '') ASC, f.id ASC`);
  const get = db.prepare('SELECT * FROM archive_files WHERE path = ?');
  const upsert = db.prepare(`
    INSERT INTO archive_files (path, session_id, project, rel, kind, generation, source_bytes, archive_bytes, mtime_ms, archived_at, pruned_at)
    VALUES (@path, @session_id, @project, @rel, @kind, @generation, @source_bytes, @archive_bytes, @mtime_ms, @archived_at, NULL)
    ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, project = excluded.project, rel = excluded.rel, kind = excluded.kind,
      generation = excluded.generation, source_bytes = excluded.source_bytes, archive_bytes = excluded.archive_bytes,
      mtime_ms = excluded.mtime_ms, archived_at = excluded.archived_at, pruned_at = NULL`);
  const ofSession = db.prepare('SELECT * FROM archive_files WHERE session_id = ? ORDER BY kind DESC, rel');
  const all = db.prepare('SELECT * FROM archive_files WHERE pruned_at IS NULL AND archive_bytes > 0');
  const totals =
    db.prepare(`SELECT count(*) AS files, count(DISTINCT session_id) AS sessions, coalesce(sum(archive_bytes), 0) AS archiveBytes,
      coalesce(sum(source_bytes), 0) AS sourceBytes FROM archive_files WHERE pruned_at IS NULL`);
  const pendingBytes = db
    .prepare(`SELECT coalesce(sum(f.committed_offset - coalesce(a.source_bytes, 0)), 0) FROM files f LEFT JOIN archive_files a ON a.path = f.path
      WHERE f.gone = 0 AND f.device IS NULL AND a.pruned_at IS NULL AND f.committed_offset > coalesce(a.source_bytes, 0)`)
    .pluck();
  const markPruned = db.prepare('UPDATE archive_files SET pruned_at = ?, archive_bytes = 0 WHERE session_id = ?');
  const forget = db.prepare('DELETE FROM archive_files WHERE session_id = ?');
  const isTranscript = db.prepare('SELECT 1 FROM files WHERE path = ?').pluck();
  // The main transcript is `<sessionId>.jsonl` right in the project folder.
  const hasMain = db
    .prepare(
      "SELECT 1 FROM archive_files WHERE session_id = ? AND rel = ? || '.jsonl' AND pruned_at IS NULL AND source_bytes > 0",
    )
    .pluck();

  return {
    pending: () => pending.all() as PendingTranscript[],
    get: (path: string) => get.get(path) as ArchiveRow | undefined,
    put: (row: ArchiveRow) => void upsert.run(row),
    ofSession: (sessionId: string) => ofSession.all(sessionId) as ArchiveRow[],
    all: () => all.all() as ArchiveRow[],
    totals: () => totals.get() as { files: number; sessions: number; archiveBytes: number; sourceBytes: number },
    pendingBytes: () => pendingBytes.get() as number,
    markPruned: (sessionId: string, at: number) => void markPruned.run(at, sessionId),
    forget: (sessionId: string) => void forget.run(sessionId),
    isTranscript: (path: string) => isTranscript.get(path) !== undefined,
    hasMainTranscript: (sessionId: string) => hasMain.get(sessionId, sessionId) !== undefined,
  };
}

export type ArchiveStore = ReturnType<typeof createArchiveStore>;
