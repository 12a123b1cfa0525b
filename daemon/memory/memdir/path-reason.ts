/**
 * The refusals of the memory dir's path checks: why a memory path was rejected (PathReason, after
 * the name passed shared/memdir/names.ts), as the RpcError clients receive. Its own file because the
 * symlink resolution (realpath-deepest.ts) and the reads and writes (safe-path.ts) refuse alike.
 */
import type { NameReason } from '../../../shared/memdir/names.js';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';

/** Why a path was rejected after its name passed the lexical checks of shared/memdir/names.ts. */
export const PathReason = {
  /** The lexically resolved path left the memory dir (unreachable after the name checks; kept as a second line). */
  OutsideRoot: 'outside-root',
  /** A symlink on the way (dangling or not) leads outside the memory dir. */
  SymlinkEscape: 'symlink-escape',
  /** A symlink loop, or more links in a row than the kernel would follow. */
  SymlinkLoop: 'symlink-loop',
  /** The memory file itself is a symlink: never read through. */
  SymlinkTarget: 'symlink-target',
  /** A dir on the way is a file (or other non-dir). */
  NotADirectory: 'not-a-directory',
  /** The memory's path holds a dir or a device, not a regular file. */
  NotAFile: 'not-a-file',
  /** A dir on the path was replaced (e.g. by a symlink) while the file was being written or read. */
  Swapped: 'swapped-during-io',
} as const;

export type PathReason = (typeof PathReason)[keyof typeof PathReason];
export type RejectionReason = NameReason | PathReason;

export function pathRejected(reason: RejectionReason, message: string): RpcError {
  return new RpcError(ErrorCode.PathRejected, 'PathRejected', message, { reason });
}

/** The errno code of a failed fs call: which ones are refusals, and which are only absence, is decided by it. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
