/**
 * The other machines' subtrees of the sync folder, read-only: each device's files checked, its
 * tombstones honoured, its archive files decoded where they grew (decoder.ts) and handed to ingest.
 * What is looked at each scan is bounded by what changed: a device's index is parsed again only when
 * it changed, and its archive dir is walked whole (for files that arrived ahead of the index, or
 * grew past it) on the first scan and every FULL_WALK_EVERY-th after. A device whose subtree
 * vanished is marked gone; what was decoded of it stays indexed.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { tombstoneKey } from '../../shared/sync/tombstone.js';
import type { Logger } from '../log/logger.js';
import type { DecodedFile, Decoder } from './decode-pool.js';
import { type DeviceFile, isSafePart, isSafeRel, parseDeviceFile, parseIndex, type SyncIndex } from './index-file.js';
import { decodedPath, deviceDir, deviceFile, indexFile, isDeviceId, SYNC_FORMAT, syncedArchiveRoot } from './layout.js';
import type { SyncStore } from './store.js';

/** One scan in this many walks every device's archive dir (a minute at the default 5 s). */
const FULL_WALK_EVERY = 12;
/** Largest index.json read: ~200 bytes a file, so room for a quarter million files. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const MAX_DEVICE_FILE_BYTES = 64 * 1024;
/** Bounds on the walk: `<project>/<session>/subagents/<file>.gz` is four levels; tool results are one more. */
const MAX_WALK_DEPTH = 5;
const MAX_WALK_FILES = 500_000;
/** Compressed bytes one file decodes before the others get a turn. */
const FILE_TURN_BYTES = 64 * 1024 * 1024;
/** Decoded files handed to ingest at once: a first sync of a whole archive goes as a backfill, in batches. */
const HAND_OVER_FILES = 64;
/** …or once they hold this much: ingest starts on a large history while the rest decodes, and is not left a long tail. */
const HAND_OVER_BYTES = 24 * 1024 * 1024;
/**
 * Files decoded at once: inflating runs in libuv's pool, so a second file's member inflates while
 * the first's is checked and written (and ingest, on both cores, takes the rest of the time).
 */
const DECODE_LANES = 2;
/**
 * A round with this much to decode keeps ingest's backfill open until its last batch (the followers
 * of the index wait, as for a first backfill, instead of running between batches on the main thread).
 */
const HOLD_BYTES = 64 * 1024 * 1024;

/** Decoded files waiting for ingest, and the bytes the round still expects to decode. */
interface HandOver {
  files: DecodedFile[];
  comingBytes: number;
  /** Releases ingest's hold on its backfill (taken for a large round), once the last batch is handed over. */
  release?: (() => void) | undefined;
}

export interface ReaderDeps {
  store: SyncStore;
  syncDir: string;
  stateDir: string;
  self: string;
  log: Logger;
  clock: () => number;
  /** Decodes an archive file (decode-pool.ts: in a worker thread in the daemon). */
  decoder: Decoder;
  /** A tombstone not honoured yet: the session is forgotten here. */
  honour(tombstone: SyncIndex['tombstones'][number]): Promise<void>;
  /** Decoded files that grew, for ingest, and the transcript bytes this round still expects to decode after them. */
  decoded(files: readonly DecodedFile[], comingBytes: number): void;
  /** Holds ingest's backfill open (Ingestor.holdBackfill); returns the release. */
  hold?(): () => void;
}

export interface DeviceState {
  id: string;
  present: boolean;
  problem: string | null;
  index: SyncIndex | null;
  /** When this machine last read the device's index (its own clock, not the device's). */
  readAt: number | null;
  /** Files the index lists with bytes not decoded yet (arriving, or torn). */
  behind: number;
}

async function readBounded(path: string, max: number): Promise<{ text: string; size: number; mtimeMs: number } | null> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (file === null) return null;
  try {
    const stat = await file.stat();
    if (!stat.isFile() || stat.size > max) return null;
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await file.read(buffer, 0, stat.size, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), size: stat.size, mtimeMs: stat.mtimeMs };
  } finally {
    await file.close();
  }
}

