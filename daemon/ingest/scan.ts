/** The projects dir's transcripts, as the disk has them now: what the backfill and the sweep compare with the index. */
import type { Dirent, Stats } from 'node:fs';
import { readdirSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { classifyTranscript, isIgnoredPath, TRANSCRIPT_MAX_DEPTH } from '../../shared/transcript/layout.js';
import type { FoundFile } from './types.js';
import { systemTreeReason } from './watch-health.js';

export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

/** The longest the scan holds the event loop before it lets requests and events through. */
const SCAN_SLICE_MS = 5;

function statSyncOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function listDir(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Every transcript under `root` with its size, inode and mtime. Synchronous calls in slices of
 * SCAN_SLICE_MS: from the page cache a stat takes a few microseconds, where a thread-pool stat
 * costs the main thread ~30 µs to issue and settle (1.8 s at 50,000 files, at every full sweep).
 * Dirs are known from their dirent; a symlink (or a file system without dirent types) is
 * stat'ed, following it as before.
 */
export async function scanTranscripts(root: string): Promise<(FoundFile & { mtimeMs: number })[]> {
  const found: (FoundFile & { mtimeMs: number })[] = [];
  // The watcher refuses these too (watch-health.ts); a scan asked for elsewhere (a rebuilt index) must not walk them either.
  if (systemTreeReason(await realpath(root).catch(() => root)) !== null) return found;
  const work: { path: string; depth: number; kind: 'dir' | 'unknown' }[] = [{ path: root, depth: 1, kind: 'dir' }];
  const visitDir = (dir: string, depth: number): void => {
    for (const dirent of listDir(dir)) {
      const path = join(dir, dirent.name);
      if (dirent.isDirectory()) {
        if (depth < TRANSCRIPT_MAX_DEPTH && !isIgnoredPath(root, path, true))
          work.push({ path, depth: depth + 1, kind: 'dir' });
      } else if (dirent.isFile() ? classifyTranscript(root, path) !== null : !isIgnoredPath(root, path, undefined)) {
        work.push({ path, depth, kind: 'unknown' });
      }
    }
  };
  const visit = (item: { path: string; depth: number; kind: 'dir' | 'unknown' }): void => {
    if (item.kind === 'dir') return visitDir(item.path, item.depth);
    const stats = statSyncOrNull(item.path);
    if (stats === null || isIgnoredPath(root, item.path, stats.isDirectory())) return;
    if (stats.isDirectory()) {
      if (item.depth < TRANSCRIPT_MAX_DEPTH) work.push({ path: item.path, depth: item.depth + 1, kind: 'dir' });
    } else if (stats.isFile() && classifyTranscript(root, item.path) !== null) {
      found.push({ path: item.path, size: stats.size, ino: String(stats.ino), mtimeMs: stats.mtimeMs });
    }
  };
  let sliceStart = performance.now();
  while (work.length > 0) {
    visit(work.pop() as (typeof work)[number]);
    if (performance.now() - sliceStart >= SCAN_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return found;
}
