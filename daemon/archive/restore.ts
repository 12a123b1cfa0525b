/**
 * `archive.restore`: a session's archived files written back byte for byte where Claude Code keeps
 * them (or under another dir), so that `claude --resume ID` works again. A file already there with
 * the same bytes is left; one with other bytes is never overwritten (Conflict, nothing written).
 * Each file is inflated into a temp file beside its target and linked into place, which fails
 * rather than replace a file that appeared meanwhile; no path component may be a symlink.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ArchiveRestoreResult } from '../../shared/protocol/archive.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { isInside } from '../fs/inside.js';
import { ARCHIVE_FILE_MODE, archivePathOf } from './layout.js';
import { compareChunksWithFile, inflate } from './read.js';
import type { ArchiveRow } from './store.js';

/** Dirs made for restored files: as Claude Code makes its own. */
const RESTORED_DIR_MODE = 0o700;

const pathRejected = (message: string, path: string) =>
  new RpcError(ErrorCode.PathRejected, 'PathRejected', message, { path });

/** Refuses a symlink anywhere between `base` and `path` (the file itself included). */
export async function checkNoSymlink(base: string, path: string): Promise<void> {
  let current = base;
  for (const part of relative(base, path).split(sep)) {
    current = join(current, part);
    const stat = await lstat(current).catch(() => null);
    if (stat === null) return;
    if (stat.isSymbolicLink())
      throw pathRejected(`${current} is a symlink: memd does not restore through one`, current);
  }
}

/** One file to restore: where it goes under its project folder, its length, and its bytes. */
export interface RestoreSource {
  project: string;
  rel: string;
  bytes: number;
  /** Where the bytes come from, for messages. */
  from: string;
  chunks(): AsyncIterable<Buffer>;
}

async function writeTo(source: RestoreSource, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true, mode: RESTORED_DIR_MODE });
  const temp = join(
    dirname(target),
    `.${source.rel.split(sep).pop() ?? 'file'}.memd-restore.${process.pid}.${randomBytes(6).toString('hex')}`,
  );
  const file = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    ARCHIVE_FILE_MODE,
  );
  try {
    let written = 0;
    for await (const chunk of source.chunks()) {
      await file.write(chunk);
      written += chunk.length;
    }
    if (written !== source.bytes)
      throw new Error(`${source.from} holds ${written} bytes, not the ${source.bytes} it was written with`);
    await file.sync();
    await file.close();
    // link() fails if the target appeared since it was checked: never overwritten.
    await link(temp, target);
  } catch (error) {
    await file.close().catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new RpcError(
        ErrorCode.Conflict,
        'Conflict',
        `${target} appeared while memd restored it; it was left as it is`,
        { path: target },
      );
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/** The archive's rows as restore sources: each file inflated from its gzip copy. */
export function archiveSources(stateDir: string, rows: readonly ArchiveRow[]): RestoreSource[] {
  return rows
    .filter((row) => row.pruned_at === null && row.source_bytes > 0)
    .map((row) => {
      const archivePath = archivePathOf(stateDir, row);
      return {
        project: row.project,
        rel: row.rel,
        bytes: row.source_bytes,
        from: `archive ${archivePath}`,
        chunks: () => inflate(archivePath, row.archive_bytes),
      };
    });
}

export async function restoreSession(
  deps: { projectsDir: string },
  sessionId: string,
  sources: readonly RestoreSource[],
  to: string | undefined,
): Promise<ArchiveRestoreResult> {
  if (sources.length === 0)
    throw new RpcError(ErrorCode.NotFound, 'NotFound', `memd has no archive of session ${sessionId}`, { sessionId });
  const plan = [] as { source: RestoreSource; target: string; present: boolean }[];
  const conflicts: string[] = [];
  for (const source of sources) {
    const base = to === undefined ? join(deps.projectsDir, source.project) : resolve(to);
    const target = join(base, source.rel);
    if (!isInside(base, target)) throw pathRejected(`archived path ${source.rel} leads outside ${base}`, target);
    await checkNoSymlink(base, target);
    const existing = await lstat(target).catch(() => null);
    let present = false;
    if (existing !== null) {
      present = existing.isFile() && (await compareChunksWithFile(source.chunks(), target, true)).equal;
      if (!present) conflicts.push(target);
    }
    plan.push({ source, target, present });
  }
  if (conflicts.length > 0) {
    throw new RpcError(
      ErrorCode.Conflict,
      'Conflict',
      `not restored: ${conflicts.length === 1 ? `${conflicts[0]} exists` : `${conflicts.length} files exist`} with other content (memd never overwrites them; move them away or restore with --to DIR)`,
      {
        paths: conflicts,
      },
    );
  }
  const files: ArchiveRestoreResult['files'] = [];
  for (const { source, target, present } of plan) {
    if (!present) await writeTo(source, target);
    files.push({ path: target, bytes: source.bytes, action: present ? 'present' : 'restored' });
  }
  return { sessionId, files };
}
