/**
 * This machine's share of the sync folder (issue 35): its archive mirrored member for member into
 * `<syncDir>/<device>/archive/`, then its index (sessions, files, tombstones) and device file.
 * A mirrored file only grows by whole members appended after the bytes already there, so a sync
 * engine that copies it mid-write carries a torn last member at worst, which readers wait out; an
 * archive file started anew (a replaced transcript, a rewritten tool result) is mirrored whole
 * through a temp file and a rename. The index is written last, atomically, so it never names bytes
 * this machine has not written (others still meet files ahead of or behind it, and cope).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { tombstoneKey } from '../../shared/sync/tombstone.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { archivePathOf } from '../archive/layout.js';
import { checkNoSymlink } from '../archive/restore.js';
import type { ArchiveRow, ArchiveStore } from '../archive/store.js';
import { PRIVATE_FILE_MODE, writeFileAtomic } from '../fs/atomic.js';
import type { Logger } from '../log/logger.js';
import type { DeviceIdentity } from './device.js';
import { headHash } from './head.js';
import type { SyncIndex } from './index-file.js';
import { deviceDir, deviceFile, indexFile, SYNC_DIR_MODE, SYNC_FORMAT, syncedArchiveRoot } from './layout.js';
import type { SyncStore } from './store.js';

/** Bytes copied per read: a member is a few MB at most. */
const COPY_CHUNK_BYTES = 1024 * 1024;
/**
 * Bytes mirrored per publish: a first publish of a large archive goes in rounds a scan apart, so
 * that the index of what is done reaches the others early and a shutdown never waits long.
 */
const PUBLISH_BUDGET_BYTES = 256 * 1024 * 1024;

export interface PublisherDeps {
  archived: Pick<ArchiveStore, 'all'>;
  /** Changes whenever the archive's book does (files, lengths, prunes): a round with the same mark has nothing to mirror. */
  archiveMark(): string;
  store: SyncStore;
  stateDir: string;
  syncDir: string;
  device: DeviceIdentity;
  log: Logger;
  clock: () => number;
}

export interface PublishResult {
  /** Archive files mirrored (or re-mirrored whole) this round. */
  files: number;
  bytes: number;
  /** Files left for the next round (the budget ran out). */
  behind: number;
  /** The index was written this round. */
  wroteIndex: boolean;
}

const mirroredRel = (row: Pick<ArchiveRow, 'project' | 'session_id' | 'rel'>) =>
  join(row.project, row.session_id, `${row.rel}.gz`);

/** Refuses a symlink (or anything but a dir) where this machine's subtree must be. */
async function ensureOwnDir(dir: string): Promise<void> {
  const stat = await lstat(dir).catch(() => null);
  if (stat === null) {
    await mkdir(dir, { recursive: true, mode: SYNC_DIR_MODE });
    return;
  }
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory memd made (a symlink or a file): sync stops`);
}

/** Copies `source`'s bytes [from, to) into `target` at `at`, flushed. */
async function copyRange(source: string, target: string, from: number, to: number, at: number): Promise<void> {
  const input = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const output = await open(
      target,
      // Non-blocking: a FIFO put where the copy goes fails at once instead of waiting for a reader.
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      PRIVATE_FILE_MODE,
    );
    try {
      const buffer = Buffer.alloc(Math.min(COPY_CHUNK_BYTES, Math.max(1, to - from)));
      let position = from;
      let written = at;
      while (position < to) {
        const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, to - position), position);
        if (bytesRead === 0) throw new Error(`${source} is shorter than the archive's book says`);
        let done = 0;
        while (done < bytesRead) {
          const { bytesWritten } = await output.write(buffer, done, bytesRead - done, written);
          done += bytesWritten;
          written += bytesWritten;
        }
        position += bytesRead;
      }
      await output.datasync();
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

