/** The sync book (migration 30): devices seen, what of their archives is decoded, what of this machine's is mirrored, tombstones. */
import type Database from 'better-sqlite3';
import { tombstoneKey } from '../../shared/sync/tombstone.js';

export interface ReceivedRow {
  device: string;
  /** The archive file's path under the device's `archive/`: `<project>/<sessionId>/<rel>.gz`. */
  rel: string;
  /** Bytes of the synced archive file decoded so far: always a member boundary. */
  archive_bytes: number;
  /** Bytes of the decoded file: the source bytes of those members. */
  source_bytes: number;
  /** How many of the archive's first bytes `head_hash` covers: a file whose head changed was replaced. */
  head_len: number;
  head_hash: string;
  seen_size: number;
  seen_mtime_ms: number;
  /** Why the file is not decoded further (a bad member); null while it decodes. */
  problem: string | null;
}

export interface DeviceRow {
  id: string;
  name: string;
  version: string;
  first_seen: number;
  last_seen: number;
  gone_at: number | null;
}

/** What of one of this machine's archive files is mirrored into the sync folder. */
export interface PublishedRow {
  rel: string;
  archive_bytes: number;
  /** Of the mirrored copy's first bytes (head.ts): a local archive started anew no longer matches. */
  head_hash: string;
}

export interface TombstoneRow {
  /** shared/sync/tombstone.ts tombstoneKey of the session id. */
  session_hash: string;
  device: string;
  at: number;
  delete_transcripts: number;
}

export function createSyncStore(db: Database.Database) {
  const received = db.prepare('SELECT * FROM sync_received WHERE device = ? AND rel = ?');
  const receivedOf = db.prepare('SELECT * FROM sync_received WHERE device = ?');
  const putReceived = db.prepare(`
    INSERT INTO sync_received (device, rel, archive_bytes, source_bytes, head_len, head_hash, seen_size, seen_mtime_ms, problem)
    VALUES (@device, @rel, @archive_bytes, @source_bytes, @head_len, @head_hash, @seen_size, @seen_mtime_ms, @problem)
    ON CONFLICT (device, rel) DO UPDATE SET archive_bytes = excluded.archive_bytes, source_bytes = excluded.source_bytes,
      head_len = excluded.head_len, head_hash = excluded.head_hash, seen_size = excluded.seen_size,
      seen_mtime_ms = excluded.seen_mtime_ms, problem = excluded.problem`);
  const dropReceived = db.prepare("DELETE FROM sync_received WHERE device = ? AND (rel LIKE ? || '/%' ESCAPE '\\')");
  const receivedTotals = db.prepare(`
    SELECT device, count(*) AS files, coalesce(sum(archive_bytes), 0) AS archiveBytes, coalesce(sum(source_bytes), 0) AS sourceBytes,
           sum(problem IS NOT NULL) AS problems
    FROM sync_received GROUP BY device`);
  const devices = db.prepare('SELECT * FROM sync_devices ORDER BY name, id');
  const putDevice = db.prepare(`
    INSERT INTO sync_devices (id, name, version, first_seen, last_seen, gone_at) VALUES (@id, @name, @version, @at, @at, NULL)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, version = excluded.version, last_seen = excluded.last_seen, gone_at = NULL`);
  const markGone = db.prepare('UPDATE sync_devices SET gone_at = ? WHERE id = ? AND gone_at IS NULL');
  const published = db.prepare('SELECT rel, archive_bytes, head_hash FROM sync_published WHERE rel = ?');
  const allPublished = db.prepare('SELECT rel, archive_bytes, head_hash FROM sync_published');
  const putPublished = db.prepare(`
    INSERT INTO sync_published (rel, archive_bytes, head_hash, published_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (rel) DO UPDATE SET archive_bytes = excluded.archive_bytes, head_hash = excluded.head_hash,
      published_at = excluded.published_at`);
  const dropPublished = db.prepare('DELETE FROM sync_published WHERE rel = ?');
  const publishedTotals = db.prepare(`
    SELECT count(*) AS files, coalesce(sum(archive_bytes), 0) AS bytes,
           count(DISTINCT substr(rel, 1, instr(substr(rel, instr(rel, '/') + 1), '/') + instr(rel, '/'))) AS sessions
    FROM sync_published`);
  const tombstoneCount = db.prepare('SELECT count(*) FROM sync_tombstones').pluck();
  const tombstone = db.prepare('SELECT * FROM sync_tombstones WHERE session_hash = ?');
  const tombstones = db.prepare('SELECT * FROM sync_tombstones ORDER BY at, session_hash');
  const putTombstone = db.prepare(`
    INSERT INTO sync_tombstones (session_hash, device, at, delete_transcripts) VALUES (?, ?, ?, ?)
    ON CONFLICT (session_hash) DO NOTHING`);

  const archiveMark = db
    .prepare(
      "SELECT count(*) || ':' || coalesce(sum(archive_bytes), 0) || ':' || coalesce(max(archived_at), 0) FROM archive_files WHERE pruned_at IS NULL",
    )
    .pluck();

  return {
    /** publisher.ts PublisherDeps.archiveMark. */
    archiveMark: () => archiveMark.get() as string,
    received: (device: string, rel: string) => received.get(device, rel) as ReceivedRow | undefined,
    receivedOf: (device: string) => receivedOf.all(device) as ReceivedRow[],
    putReceived: (row: ReceivedRow) => void putReceived.run(row),
    /** Forgets what was decoded of a session's folder (`<project>/<sessionId>`). */
    dropReceivedSession: (device: string, sessionDir: string) =>
      void dropReceived.run(
        device,
        sessionDir.replace(/[\\%_]/g, (char) => `\\${char}`),
      ),
    receivedTotals: () =>
      receivedTotals.all() as {
        device: string;
        files: number;
        archiveBytes: number;
        sourceBytes: number;
        problems: number;
      }[],
    devices: () => devices.all() as DeviceRow[],
    putDevice: (device: { id: string; name: string; version: string; at: number }) => void putDevice.run(device),
    markGone: (id: string, at: number) => markGone.run(at, id).changes > 0,
    published: (rel: string) => published.get(rel) as PublishedRow | undefined,
    allPublished: () => allPublished.all() as PublishedRow[],
    putPublished: (row: PublishedRow, at: number) =>
      void putPublished.run(row.rel, row.archive_bytes, row.head_hash, at),
    dropPublished: (rel: string) => void dropPublished.run(rel),
    /** The session's tombstone, if it was forgotten on any machine. */
    tombstone: (sessionId: string) => tombstone.get(tombstoneKey(sessionId)) as TombstoneRow | undefined,
    hasTombstone: (hash: string) => tombstone.get(hash) !== undefined,
    tombstones: () => tombstones.all() as TombstoneRow[],
    tombstoneCount: () => tombstoneCount.get() as number,
    /** Sessions (`<project>/<sessionId>/` prefixes), files and gzipped bytes mirrored into this machine's subtree. */
    publishedTotals: () => publishedTotals.get() as { files: number; bytes: number; sessions: number },
    /** Records a tombstone; false when the session had one already. */
    putTombstone: (row: TombstoneRow) =>
      putTombstone.run(row.session_hash, row.device, row.at, row.delete_transcripts).changes > 0,
  };
}

export type SyncStore = ReturnType<typeof createSyncStore>;
