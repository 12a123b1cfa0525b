/**
 * Fills the search index for lines ingested before it existed (migration 12 left every file's
 * search_offset at 0): in the background, a slice at a time, each file read from where its index
 * stops to its committed offset, its texts added and its offset moved in one transaction. Ingest
 * never waits for it: a file it has not reached gets no texts from ingest's commits, and a file
 * ingest reads again from its start (replaced, truncated) is caught up by that commit, which the
 * builder's transaction then sees and gives way to.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { searchTexts } from '../../shared/search/text.js';
import { createSearchWriter } from '../ingest/search-writer.js';
import type { SearchParam } from '../ingest/chunk-parser.js';
import { parseLine } from '../ingest/long-lines.js';
import type { Logger } from '../log/logger.js';

/** Bytes read per turn of the event loop: a few milliseconds of parsing. */
const SLICE_BYTES = 256 * 1024;
/** A line longer than this is skipped (ingest bounds lines the same way). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface BuildState {
  state: 'ready' | 'building';
  filesDone: number;
  filesTotal: number;
}

interface Pending {
  id: number;
  path: string;
  generation: number;
  search_offset: number;
  committed_offset: number;
}

export function createSearchBuilder(deps: { db: Database.Database; log: Logger }) {
  const { db, log } = deps;
  const writer = createSearchWriter(db);
  const pendingFiles = db.prepare('SELECT id, path, generation, search_offset, committed_offset FROM files WHERE search_offset < committed_offset ORDER BY last_activity DESC');
  const moveOffset = db.prepare('UPDATE files SET search_offset = ? WHERE id = ? AND generation = ? AND search_offset = ?');
  const state: BuildState = { state: 'ready', filesDone: 0, filesTotal: 0 };
  let stopped = false;

  /** Texts of the whole lines in `bytes` (starting at file offset `base`); where the last whole line ends. */
  const textsOf = (bytes: Buffer, base: number): { run: SearchParam[]; end: number } => {
    const run: SearchParam[] = [];
    let start = 0;
    for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
      const line = bytes.subarray(start, newline);
      try {
        for (const { kind, text } of searchTexts(parseLine(line))) run.push(base + start, kind, text);
      } catch {
        // A line that is not JSON was counted as bad by ingest; it has nothing to search.
      }
      start = newline + 1;
    }
    return { run, end: base + start };
  };

  /** One slice of a file; true when the file is done. */
  const slice = (file: Pending): boolean => {
    let fd: number;
    try {
      fd = openSync(file.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      // Gone: its lines stay unsearchable (they can no longer be read); the file is passed over.
      moveOffset.run(file.committed_offset, file.id, file.generation, file.search_offset);
      return true;
    }
    try {
      if (!fstatSync(fd).isFile()) return true;
      const want = Math.min(file.committed_offset - file.search_offset, SLICE_BYTES);
      let buffer = Buffer.alloc(want);
      let read = readSync(fd, buffer, 0, want, file.search_offset);
      // A line longer than a slice: read on to its end, within the line bound.
      while (read === buffer.length && buffer.lastIndexOf(0x0a) === -1 && buffer.length < MAX_LINE_BYTES && file.search_offset + buffer.length < file.committed_offset) {
        const more = Buffer.alloc(Math.min(buffer.length * 2, file.committed_offset - file.search_offset));
        buffer.copy(more);
        read += readSync(fd, more, buffer.length, more.length - buffer.length, file.search_offset + buffer.length);
        buffer = more;
      }
      const { run, end } = textsOf(buffer.subarray(0, read), file.search_offset);
      const target = end > file.search_offset ? end : file.committed_offset;
      const moved = db.transaction(() => {
        if (moveOffset.run(target, file.id, file.generation, file.search_offset).changes === 0) return false;
        writer.add(file.id, [run]);
        return true;
      })();
      if (!moved) return true;
      file.search_offset = target;
      return target >= file.committed_offset;
    } finally {
      closeSync(fd);
    }
  };

  const run = async (): Promise<void> => {
    const files = pendingFiles.all() as Pending[];
    if (files.length === 0) return;
    Object.assign(state, { state: 'building', filesDone: 0, filesTotal: files.length });
    const started = Date.now();
    log.info('search index: reading the lines ingested before it existed', { files: files.length });
    for (const file of files) {
      for (;;) {
        if (stopped) return;
        let done: boolean;
        try {
          done = slice(file);
        } catch (error) {
          log.warn('search index: a file could not be indexed; it is passed over', { path: file.path, error });
          done = true;
        }
        await new Promise((resolve) => setImmediate(resolve));
        if (done) break;
      }
      state.filesDone += 1;
    }
    state.state = 'ready';
    log.info('search index built', { files: files.length, ms: Date.now() - started });
  };

  return {
    state: (): BuildState => ({ ...state }),
    start(): void {
      void run().catch((error: unknown) => log.error('search index build failed', { error }));
    },
    stop(): void {
      stopped = true;
    },
  };
}
