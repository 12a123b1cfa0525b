/** The projects dir's transcripts, as the disk has them now: what the backfill and the sweep compare with the index. */
import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FoundFile } from './ingestor.js';
import { classifyTranscript, isIgnoredPath, TRANSCRIPT_MAX_DEPTH } from './layout.js';

export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

/** Stats in flight at once: enough for the thread pool, few enough that requests interleave with their completions. */
const SCAN_CONCURRENCY = 16;

async function listDir(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Every transcript under `root` with its size, inode and mtime. A bounded number of calls at a
 * time: thousands of stats issued at once cost one long stretch of the event loop to issue and
 * another to settle, which every client would wait behind. Dirs are known from their dirent; a
 * symlink (or a file system without dirent types) is stat'ed, following it as before.
 */
export async function scanTranscripts(root: string): Promise<(FoundFile & { mtimeMs: number })[]> {
  const found: (FoundFile & { mtimeMs: number })[] = [];
  const work: { path: string; depth: number; kind: 'dir' | 'unknown' }[] = [{ path: root, depth: 1, kind: 'dir' }];
  const visitDir = async (dir: string, depth: number): Promise<void> => {
    for (const dirent of await listDir(dir)) {
      const path = join(dir, dirent.name);
      if (dirent.isDirectory()) {
        if (depth < TRANSCRIPT_MAX_DEPTH && !isIgnoredPath(root, path, true)) work.push({ path, depth: depth + 1, kind: 'dir' });
      } else if (dirent.isFile() ? classifyTranscript(root, path) !== null : !isIgnoredPath(root, path, undefined)) {
        work.push({ path, depth, kind: 'unknown' });
      }
    }
  };
  const visit = async (item: { path: string; depth: number; kind: 'dir' | 'unknown' }): Promise<void> => {
    if (item.kind === 'dir') return visitDir(item.path, item.depth);
    const stats = await statOrNull(item.path);
    if (stats === null || isIgnoredPath(root, item.path, stats.isDirectory())) return;
    if (stats.isDirectory()) {
      if (item.depth < TRANSCRIPT_MAX_DEPTH) work.push({ path: item.path, depth: item.depth + 1, kind: 'dir' });
    } else if (stats.isFile() && classifyTranscript(root, item.path) !== null) {
      found.push({ path: item.path, size: stats.size, ino: String(stats.ino), mtimeMs: stats.mtimeMs });
    }
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failure: unknown = null;
    const pump = (): void => {
      while (failure === null && active < SCAN_CONCURRENCY && work.length > 0) {
        active += 1;
        visit(work.pop() as (typeof work)[number]).then(
          () => {
            active -= 1;
            pump();
          },
          (error: unknown) => {
            active -= 1;
            failure ??= error;
            pump();
          },
        );
      }
      if (active === 0 && (failure !== null || work.length === 0)) {
        if (failure === null) resolve();
        else reject(failure as Error);
      }
    };
    pump();
  });
  return found;
}
