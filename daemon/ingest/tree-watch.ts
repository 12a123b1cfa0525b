/**
 * chokidar over the projects dir, one project dir at a time. One instance over the whole tree
 * walks every project at once: thousands of stat and watch callbacks settle together, and the
 * event loop is held for 150–300 ms at a time (measured at 2,563 files), which every client waits
 * behind. Here a root instance watches the projects dir itself (depth 0: project dirs coming and
 * going, and the root's own removal), and each project dir gets an instance of its own, made one
 * after the other as the one before becomes ready. A project dir that appears later gets one at
 * once, reporting the files already in it (they were written before its watch existed).
 */

import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { isIgnoredPath, TRANSCRIPT_MAX_DEPTH } from '../../shared/transcript/layout.js';
import { systemTreeReason } from './watch-health.js';

/**
 * After each project's initial walk, a pause as long as the walk took (at most this): the walk
 * keeps the main thread and the thread pool busy, and a client arriving at start-up (the first
 * `memctl sessions`) would otherwise wait for a core. The ready sweep covers what the walk missed.
 */
const WALK_PAUSE_MAX_MS = 200;
/** How long a removed project dir's instance stays, for chokidar to report the unlinks of its files. */
const PROJECT_CLOSE_GRACE_MS = 1_000;

export interface TreeWatchHandlers {
  /** A file was added, changed or removed. */
  changed(path: string): void;
  /** chokidar dropped its watch of the root itself, or the root no longer resolves where it did. */
  rootDropped(): void;
  /** Every project dir there at the start is watched (its initial walk is done). */
  ready(): void;
  error(error: unknown): void;
}

export interface TreeWatch {
  close(): Promise<void>;
}

/** The files an instance watches (chokidar lists each watched dir's entries; a dir is listed as a key too). */
function watchedFiles(watcher: FSWatcher): string[] {
  const watched = watcher.getWatched();
  const files: string[] = [];
  for (const [dir, names] of Object.entries(watched))
    for (const name of names) {
      const path = join(dir, name);
      if (!Object.hasOwn(watched, path)) files.push(path);
    }
  return files;
}

export function watchTree(rootPath: string, handlers: TreeWatchHandlers): TreeWatch {
  const root = resolve(rootPath);
  const ignored = (path: string, stats?: Stats) =>
    isIgnoredPath(root, path, stats === undefined ? undefined : stats.isDirectory());
  const projects = new Map<string, FSWatcher>();
  /** Ends the wait for an instance's initial walk: ready, failed, or closed first (its dir went). */
  const walked = new Map<FSWatcher, () => void>();
  let closed = false;

  const listen = (watcher: FSWatcher) => {
    watcher.on('add', handlers.changed);
    watcher.on('change', handlers.changed);
    watcher.on('unlink', handlers.changed);
    watcher.on('error', handlers.error);
  };

  /** Resolves once the project's initial walk is done (or it could not be watched: the error says so). */
  const watchProject = (dir: string, reportExisting: boolean): Promise<void> => {
    if (closed || projects.has(dir)) return Promise.resolve();
    // Levels below the project dir: <session>/subagents/<file>.
    const watcher = chokidar.watch(dir, { ignoreInitial: !reportExisting, ignored, depth: TRANSCRIPT_MAX_DEPTH - 2 });
    projects.set(dir, watcher);
    listen(watcher);
    watcher.on('unlinkDir', (path) => {
      if (resolve(path) !== dir) return;
      // The dir went: chokidar reports its files' unlinks just after; the instance goes then.
      setTimeout(() => unwatchProject(dir, watcher), PROJECT_CLOSE_GRACE_MS).unref();
    });
    return new Promise((finish) => {
      const done = () => {
        walked.delete(watcher);
        finish();
      };
      walked.set(watcher, done);
      watcher.once('ready', () => {
        // A dir that appeared: what was written to its files between chokidar's walk and its
        // watches being in place raised no event (a transcript created, seen empty, then written,
        // under load), so every file it walked is told once more now that they are watched.
        if (reportExisting) for (const file of watchedFiles(watcher)) handlers.changed(file);
        done();
      });
      watcher.once('error', done);
    });
  };

  const unwatchProject = (dir: string, watcher: FSWatcher) => {
    if (projects.get(dir) === watcher) projects.delete(dir);
    walked.get(watcher)?.();
    void watcher.close();
  };

  /**
   * Whether the root still resolves where it did when the watch was made: a project watch is
   * made only then (each walks its dir; one per entry of `/` held the loop 150-290 ms). The
   * watcher's health check refuses or re-arms a root that moved (watch-health.ts).
   */
  const realRoot = realpath(root).catch(() => null);
  const stillRoot = async (): Promise<boolean> => {
    const now = await realpath(root).catch(() => null);
    return now !== null && now === (await realRoot) && systemTreeReason(now) === null;
  };

  const rootWatcher = chokidar.watch(root, { ignoreInitial: true, ignored, depth: 0 });
  listen(rootWatcher);
  rootWatcher.on('addDir', (path) => {
    const dir = resolve(path);
    if (dir === root) return;
    void (async () => {
      // chokidar follows the root's path: swapped for a symlink to `/`, the root "gains" /usr, /proc...
      if (!(await stillRoot())) return handlers.rootDropped();
      if (closed) return;
      // A dir made again at once: the old instance may still wait for its grace period.
      const old = projects.get(dir);
      if (old !== undefined) unwatchProject(dir, old);
      void watchProject(dir, true);
    })();
  });
  rootWatcher.on('unlinkDir', (path) => {
    if (resolve(path) === root) handlers.rootDropped();
  });
  rootWatcher.once('ready', () => {
    void (async () => {
      const dirents: Dirent[] = await readdir(root, { withFileTypes: true }).catch(() => []);
      for (const dirent of dirents) {
        const dir = join(root, dirent.name);
        // A symlink or an unknown type is left to chokidar's own check (it follows symlinks).
        if (dirent.isFile() || isIgnoredPath(root, dir, dirent.isDirectory() ? true : undefined)) continue;
        if (!(await stillRoot())) return handlers.rootDropped();
        const started = performance.now();
        await watchProject(dir, false);
        if (closed) return;
        await new Promise((resume) => setTimeout(resume, Math.min(performance.now() - started, WALK_PAUSE_MAX_MS)));
        if (closed) return;
      }
      handlers.ready();
    })();
  });

  return {
    async close() {
      closed = true;
      const all = [rootWatcher, ...projects.values()];
      for (const done of [...walked.values()]) done();
      projects.clear();
      await Promise.all(all.map((watcher) => watcher.close()));
    },
  };
}
