/**
 * The rest of a session's folder (`<projects>/<project>/<sessionId>/`): persisted tool results
 * (`tool-results/`), sub-agents' `.meta.json` and whatever else Claude Code keeps there beside the
 * transcripts (which ingest follows: archiver.ts). Whole files, written once, archived whole (one
 * gzip member, written atomically) and again only if one changes. The session memory memd writes
 * itself is not archived. Only regular files: a symlink or FIFO there is passed over.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { ArchiveCapReached, compress } from './append.js';
import { ARCHIVE_DIR_MODE, ARCHIVE_FILE_MODE, archivePathOf } from './layout.js';
import type { ArchiveStore } from './store.js';

/** A larger file is not archived (tool results are tens of kilobytes; a huge one is an accident). */
export const MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;
/** Bounds on the walk: Claude Code's session folders are two levels deep and hold tens of files. */
const MAX_DEPTH = 4;
const MAX_FILES = 10_000;
/** memd's own output in the folder. */
const SKIPPED_DIRS = new Set(['session-memory']);
/** Temp files of a write in progress (a restore's, an atomic write's): not the session's files. */
const TEMP_NAME = /\.memd-restore\.\d+\.[0-9a-f]+$|^\..+\.\d+\.[0-9a-f]{12}\.tmp$/;

export interface SessionFilesDeps {
  store: ArchiveStore;
  projectsDir: string;
  stateDir: string;
  now: number;
  capBytes: number;
  /** Transcripts are archived as ingest reads them, not whole. */
  isTranscript(path: string): boolean;
}

async function listFiles(dir: string, depth: number, found: string[]): Promise<void> {
  if (depth > MAX_DEPTH || found.length >= MAX_FILES) return;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) await listFiles(path, depth + 1, found);
    else if (entry.isFile() && !TEMP_NAME.test(entry.name) && found.length < MAX_FILES) found.push(path);
  }
}

/** Archives the session folder's files not archived yet (or changed); returns how many. */
export async function archiveSessionFiles(
  deps: SessionFilesDeps,
  session: { project: string; sessionId: string },
): Promise<number> {
  const projectDir = join(deps.projectsDir, session.project);
  const paths: string[] = [];
  await listFiles(join(projectDir, session.sessionId), 1, paths);
  let archived = 0;
  for (const path of paths) {
    if (deps.isTranscript(path)) continue;
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
    if (file === null) continue;
    try {
      const stat = await file.stat();
      if (!stat.isFile() || stat.size > MAX_SESSION_FILE_BYTES) continue;
      const known = deps.store.get(path);
      const mtime = Math.floor(stat.mtimeMs);
      if (
        known !== undefined &&
        (known.pruned_at !== null || (known.source_bytes === stat.size && known.mtime_ms === mtime))
      )
        continue;
      const bytes = await file.readFile();
      const member = await compress(bytes);
      if (deps.store.totals().archiveBytes + member.length > deps.capBytes) throw new ArchiveCapReached(deps.capBytes);
      const row = {
        path,
        session_id: session.sessionId,
        project: session.project,
        rel: relative(projectDir, path),
        kind: 'file' as const,
      };
      const target = archivePathOf(deps.stateDir, row);
      await mkdir(dirname(target), { recursive: true, mode: ARCHIVE_DIR_MODE });
      await writeFileAtomic(target, member, ARCHIVE_FILE_MODE);
      deps.store.put({
        ...row,
        generation: 0,
        source_bytes: bytes.length,
        archive_bytes: member.length,
        mtime_ms: mtime,
        archived_at: deps.now,
        pruned_at: null,
      });
      archived += 1;
    } finally {
      await file.close();
    }
  }
  return archived;
}
