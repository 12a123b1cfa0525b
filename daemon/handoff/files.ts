/**
 * The handoff's files: `<cwd>/docs/handoff-context.md`, written atomically, and the line in
 * `<cwd>/.gitignore` that keeps it out of the repository (DESIGN.md §2), added once. And the
 * checks on the paths a caller names: cwd, and a transcript path that must stay in the projects dir.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { HANDOFF_RELATIVE_PATH, withIgnoredPath } from '../../shared/handoff/gitignore.js';
import { ErrorCode, invalidParams, RpcError } from '../../shared/protocol/errors.js';
import { PRIVATE_FILE_MODE } from '../fs/atomic.js';
import { isInside } from '../fs/inside.js';
import { readInWorkTree, type WorkTreeRead, WorkTreeRefusal, writeInWorkTree } from '../fs/work-tree.js';

/** A new .gitignore is a normal repository file: readable by all, like the ones git users create. */
const NEW_GITIGNORE_MODE = 0o644;
const TRANSCRIPT_SUFFIX = '.jsonl';
const GITIGNORE = '.gitignore';

export function handoffPath(cwd: string): string {
  return join(cwd, ...HANDOFF_RELATIVE_PATH.split('/'));
}

/**
 * Kernel file systems: their "directories" are views of processes and devices (`/proc/self`
 * holds `cwd` and `root` links back to `/`), never a working tree; walking them never ends.
 */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];

/**
 * cwd resolved; InvalidParams unless it is an absolute path to an existing directory that is no
 * part of /proc, /sys or /dev (checked on the resolved path, so a link into them is refused too).
 */
export async function checkCwd(cwd: string): Promise<string> {
  if (!isAbsolute(cwd))
    throw invalidParams(`cwd must be an absolute path, got ${JSON.stringify(cwd.slice(0, 200))}`, {
      field: 'params.cwd',
    });
  let real: string | null = null;
  try {
    if ((await stat(cwd)).isDirectory()) real = await realpath(cwd);
  } catch {
    // Reported below, as for a file.
  }
  if (real === null) throw invalidParams(`cwd must be an existing directory: ${cwd}`, { field: 'params.cwd' });
  const pseudo = PSEUDO_ROOTS.find((root) => real === root || real.startsWith(`${root}/`));
  if (pseudo !== undefined)
    throw invalidParams(
      `cwd must be a directory of yours, not part of ${pseudo}: ${cwd}${real === cwd ? '' : ` (${real})`}`,
      { field: 'params.cwd' },
    );
  return real;
}

function rejected(message: string, path: string): RpcError {
  return new RpcError(ErrorCode.PathRejected, 'PathRejected', message, { path: path.slice(0, 4_096) });
}

/**
 * A transcript path a caller named (the PreCompact hook's `transcript_path`), resolved: PathRejected
 * unless it is a `.jsonl` file inside the projects dir, symlinks followed; NotFound when it is not there.
 */
export async function checkTranscriptPath(projectsDir: string, path: string): Promise<string> {
  if (!isAbsolute(path) || path.includes('\0'))
    throw rejected(`transcriptPath must be an absolute path, got ${JSON.stringify(path.slice(0, 200))}`, path);
  if (!path.endsWith(TRANSCRIPT_SUFFIX))
    throw rejected(`transcriptPath must be a ${TRANSCRIPT_SUFFIX} transcript: ${path}`, path);
  const root = await realpath(projectsDir).catch(() => resolve(projectsDir));
  if (!isInside(resolve(projectsDir), resolve(path)) && !isInside(root, resolve(path)))
    throw rejected(`transcriptPath must be under the projects dir ${projectsDir}: ${path}`, path);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new RpcError(ErrorCode.NotFound, 'NotFound', `no transcript at ${path}`, { path });
  }
  // The second pass: a symlink inside the projects dir must not lead out of it.
  if (!isInside(root, real) || !real.endsWith(TRANSCRIPT_SUFFIX))
    throw rejected(`transcriptPath leads out of the projects dir ${projectsDir}: ${path} -> ${real}`, path);
  if (!(await stat(real)).isFile()) throw rejected(`transcriptPath is not a file: ${path}`, path);
  return resolve(path);
}

/** Writes the handoff whole or not at all; docs/ is made first. WorkTreeRefusal through a symlink. */
export async function writeHandoff(cwd: string, text: string): Promise<string> {
  return writeInWorkTree(cwd, HANDOFF_RELATIVE_PATH, text, PRIVATE_FILE_MODE);
}

/** The handoff's text; null when there is none, or when it is not a regular file of the tree (the reason logged by the caller). */
export async function readHandoff(cwd: string): Promise<WorkTreeRead> {
  return readInWorkTree(cwd, HANDOFF_RELATIVE_PATH);
}

/**
 * Adds the handoff to `<cwd>/.gitignore` unless a line there ignores it already: `changed` when
 * it wrote the file, `skipped` with the reason when the .gitignore is a symlink or no regular file
 * (it is never written through: a committed link can point at any file of the user's).
 */
export async function ensureIgnored(cwd: string): Promise<{ changed: boolean; skipped: string | null }> {
  const current = await readInWorkTree(cwd, GITIGNORE);
  if (current.kind === 'refused') return { changed: false, skipped: current.reason };
  const next = withIgnoredPath(current.kind === 'file' ? current.text : null);
  if (next === null) return { changed: false, skipped: null };
  try {
    await writeInWorkTree(cwd, GITIGNORE, next, NEW_GITIGNORE_MODE);
  } catch (error) {
    if (error instanceof WorkTreeRefusal) return { changed: false, skipped: error.reason };
    throw error;
  }
  return { changed: true, skipped: null };
}
