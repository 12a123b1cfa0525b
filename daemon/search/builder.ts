/**
 * Fills the search index for lines ingested without their texts: before the index existed
 * (migration 12 left every file's search_offset at 0), and the files a big first backfill read
 * (ingest/pass-choices.ts DEFAULT_DEFER_SEARCH_BYTES). In the background, newest first, a slice at a time,
 * each file read from where its index stops to its committed offset, its texts added and its
 * offset moved in one transaction. Ingest never waits for it: a file it has not reached gets no
 * texts from ingest's commits, and a file ingest reads again from its start (replaced, truncated)
 * is caught up by that commit, which the builder's transaction then sees and gives way to. Ingest
 * goes on committing a file it has not caught up yet, so it goes round until none is behind, and
 * looks again after commits (a pass that began before the builder caught its file up commits
 * without texts).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ChunkParser, DEFAULT_MAX_LINE_BYTES } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import type { SearchParam } from '../store/search-row.js';
import { createSearchWriter } from '../store/search-writer.js';

/** Bytes read per turn of the event loop: a few milliseconds of parsing. */
const SLICE_BYTES = 256 * 1024;
/** The builder's parses run in this one lane of its own parser. */
const LANE = 0;
/**
 * Rounds over the files behind before it rests: each catches up what ingest committed during the
 * last; more would mean a file written faster than the builder reads it, which the next look takes.
 */
const MAX_ROUNDS = 8;
/** After a commit, it looks for files behind this much later, once: a live session commits often. */
const LOOK_AGAIN_MS = 1_000;

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
  // Ingest's own line parser, so that the texts are exactly those ingest extracts (the same
  // UTF-8 checks, long lines and line bound), without the entry rows, which ingest has written.
  const parser = new ChunkParser(DEFAULT_MAX_LINE_BYTES);
  const pendingFiles = db.prepare(
    'SELECT id, path, generation, search_offset, committed_offset FROM files WHERE search_offset < committed_offset ORDER BY last_activity DESC',
  );
  const anyBehind = db.prepare('SELECT 1 FROM files WHERE search_offset < committed_offset LIMIT 1').pluck();
  const moveOffset = db.prepare(
    'UPDATE files SET search_offset = ? WHERE id = ? AND generation = ? AND search_offset = ?',
  );
  const state: BuildState = { state: 'ready', filesDone: 0, filesTotal: 0 };
  let stopped = false;
  let started = false;
  let running = false;
  let lookAgain: NodeJS.Timeout | undefined;
  /** Files (id:generation) that could not be indexed: passed over, not tried at every look. */
  const failed = new Set<string>();
  const behind = () => (pendingFiles.all() as Pending[]).filter((file) => !failed.has(`${file.id}:${file.generation}`));

  /** Moves the file's search offset to `target` with the texts up to it; false when ingest moved it first. */
  const commit = (file: Pending, target: number, run: readonly SearchParam[]): boolean => {
    const moved = db.transaction(() => {
      if (moveOffset.run(target, file.id, file.generation, file.search_offset).changes === 0) return false;
      writer.add(file.id, file.search_offset, target, [run]);
      return true;
    })();
    if (moved) file.search_offset = target;
    return moved;
  };

  /** One file, a slice a turn, from where its index stops to its committed offset. */
  const indexFile = async (file: Pending): Promise<void> => {
    let fd: number;
    try {
      fd = openSync(file.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      // Gone: its lines stay unsearchable (they can no longer be read); the file is passed over.
      commit(file, file.committed_offset, []);
      return;
    }
    parser.begin(
      LANE,
      { path: file.path, start: file.search_offset, fileId: file.id, search: true, rows: false },
      false,
    );
    try {
      if (!fstatSync(fd).isFile()) return;
      let position = file.search_offset;
      while (!stopped && position < file.committed_offset) {
        const buffer = Buffer.alloc(Math.min(SLICE_BYTES, file.committed_offset - position));
        const read = readSync(fd, buffer, 0, buffer.length, position);
        // Shorter than it was indexed: ingest reads it again from its start; the builder passes over it.
        if (read === 0) {
          commit(file, file.committed_offset, []);
          return;
        }
        position += read;
        const parsed = parser.parse(LANE, buffer.subarray(0, read));
        if (parsed.completeOffset > file.search_offset && !commit(file, parsed.completeOffset, parsed.search)) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      parser.end(LANE, false);
      closeSync(fd);
    }
  };

  const round = async (files: readonly Pending[]): Promise<void> => {
    for (const file of files) {
      if (stopped) return;
      try {
        await indexFile(file);
      } catch (error) {
        failed.add(`${file.id}:${file.generation}`);
        log.warn('search index: a file could not be indexed; it is passed over', { path: file.path, error });
      }
      state.filesDone += 1;
    }
  };

  const run = async (): Promise<void> => {
    let files = behind();
    if (files.length === 0) return;
    Object.assign(state, { state: 'building', filesDone: 0, filesTotal: files.length });
    const startedAt = Date.now();
    log.info('search index: reading the lines ingested without their texts', { files: files.length });
    for (let rounds = 0; files.length > 0 && rounds < MAX_ROUNDS && !stopped; rounds++) {
      await round(files);
      files = behind();
      state.filesTotal += files.length;
    }
    state.state = 'ready';
    log.info('search index built', { files: state.filesDone, ms: Date.now() - startedAt });
  };

  const build = (): void => {
    if (running || stopped) return;
    running = true;
    void run()
      .catch((error: unknown) => log.error('search index build failed', { error }))
      .finally(() => {
        running = false;
      });
  };

  return {
    // Before it starts (the backfill runs), lines read without their texts are already missing.
    state: (): BuildState =>
      started || anyBehind.get() === undefined ? { ...state } : { state: 'building', filesDone: 0, filesTotal: 0 },
    start(): void {
      started = true;
      build();
    },
    /** Ingest committed: a look for files behind, a while later (once however many commits meanwhile). */
    committed(): void {
      if (!started || stopped || lookAgain !== undefined) return;
      lookAgain = setTimeout(() => {
        lookAgain = undefined;
        if (!running && !stopped && anyBehind.get() !== undefined) build();
      }, LOOK_AGAIN_MS);
      lookAgain.unref();
    },
    stop(): void {
      stopped = true;
      clearTimeout(lookAgain);
    },
  };
}