/** The `.gz` files under a device's archive dir, as `<project>/<session>/<rel>.gz`; no symlink followed, no dot file. */
async function walkArchive(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (depth > MAX_WALK_DEPTH || found.length >= MAX_WALK_FILES) return;
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.name.startsWith('.')) continue;
      const next = rel === '' ? entry.name : `${rel}${sep}${entry.name}`;
      if (entry.isDirectory()) await visit(join(dir, entry.name), next, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.gz') && depth >= 3) found.push(next);
    }
  };
  await visit(root, '', 1);
  return found;
}

/** `<project>/<session>/<rel>.gz` split, or null when it is not a path a device may write. */
export function splitArchiveRel(rel: string): { project: string; sessionId: string; source: string } | null {
  const parts = rel.split(sep);
  if (parts.length < 3 || !rel.endsWith('.gz')) return null;
  const [project, sessionId] = parts as [string, string];
  const source = parts.slice(2).join(sep).slice(0, -'.gz'.length);
  if (!isSafePart(project) || !isSafePart(sessionId) || !isSafeRel(source)) return null;
  return { project, sessionId, source };
}

export function createReader(deps: ReaderDeps) {
  const { store, syncDir, log } = deps;
  const states = new Map<string, DeviceState & { indexStamp: string; walkedAt: number }>();
  let scans = 0;

  const readDevice = async (id: string): Promise<DeviceFile | string> => {
    const file = await readBounded(deviceFile(syncDir, id), MAX_DEVICE_FILE_BYTES);
    return file === null ? 'device.json has not arrived' : parseDeviceFile(file.text, id, SYNC_FORMAT);
  };

  const stateOf = (id: string) => {
    let state = states.get(id);
    if (state === undefined) {
      state = { id, present: true, problem: null, index: null, readAt: null, behind: 0, indexStamp: '', walkedAt: -1 };
      states.set(id, state);
    }
    return state;
  };

  /** Decodes the files of one device that may have grown (with the bytes each is behind by, when its index says) for ingest. */
  const decodeDevice = async (id: string, candidates: ReadonlyMap<string, number>, out: HandOver) => {
    const root = syncedArchiveRoot(syncDir, id);
    const queue = [...candidates.keys()];
    out.comingBytes += [...candidates.values()].reduce((sum, bytes) => sum + bytes, 0);
    if (out.comingBytes >= HOLD_BYTES) out.release ??= deps.hold?.();
    const decodeOne = async (rel: string) => {
      out.comingBytes -= candidates.get(rel) ?? 0;
      const parts = splitArchiveRel(rel);
      if (parts === null || store.tombstone(parts.sessionId) !== undefined) return;
      const target = decodedPath(deps.stateDir, id, join(parts.project, parts.source));
      let more = true;
      while (more) {
        const { result, decoded } = await deps.decoder.decode({
          source: join(root, rel),
          target,
          known: store.received(id, rel),
          ids: { device: id, rel },
          budget: FILE_TURN_BYTES,
        });
        store.putReceived(result.row);
        more = result.more;
        if (decoded !== null) out.files.push(decoded);
        if (
          out.files.length >= HAND_OVER_FILES ||
          out.files.reduce((sum, file) => sum + file.size, 0) >= HAND_OVER_BYTES
        )
          deps.decoded(out.files.splice(0), Math.max(0, out.comingBytes));
      }
    };
    const lane = async () => {
      for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) await decodeOne(rel);
    };
    await Promise.all(Array.from({ length: DECODE_LANES }, lane));
  };

  const scanDevice = async (id: string, full: boolean, out: HandOver) => {
    const state = stateOf(id);
    const device = await readDevice(id);
    if (typeof device === 'string') {
      state.problem = device;
      return;
    }
    store.putDevice({ id, name: device.name, version: device.version, at: deps.clock() });
    const stamp = await lstat(indexFile(syncDir, id)).catch(() => null);
    const indexStamp = stamp === null ? '' : `${stamp.size}:${stamp.mtimeMs}:${stamp.ino}`;
    let candidates = new Map<string, number>();
    if (indexStamp !== state.indexStamp && indexStamp !== '') {
      const text = await readBounded(indexFile(syncDir, id), MAX_INDEX_BYTES);
      const parsed = text === null ? 'index.json cannot be read' : parseIndex(text.text, id, SYNC_FORMAT);
      if (typeof parsed === 'string') {
        state.problem = parsed;
      } else {
        state.problem = null;
        state.index = parsed;
        state.indexStamp = indexStamp;
        state.readAt = deps.clock();
        for (const tombstone of parsed.tombstones) {
          if (store.hasTombstone(tombstone.sessionHash)) continue;
          await deps.honour(tombstone);
        }
      }
      candidates = behindOf(id, state.index);
    } else if (state.behind > 0) {
      candidates = behindOf(id, state.index);
    }
    if (full || state.walkedAt < 0) {
      const received = new Map(store.receivedOf(id).map((row) => [row.rel, row]));
      for (const rel of await walkArchive(syncedArchiveRoot(syncDir, id))) {
        const known = received.get(rel);
        if (candidates.has(rel)) continue;
        if (known === undefined) candidates.set(rel, 0);
        else {
          const stat = await lstat(join(syncedArchiveRoot(syncDir, id), rel)).catch(() => null);
          if (stat !== null && (stat.size !== known.seen_size || Math.trunc(stat.mtimeMs) !== known.seen_mtime_ms))
            candidates.set(rel, 0);
        }
      }
      state.walkedAt = deps.clock();
    }
    if (candidates.size === 0) return;
    await decodeDevice(id, candidates, out);
    state.behind = behindOf(id, state.index).size;
  };

  /** The index's files with bytes not decoded yet, and how many (one read of the device's book, not a lookup per file). */
  const behindOf = (id: string, index: SyncIndex | null): Map<string, number> => {
    const behind = new Map<string, number>();
    if (index === null) return behind;
    const received = new Map(store.receivedOf(id).map((row) => [row.rel, row]));
    const tombstoned = new Set(store.tombstones().map((row) => row.session_hash));
    for (const session of index.sessions) {
      if (tombstoned.has(tombstoneKey(session.sessionId))) continue;
      for (const file of session.files) {
        const rel = join(session.project, session.sessionId, `${file.rel}.gz`);
        const known = received.get(rel);
        if (known === undefined || (known.archive_bytes < file.archiveBytes && known.problem === null))
          behind.set(rel, Math.max(0, file.sourceBytes - (known?.source_bytes ?? 0)));
      }
    }
    return behind;
  };

  return {
    async scan(): Promise<void> {
      const full = scans % FULL_WALK_EVERY === 0;
      scans += 1;
      const entries = await readdir(syncDir, { withFileTypes: true }).catch(() => null);
      if (entries === null) throw new Error(`the sync folder ${syncDir} cannot be read`);
      const present = new Set(
        entries
          .filter((entry) => entry.isDirectory() && isDeviceId(entry.name) && entry.name !== deps.self)
          .map((entry) => entry.name),
      );
      for (const device of store.devices()) {
        if (present.has(device.id)) continue;
        stateOf(device.id).present = false;
        if (store.markGone(device.id, deps.clock()))
          log.info('sync: a device left the sync folder; its sessions stay indexed here', { device: device.id });
      }
      const out: HandOver = { files: [], comingBytes: 0 };
      try {
        for (const id of present) {
          stateOf(id).present = true;
          try {
            await scanDevice(id, full, out);
          } catch (error) {
            stateOf(id).problem = (error as Error).message;
            log.warn('sync: a device could not be read', { device: id, error });
          }
        }
        if (out.files.length > 0) deps.decoded(out.files, 0);
      } finally {
        out.release?.();
      }
    },
    states: (): DeviceState[] => [...states.values()].map(({ indexStamp: _, walkedAt: __, ...state }) => state),
    /** The device dir of a known device (for status). */
    dirOf: (id: string) => deviceDir(syncDir, id),
  };
}

export type Reader = ReturnType<typeof createReader>;
