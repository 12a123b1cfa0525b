/**
 * The paths rewind reads and writes, each checked before the disk is touched: names and paths come
 * from transcripts, undo manifests and callers, and a restore writes wherever they point.
 */
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { fileHistoryDir } from '../../../shared/paths.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { isInside } from '../../fs/inside.js';

function rejected(message: string, data: Record<string, unknown>): RpcError {
  return new RpcError(ErrorCode.PathRejected, 'PathRejected', message, data);
}

/** One name inside a dir: no separator, no `..`, nothing that could leave the dir. */
export function isPlainName(name: string): boolean {
  return (
    name !== '' &&
    name !== '.' &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !name.includes('..') &&
    !name.includes('\0')
  );
}

/** `<claude root>/file-history/<sessionId>/<backupFileName>`. */
export function backupPath(claudeRoot: string, sessionId: string, backupFileName: string): string {
  if (!isPlainName(sessionId))
    throw rejected(`session id ${JSON.stringify(sessionId)} is not a plain name`, { sessionId });
  if (!isPlainName(backupFileName)) {
    throw rejected(
      `backup file name ${JSON.stringify(backupFileName)} is not a plain name; the transcript was not written by Claude Code`,
      { backupFileName },
    );
  }
  return join(fileHistoryDir(claudeRoot, sessionId), backupFileName);
}

/**
 * The absolute path of a file as recorded in a snapshot: relative to the session's cwd, and then
 * it must stay inside it; or absolute (Claude Code records files outside the cwd that way), and
 * then already normal, without `..`.
 */
export function trackedPath(cwd: string | null, recorded: string): string {
  if (recorded.includes('\0')) throw rejected('a recorded path holds a NUL byte', { path: recorded });
  if (isAbsolute(recorded)) {
    if (recorded.split(/[\\/]/).includes('..'))
      throw rejected(`recorded path ${recorded} climbs with ..`, { path: recorded });
    return normalize(recorded);
  }
  if (cwd === null || !isAbsolute(cwd)) {
    throw rejected(`recorded path ${recorded} is relative, but the session has no absolute cwd to resolve it against`, {
      path: recorded,
      cwd,
    });
  }
  const path = resolve(cwd, recorded);
  if (!isInside(cwd, path))
    throw rejected(`recorded path ${recorded} leaves the session's cwd ${cwd}`, { path: recorded, cwd });
  return path;
}
