/**
 * Undo points of rewind.restore under `<state dir>/rewind/<undoId>/`: before a restore changes
 * anything, the current bytes and mode of every file it will change (or that it was absent) are
 * saved there. Copies are written first and the manifest last, each atomically, so a manifest
 * always describes complete copies; a save that fails removes its dir.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { undoRoot } from '../../../shared/paths.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { isRecord } from '../../../shared/values.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { readTextIfPresent } from '../../fs/read.js';
import { readPresent } from './apply.js';
import { isPlainName } from './paths.js';

/** Under the state dir: private to the user, like the copies it holds. */
const MANIFEST = 'manifest.json';
/** What newUndoId makes: a UTC time to sort by, and a random part. Nothing else names a dir. */
const UNDO_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;
/** The random part: two restores in the same second must not share a dir. */
const UNDO_ID_RANDOM_BYTES = 4;
const PRIVATE_DIR_MODE = 0o700;
/** Undo points kept: the newest ones; older restores are rarely taken back, and each holds file copies. */
export const KEEP_UNDO_POINTS = 50;

export interface SavedFile {
  /** Absolute. */
  path: string;
  /** The copy's name in the undo dir; null when the file was absent. */
  copy: string | null;
  mode: number | null;
  bytes: number | null;
}

export interface UndoManifest {
  undoId: string;
  sessionId: string;
  messageId: string;
  createdAt: string;
  files: SavedFile[];
}

export function newUndoId(now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(UNDO_ID_RANDOM_BYTES).toString('hex')}`;
}

/** The undo point's dir; PathRejected for anything newUndoId would not have made. */
export function undoDir(stateDir: string, undoId: string): string {
  if (!UNDO_ID.test(undoId)) {
    throw new RpcError(
      ErrorCode.PathRejected,
      'PathRejected',
      `${JSON.stringify(undoId)} is not an undo id (rewind.restore prints one, like 20261202T102836Z-1a2b3c4d)`,
      { undoId },
    );
  }
  return join(undoRoot(stateDir), undoId);
}

export async function saveUndoPoint(
  dir: string,
  meta: Omit<UndoManifest, 'files'>,
  paths: readonly string[],
): Promise<void> {
  await mkdir(dirname(dir), { recursive: true, mode: PRIVATE_DIR_MODE });
  // Not recursive: an existing dir (an id already used) must fail, not be mixed into.
  await mkdir(dir, { mode: PRIVATE_DIR_MODE });
  try {
    const files: SavedFile[] = [];
    for (const [index, path] of paths.entries()) {
      const current = await readPresent(path);
      if (current === null) {
        files.push({ path, copy: null, mode: null, bytes: null });
        continue;
      }
      const copy = `file-${index}`;
      await writeFileAtomic(join(dir, copy), current.bytes);
      files.push({ path, copy, mode: current.mode, bytes: current.bytes.length });
    }
    const manifest: UndoManifest = { ...meta, files };
    await writeFileAtomic(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function savedFileOf(value: unknown): SavedFile | null {
  if (!isRecord(value)) return null;
  const { path, copy, mode, bytes } = value;
  if (typeof path !== 'string' || path.includes('\0') || !isAbsolute(path) || normalize(path) !== path) return null;
  if (copy === null) return mode === null && bytes === null ? { path, copy, mode, bytes } : null;
  if (typeof copy !== 'string' || !isPlainName(copy) || copy === MANIFEST || !isCount(mode) || !isCount(bytes))
    return null;
  return { path, copy, mode, bytes };
}

function manifestOf(value: unknown, undoId: string): UndoManifest | null {
  if (!isRecord(value) || value.undoId !== undoId || !Array.isArray(value.files)) return null;
  const { sessionId, messageId, createdAt } = value;
  if (typeof sessionId !== 'string' || typeof messageId !== 'string' || typeof createdAt !== 'string') return null;
  const files: SavedFile[] = [];
  for (const item of value.files) {
    const file = savedFileOf(item);
    if (file === null) return null;
    files.push(file);
  }
  return { undoId, sessionId, messageId, createdAt, files };
}

/** NotFound when there is no such undo point (never made, already undone, or removed). */
export async function readUndoPoint(dir: string, undoId: string): Promise<UndoManifest> {
  const text = await readTextIfPresent(join(dir, MANIFEST));
  if (text === null)
    throw new RpcError(
      ErrorCode.NotFound,
      'NotFound',
      `no undo point ${undoId}: it was never made, or it was undone already`,
      { undoId },
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const manifest = manifestOf(parsed, undoId);
  if (manifest === null) {
    throw new RpcError(
      ErrorCode.InternalError,
      'CorruptUndoPoint',
      `the undo point ${dir} is damaged; its copies can still be restored by hand`,
      { undoId, dir },
    );
  }
  return manifest;
}

export async function removeUndoPoint(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Removes all but the newest `keep` undo points (ids sort by their time), so the state dir does not grow forever. */
export async function pruneUndoPoints(stateDir: string, keep = KEEP_UNDO_POINTS): Promise<string[]> {
  const root = undoRoot(stateDir);
  const ids = (await readdir(root).catch(() => [] as string[])).filter((name) => UNDO_ID.test(name)).sort();
  const old = ids.slice(0, Math.max(0, ids.length - keep));
  for (const id of old) await removeUndoPoint(join(root, id));
  return old;
}

/**
 * Undo dirs without a manifest: a save a crash interrupted. Nothing was restored from them (a
 * restore writes only after its manifest), so they are removed at start, under the instance lock.
 */
export function removeUnfinishedUndoPoints(stateDir: string): string[] {
  const root = undoRoot(stateDir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names.filter((entry) => UNDO_ID.test(entry))) {
    const dir = join(root, name);
    if (!lstatSync(dir).isDirectory() || existsSync(join(dir, MANIFEST))) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
