/**
 * The handoff's files: `<cwd>/docs/handoff-context.md`, written atomically, and the line in
 * `<cwd>/.gitignore` that keeps it out of the repository (DESIGN.md §2), added once. And the
 * checks on the paths a caller names: cwd, and a transcript path that must stay in the projects dir.
 */
import { realpath, stat, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HANDOFF_RELATIVE_PATH, withIgnoredPath } from '../../shared/handoff/gitignore.js';
import { ErrorCode, invalidParams, RpcError } from '../../shared/protocol/errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { readTextIfPresent } from '../fs/read.js';

/** A new .gitignore is a normal repository file: readable by all, like the ones git users create. */
const NEW_GITIGNORE_MODE = 0o644;
const TRANSCRIPT_SUFFIX = '.jsonl';

export function handoffPath(cwd: string): string {
  return join(cwd, ...HANDOFF_RELATIVE_PATH.split('/'));
}

/** cwd resolved; InvalidParams unless it is an absolute path to an existing directory. */
export async function checkCwd(cwd: string): Promise<string> {
  if (!isAbsolute(cwd)) throw invalidParams(`cwd must be an absolute path, got ${JSON.stringify(cwd.slice(0, 200))}`, { field: 'params.cwd' });
  try {
    if ((await stat(cwd)).isDirectory()) return await realpath(cwd);
  } catch {
    // Reported below, as for a file.
  }
  throw invalidParams(`cwd must be an existing directory: ${cwd}`, { field: 'params.cwd' });
}

function rejected(message: string, path: string): RpcError {
  return new RpcError(ErrorCode.PathRejected, 'PathRejected', message, { path: path.slice(0, 4_096) });
}

/**
 * A transcript path a caller named (the PreCompact hook's `transcript_path`), resolved: PathRejected
 * unless it is a `.jsonl` file inside the projects dir, symlinks followed; NotFound when it is not there.
 */
export async function checkTranscriptPath(projectsDir: string, path: string): Promise<string> {
  if (!isAbsolute(path) || path.includes('\0')) throw rejected(`transcriptPath must be an absolute path, got ${JSON.stringify(path.slice(0, 200))}`, path);
  if (!path.endsWith(TRANSCRIPT_SUFFIX)) throw rejected(`transcriptPath must be a ${TRANSCRIPT_SUFFIX} transcript: ${path}`, path);
  const inside = (root: string, candidate: string) => {
    const rel = relative(root, candidate);
    return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
  };
  const root = await realpath(projectsDir).catch(() => resolve(projectsDir));
  if (!inside(resolve(projectsDir), resolve(path)) && !inside(root, resolve(path))) throw rejected(`transcriptPath must be under the projects dir ${projectsDir}: ${path}`, path);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new RpcError(ErrorCode.NotFound, 'NotFound', `no transcript at ${path}`, { path });
  }
  // The second pass: a symlink inside the projects dir must not lead out of it.
  if (!inside(root, real) || !real.endsWith(TRANSCRIPT_SUFFIX)) throw rejected(`transcriptPath leads out of the projects dir ${projectsDir}: ${path} -> ${real}`, path);
  if (!(await stat(real)).isFile()) throw rejected(`transcriptPath is not a file: ${path}`, path);
  return resolve(path);
}

/** Writes the handoff whole or not at all; docs/ is made first. */
export async function writeHandoff(cwd: string, text: string): Promise<string> {
  const path = handoffPath(cwd);
  await mkdir(join(cwd, 'docs'), { recursive: true });
  await writeFileAtomic(path, text);
  return path;
}

/** Adds the handoff to `<cwd>/.gitignore` unless a line there ignores it already; true when it changed the file. */
export async function ensureIgnored(cwd: string): Promise<boolean> {
  const link = join(cwd, '.gitignore');
  // A .gitignore that is a symlink is written through, not replaced by a plain file.
  const path = await realpath(link).catch(() => link);
  const text = await readTextIfPresent(path);
  const next = withIgnoredPath(text);
  if (next === null) return false;
  const mode = text === null ? NEW_GITIGNORE_MODE : (await stat(path)).mode & 0o777;
  await writeFileAtomic(path, next, mode);
  return true;
}