export function createPublisher(deps: PublisherDeps) {
  const { store, syncDir, device, log } = deps;
  const own = deviceDir(syncDir, device.id);
  const archiveRoot = syncedArchiveRoot(syncDir, device.id);
  let indexWritten = false;
  let deviceWritten = false;
  /** The archive's mark and the index file's stamp when this machine last wrote it whole. */
  let mirroredMark = '';
  let indexStamp = '';

  /** Mirrors one archive file up to its book's length; returns the bytes written. */
  const mirror = async (row: ArchiveRow, rel: string): Promise<number> => {
    const source = archivePathOf(deps.stateDir, row);
    const target = join(archiveRoot, rel);
    const known = store.published(rel);
    const sourceFile = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
    let head: string;
    try {
      head = await headHash(sourceFile, row.archive_bytes);
    } finally {
      await sourceFile.close();
    }
    // Nothing on the way may be a link put into this machine's subtree (it would lead the copy elsewhere).
    await checkNoSymlink(own, target);
    await mkdir(dirname(target), { recursive: true, mode: SYNC_DIR_MODE });
    const mirrored = await lstat(target).catch(() => null);
    const appendable =
      known !== undefined &&
      known.archive_bytes > 0 &&
      known.archive_bytes <= row.archive_bytes &&
      mirrored?.isFile() === true &&
      mirrored.size === known.archive_bytes &&
      (await headHashOf(source, known.archive_bytes)) === known.head_hash;
    if (appendable) {
      await copyRange(source, target, known.archive_bytes, row.archive_bytes, known.archive_bytes);
    } else {
      // Started anew here, or the mirrored copy is not what this machine wrote: whole, then renamed into place.
      const temp = join(dirname(target), `.${row.session_id}.${process.pid}.${deps.clock()}.tmp`);
      try {
        await copyRange(source, temp, 0, row.archive_bytes, 0);
        await rename(temp, target);
      } finally {
        await rm(temp, { force: true });
      }
    }
    store.putPublished({ rel, archive_bytes: row.archive_bytes, head_hash: head }, deps.clock());
    return appendable ? row.archive_bytes - (known?.archive_bytes ?? 0) : row.archive_bytes;
  };

  const writeIndex = async (rows: readonly ArchiveRow[]) => {
    const sessions = new Map<string, SyncIndex['sessions'][number]>();
    // One read of the book, not a lookup per file (tens of thousands at a heavy user's scale).
    const mirrored = new Map(store.allPublished().map((row) => [row.rel, row]));
    for (const row of rows) {
      const published = mirrored.get(mirroredRel(row));
      if (published === undefined || published.archive_bytes !== row.archive_bytes) continue;
      let session = sessions.get(row.session_id);
      if (session === undefined) {
        session = { sessionId: row.session_id, project: row.project, files: [] };
        sessions.set(row.session_id, session);
      }
      session.files.push({
        rel: row.rel,
        kind: row.kind,
        sourceBytes: row.source_bytes,
        archiveBytes: row.archive_bytes,
      });
    }
    const index: SyncIndex = {
      format: SYNC_FORMAT,
      device: device.id,
      writtenAt: new Date(deps.clock()).toISOString(),
      sessions: [...sessions.values()],
      tombstones: store.tombstones().map((row) => ({
        sessionHash: row.session_hash,
        device: row.device,
        at: row.at,
        deleteTranscripts: row.delete_transcripts === 1,
      })),
    };
    await writeFileAtomic(indexFile(syncDir, device.id), `${JSON.stringify(index)}\n`);
  };

  return {
    /** One round: mirror what the archive holds beyond what is mirrored, drop what it no longer holds, write the index. */
    async publish(): Promise<PublishResult> {
      // The folder is the user's (an engine's, a mount): memd makes its own subtree in it, never the folder itself.
      const folder = await stat(syncDir).catch(() => null);
      if (folder === null || !folder.isDirectory())
        throw new Error(`the sync folder ${syncDir} does not exist or is not a directory (memd does not make it)`);
      await ensureOwnDir(own);
      if (!deviceWritten) {
        const file = { format: SYNC_FORMAT, id: device.id, name: device.name, version: MEMD_VERSION };
        await writeFileAtomic(deviceFile(syncDir, device.id), `${JSON.stringify(file)}\n`);
        deviceWritten = true;
      }
      const result: PublishResult = { files: 0, bytes: 0, behind: 0, wroteIndex: false };
      const mark = `${deps.archiveMark()}|${store.tombstoneCount()}`;
      // An engine that put an older copy of this machine's index back (a replayed copy) is overwritten.
      if (mark === mirroredMark && indexWritten && (await stampOf(indexFile(syncDir, device.id))) === indexStamp)
        return result;
      const tombstoned = new Set(store.tombstones().map((row) => row.session_hash));
      const rows = deps.archived.all().filter((row) => !tombstoned.has(tombstoneKey(row.session_id)));
      const published = new Map(store.allPublished().map((row) => [row.rel, row]));
      const wanted = new Set<string>();
      let changed = false;
      for (const row of rows) {
        const rel = mirroredRel(row);
        wanted.add(rel);
        if (published.get(rel)?.archive_bytes === row.archive_bytes) continue;
        if (result.bytes >= PUBLISH_BUDGET_BYTES) {
          result.behind += 1;
          continue;
        }
        try {
          result.bytes += await mirror(row, rel);
          result.files += 1;
          changed = true;
        } catch (error) {
          // The archive file moved under it (a prune, a forget, a replaced transcript): the next round sees the book as it is then.
          log.debug('sync: an archive file was not mirrored this round', { rel, error });
          result.behind += 1;
        }
      }
      // What the archive no longer holds (pruned, forgotten, tombstoned) leaves the sync folder too.
      for (const rel of published.keys()) {
        if (wanted.has(rel)) continue;
        await rm(join(archiveRoot, rel), { force: true });
        store.dropPublished(rel);
        changed = true;
      }
      if (changed || !indexWritten || mark !== mirroredMark) {
        await writeIndex(rows);
        indexWritten = true;
        result.wroteIndex = true;
        indexStamp = await stampOf(indexFile(syncDir, device.id));
      }
      if (result.behind === 0) mirroredMark = mark;
      return result;
    },
    /** The index again at the next round (a tombstone was added). */
    indexChanged() {
      indexWritten = false;
    },
    /** Removes a forgotten session's mirrored folder at once (its files go from the book at the next round too). */
    async dropSession(project: string, sessionId: string) {
      await rm(join(archiveRoot, project, sessionId), { recursive: true, force: true });
      indexWritten = false;
    },
  };
}

async function stampOf(path: string): Promise<string> {
  const stat = await lstat(path).catch(() => null);
  return stat === null ? '' : `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

async function headHashOf(path: string, length: number): Promise<string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await headHash(file, length);
  } finally {
    await file.close();
  }
}

export type Publisher = ReturnType<typeof createPublisher>;
