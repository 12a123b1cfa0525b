/**
 * What a rewind does to each file, and doing it. Planning only reads; applying writes whole files
 * through writeFileAtomic, keeps a file's mode, and deletes with rm. One file's bytes are held at
 * a time, never the whole set.
 */
import { constants } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type { RewindFileChange } from '../../../shared/protocol/rewind.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { openIfPresent } from '../../fs/read.js';

/** What a file should become: the bytes of `source` (a backup or a saved copy), or absent (null). */
export interface FileTarget {
  path: string;
  source: string | null;
  /** The mode a write gives the file (an undo's saved one); default: its own, else the source's. */
  mode?: number | null;
}

export interface PlannedChange extends RewindFileChange {
  /** Where a write takes its bytes from. */
  source: string | null;
  /** The mode a write gives the file: its own where it exists. */
  mode: number;
}

export interface PresentFile {
  bytes: Buffer;
  mode: number;
}

/** Permission bits (with setuid/setgid/sticky): what chmod sets, without the file type. */
const PERMISSION_BITS = 0o7777;

/**
 * The file's bytes and mode; null when it (or a dir on its path) does not exist. A backup
 * (`followLinks` false) that is a symlink is refused: it could point at any file of the user's.
 */
export async function readPresent(path: string, followLinks = true): Promise<PresentFile | null> {
  let handle;
  try {
    // Non-blocking and regular files only (a FIFO on a restore plan must not block every later restore).
    handle = await openIfPresent(path, followLinks ? 0 : constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new RpcError(
        ErrorCode.PathRejected,
        'PathRejected',
        `${path} is a symlink; rewind never follows one to a backup`,
        { path },
      );
    if (error instanceof RpcError && error.kind === 'NotAFile')
      throw new RpcError(
        ErrorCode.PathRejected,
        'PathRejected',
        `${path} is not a regular file; rewind only restores files`,
        { path },
      );
    throw error;
  }
  if (handle === null) return null;
  try {
    const stats = await handle.stat();
    return { bytes: await handle.readFile(), mode: stats.mode & PERMISSION_BITS };
  } finally {
    await handle.close();
  }
}

export async function planChange(target: FileTarget): Promise<PlannedChange> {
  const { path } = target;
  const current = await readPresent(path);
  const before = current === null ? null : current.bytes.length;
  const stays = (action: 'unchanged' | 'missing-backup'): PlannedChange => ({
    path,
    action,
    bytesBefore: before,
    bytesAfter: before,
    source: null,
    mode: 0,
  });
  if (target.source === null) {
    return current === null
      ? stays('unchanged')
      : { path, action: 'delete', bytesBefore: before, bytesAfter: null, source: null, mode: 0 };
  }
  const wanted = await readPresent(target.source, false);
  if (wanted === null) return stays('missing-backup');
  if (current?.bytes.equals(wanted.bytes)) return stays('unchanged');
  return {
    path,
    action: 'write',
    bytesBefore: before,
    bytesAfter: wanted.bytes.length,
    source: target.source,
    mode: target.mode ?? current?.mode ?? wanted.mode,
  };
}

/** One after the other: each holds two files' bytes while it compares them. */
export async function planChanges(targets: readonly FileTarget[]): Promise<PlannedChange[]> {
  const changes: PlannedChange[] = [];
  for (const target of targets) changes.push(await planChange(target));
  return changes;
}

export const changesFiles = (change: PlannedChange): boolean => change.action === 'write' || change.action === 'delete';

export async function applyChange(change: PlannedChange): Promise<void> {
  if (change.action === 'delete') {
    await rm(change.path, { force: true });
    return;
  }
  if (change.action !== 'write' || change.source === null) return;
  const source = await readPresent(change.source, false);
  if (source === null) throw new Error(`${change.source} disappeared before it could be copied to ${change.path}`);
  await mkdir(dirname(change.path), { recursive: true });
  await writeFileAtomic(change.path, source.bytes, change.mode);
  // The new file's mode went through the umask; the file had exactly this one.
  await chmod(change.path, change.mode);
}

export function toResult({ path, action, bytesBefore, bytesAfter }: PlannedChange): RewindFileChange {
  return { path, action, bytesBefore, bytesAfter };
}
