/**
 * OS and SQLite errors that reach the dispatcher become domain errors that name the path and the
 * cause (issue 13 item 15), instead of a bare InternalError: a full disk or a file the user made
 * unreadable is the user's to fix, and they must be told which file and why.
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';

interface Cause {
  kind: string;
  text: string;
}

const ERRNO_CAUSES: Record<string, Cause> = {
  EACCES: { kind: 'PermissionDenied', text: 'permission denied' },
  EPERM: { kind: 'PermissionDenied', text: 'operation not permitted' },
  ENOSPC: { kind: 'DiskFull', text: 'no space left on the device' },
  EDQUOT: { kind: 'DiskFull', text: 'disk quota exceeded' },
  EISDIR: { kind: 'IsADirectory', text: 'is a directory, not a file' },
  ENOTDIR: { kind: 'NotADirectory', text: 'a part of the path is not a directory' },
  ENOENT: { kind: 'FileNotFound', text: 'no such file or directory' },
  EROFS: { kind: 'ReadOnlyFileSystem', text: 'the file system is read-only' },
  EMFILE: { kind: 'TooManyOpenFiles', text: 'too many open files' },
  ENFILE: { kind: 'TooManyOpenFiles', text: 'too many open files in the system' },
  ELOOP: { kind: 'SymlinkLoop', text: 'too many symbolic links' },
  ENAMETOOLONG: { kind: 'NameTooLong', text: 'the path is too long' },
  EIO: { kind: 'IoFailure', text: 'input/output error' },
  EEXIST: { kind: 'AlreadyExists', text: 'already exists' },
  ENOTEMPTY: { kind: 'DirectoryNotEmpty', text: 'the directory is not empty' },
  EXDEV: { kind: 'CrossDevice', text: 'cannot move across file systems' },
};

/** better-sqlite3's codes for the state database's own file system troubles. */
const SQLITE_CAUSES: Record<string, Cause> = {
  SQLITE_FULL: { kind: 'DiskFull', text: 'the disk holding the state database is full' },
  SQLITE_READONLY: { kind: 'ReadOnlyFileSystem', text: 'the state database cannot be written' },
  SQLITE_CANTOPEN: { kind: 'IoFailure', text: 'the state database cannot be opened' },
  SQLITE_IOERR: { kind: 'IoFailure', text: 'input/output error on the state database' },
  SQLITE_CORRUPT: { kind: 'IoFailure', text: 'the state database is corrupt (memd rebuilds it)' },
  SQLITE_NOTADB: { kind: 'IoFailure', text: 'the state database is not a database (memd rebuilds it)' },
};

const VERBS: Record<string, string> = {
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create the directory',
  rmdir: 'remove the directory',
  rename: 'rename',
  unlink: 'delete',
  rm: 'delete',
  scandir: 'list',
  opendir: 'list',
  stat: 'inspect',
  lstat: 'inspect',
  fstat: 'inspect',
  chmod: 'change the mode of',
  fchmod: 'change the mode of',
  copyfile: 'copy',
  symlink: 'link',
  access: 'access',
  realpath: 'resolve',
  readlink: 'read the link',
  fsync: 'flush',
  spawn: 'run',
};

/** A domain error for an OS or SQLite error; undefined for anything else (a bug: InternalError). */
export function osErrorToRpc(error: unknown): RpcError | undefined {
  if (typeof error !== 'object' || error === null || error instanceof RpcError) return undefined;
  const { code, path, dest, syscall } = error as { code?: unknown; path?: unknown; dest?: unknown; syscall?: unknown };
  if (typeof code !== 'string') return undefined;
  const sqlite = SQLITE_CAUSES[code] ?? (code.startsWith('SQLITE_IOERR') ? SQLITE_CAUSES.SQLITE_IOERR : undefined);
  if (sqlite !== undefined)
    return new RpcError(ErrorCode.IoError, sqlite.kind, sqlite.text, { cause: code, path: null });
  const cause = ERRNO_CAUSES[code];
  if (cause === undefined) return undefined;
  const where = typeof path === 'string' ? path : null;
  const verb = typeof syscall === 'string' ? (VERBS[syscall] ?? syscall) : 'use';
  const target = where === null ? 'a file' : where;
  const to = typeof dest === 'string' ? ` to ${dest}` : '';
  return new RpcError(ErrorCode.IoError, cause.kind, `cannot ${verb} ${target}${to}: ${cause.text} (${code})`, {
    cause: code,
    path: where,
    ...(typeof syscall === 'string' ? { syscall } : {}),
  });
}
