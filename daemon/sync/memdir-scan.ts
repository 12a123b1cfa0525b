/**
 * This machine's memory files as publish sees them: every project folder's `memory/` (scope
 * `private`) and `memory/team/` (scope `team`), walked with lstat and never through a link, each
 * memory with its fingerprint (stat), so that only files that changed are read. A scope whose dir
 * could not be read whole is `refused`, and nothing of it counts as deleted.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { INDEX_FILE } from '../../shared/memdir/index-file.js';
import { checkMemoryName, MAX_DEPTH } from '../../shared/memdir/names.js';
import type { MemoryScope } from '../../shared/protocol/memdir.js';
import { isMissingPath } from '../fs/read.js';
import { MEMORY_DIR, TEAM_DIR } from '../memory/memdir/store.js';
import type { Slicer } from '../workers/slices.js';
import { isProjectFolder, memoryKey } from './memdir-manifest.js';
import { fingerprintText, RefusedPath } from './synced-files.js';

const MEMORY_EXT = '.md';

export interface LocalFile {
  key: string;
  project: string;
  scope: MemoryScope;
  name: string;
  /** The scope's dir, which the memdir store's safe reads take as their root. */
  dir: string;
  fingerprint: string;
  size: number;
  mtimeMs: number;
}

export interface ScopeScan {
  project: string;
  scope: MemoryScope;
  /** `read`: every memory of the scope is in `files` (none when the dir is absent). */
  state: 'read' | 'refused';
  files: LocalFile[];
}

export interface LocalScan {
  /** The project folders present (a memory of a project not here is not deleted, only not here). */
  projects: Set<string>;
  scopes: ScopeScan[];
  /** What was passed over, with why: links, FIFOs, unreadable dirs. */
  refused: { path: string; reason: string }[];
}

const SCOPES: readonly MemoryScope[] = ['private', 'team'];

async function entriesOf(dir: string): Promise<Dirent[] | null> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissingPath(error)) return [];
    return null;
  }
}

export async function scanLocalMemdirs(projectsDir: string, maxFiles: number, slicer: Slicer): Promise<LocalScan> {
  const scan: LocalScan = { projects: new Set(), scopes: [], refused: [] };
  let total = 0;

  /** Whether the walk read every memory of the dir (and below). */
  async function walk(scope: ScopeScan, root: string, dir: string, depth: number): Promise<boolean> {
    const entries = await entriesOf(dir);
    if (entries === null) {
      scan.refused.push({ path: dir, reason: 'the dir cannot be read' });
      return false;
    }
    let whole = true;
    for (const entry of entries) {
      await slicer.tick();
      const path = join(dir, entry.name);
      // Locks, temp files and anything hidden are memd's or the user's own, not memories.
      if (entry.name.startsWith('.')) continue;
      if (dir === root && (entry.name === INDEX_FILE || (scope.scope === 'private' && entry.name === TEAM_DIR)))
        continue;
      if (entry.isSymbolicLink()) {
        scan.refused.push({ path, reason: 'a symbolic link (never followed)' });
      } else if (entry.isDirectory()) {
        if (depth >= MAX_DEPTH || !(await walk(scope, root, path, depth + 1))) whole = false;
      } else if (entry.name.endsWith(MEMORY_EXT)) {
        if (!entry.isFile()) {
          scan.refused.push({ path, reason: 'not a regular file (a FIFO or device is never opened)' });
          continue;
        }
        const name = relative(root, path).slice(0, -MEMORY_EXT.length).split(sep).join('/');
        if (!checkMemoryName(name, scope.scope).ok) continue;
        if (total >= maxFiles) return false;
        const stat = await lstat(path).catch(() => null);
        if (stat === null || !stat.isFile()) {
          whole = false;
          continue;
        }
        total += 1;
        const { project } = scope;
        scope.files.push({
          key: memoryKey({ project, scope: scope.scope, name }),
          project,
          scope: scope.scope,
          name,
          dir: root,
          fingerprint: fingerprintText(stat),
          size: stat.size,
          mtimeMs: stat.mtimeMs,
        });
      }
    }
    return whole;
  }

  const projects = await entriesOf(projectsDir);
  if (projects === null) throw new RefusedPath(`the projects dir ${projectsDir} cannot be read`);
  for (const project of projects) {
    // A project folder that is a link is not Claude Code's: never followed.
    if (!project.isDirectory() || !isProjectFolder(project.name)) continue;
    scan.projects.add(project.name);
    let parentRefused = false;
    for (const scope of SCOPES) {
      const dir = join(projectsDir, project.name, MEMORY_DIR, ...(scope === 'team' ? [TEAM_DIR] : []));
      const result: ScopeScan = { project: project.name, scope, state: 'read', files: [] };
      scan.scopes.push(result);
      const stat = parentRefused
        ? null
        : await lstat(dir).catch((error: unknown) => (isMissingPath(error) ? undefined : null));
      if (stat === undefined) continue;
      if (stat === null || !stat.isDirectory()) {
        // team/ under a linked memory/ would be read through the link: refused with it.
        if (!parentRefused) scan.refused.push({ path: dir, reason: 'not a plain dir (a link is never followed)' });
        parentRefused = true;
        result.state = 'refused';
        continue;
      }
      if (!(await walk(result, dir, dir, 1))) result.state = 'refused';
    }
  }
  return scan;
}
