/**
 * The rule for files memd reads and writes in a user's working tree (`docs/handoff-context.md`,
 * `.gitignore`), which the daemon (daemon/fs/work-tree.ts, asynchronous) and the hooks without a
 * daemon (client/memctl/work-tree.ts, synchronous) both follow: the tree may be a repository
 * someone else wrote, so nothing in it is trusted. A path is plain and relative; no symlink is
 * followed below the root (each directory is lstat'ed, the file opened O_NOFOLLOW and fstat'ed);
 * only regular files up to a cap are read or replaced; an existing file keeps its mode. Pure: the
 * decisions, not the I/O. test/helpers/work-tree-cases.ts runs one table against both.
 */

/** A handoff or .gitignore bigger than this is not one memd wrote or should load whole. */
export const MAX_WORK_TREE_FILE_BYTES = 4 * 1024 * 1024;
/** Directories memd creates in the tree (docs/): as the user's own `mkdir` makes them, 0777 less their umask. */
export const NEW_WORK_TREE_DIR_MODE = 0o777;

export type WorkTreeRead =
  | { kind: 'file'; text: string; mode: number }
  | { kind: 'absent' }
  | { kind: 'refused'; reason: string };

export class WorkTreeRefusal extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'WorkTreeRefusal';
  }
}

/** The path's components; throws for an absolute path, `.`, `..` or an empty component: nothing outside the root. */
export function workTreeParts(relativePath: string): string[] {
  const parts = relativePath.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new Error(`not a plain relative path: ${relativePath}`);
  return parts;
}

/** What lstat or fstat says, as far as the rule needs it. */
interface Found {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFile(): boolean;
  size: number;
}

export function symlinkRefusal(path: string): string {
  return `${path} is a symlink; memd does not follow symlinks in a working tree`;
}

/** Why a directory on the way (lstat'ed) cannot be gone through, or null. */
export function directoryRefusal(path: string, found: Found): string | null {
  if (found.isSymbolicLink()) return symlinkRefusal(path);
  if (!found.isDirectory()) return `${path} is not a directory`;
  return null;
}

/** Why the file (fstat'ed through a descriptor opened O_NOFOLLOW) is not read, or null. */
export function fileRefusal(path: string, found: Found): string | null {
  if (!found.isFile()) return `${path} is not a regular file`;
  if (found.size > MAX_WORK_TREE_FILE_BYTES) return `${path} is ${found.size} bytes, over ${MAX_WORK_TREE_FILE_BYTES}`;
  return null;
}

/** The error of a path that is not there: a component missing, or one that is no directory (ENOTDIR). */
export function isMissingPath(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
