/**
 * The archive's writer (issue 18): every transcript's committed bytes copied, gzipped, into memd's
 * state dir, so that Claude Code's cleanup (transcripts untouched for `cleanupPeriodDays`, 30 by
 * default) loses nothing. It follows ingest: what it archives is what the index committed, read
 * back from the file (still in the page cache) and appended as a gzip member; the book
 * (archive_files) moves only once the member is on disk.
 *
 * When: the history found at start is archived after the backfill (oldest first: nearest the
 * cleanup), so that indexing is not slowed; a live transcript is archived once it has a megabyte
 * new or has been quiet for five minutes (small members compress badly), and at shutdown. A full
 * disk or the size cap stops archiving with the reason in `daemon.status`; it is tried again later.
 */
import { constants } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type { ArchiveState, ArchiveStatus } from '../../shared/protocol/archive.js';
import { isSameFile } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import type { FileRow } from '../store/rows.js';
import { ArchiveCapReached, ArchiveDamagedError, appendMember, compress, cutTornTail, isDiskFull } from './append.js';
import { archivePathOf, relativeToProject } from './layout.js';
import { compareWithFile } from './read.js';
import { archiveSessionFiles } from './session-files.js';
import type { ArchiveStore, PendingTranscript } from './store.js';

/** Source bytes per gzip member: large enough to compress well, small enough to hold in memory. */
const MEMBER_BYTES = 8 * 1024 * 1024;
/** A live transcript waits for this much new… */
const LIVE_BATCH_BYTES = 1024 * 1024;
/** …or this long without a new line. */
const LIVE_QUIET_MS = 5 * 60_000;
/** How often deferred live bytes, and a stopped archive, are looked at again. */
const RECHECK_MS = 60_000;
/**
 * What a shutdown gives a live archive to flush live bytes already read: a share of the 2 s the
 * whole shutdown should take (the member under way when it passes still finishes).
 */
const SHUTDOWN_FLUSH_MS = 500;

export interface ArchiverDeps {
  store: ArchiveStore;
  projectsDir: string;
  stateDir: string;
  log: Logger;
  clock: () => number;
  enabled: boolean;
  capBytes: number;
}

export function createArchiver(deps: ArchiverDeps) {
  const { store, log } = deps;
  let state: ArchiveState = deps.enabled ? 'waiting' : 'off';
  let reason: string | null = null;
  let failures = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let flushing = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const isStopped = () => state === 'stopped';
  const stop = (why: string) => {
    if (state !== 'stopped') log.warn('archive: stopped', { reason: why });
    state = 'stopped';
    reason = why;
  };

  /** A live transcript whose new bytes can wait for more (or for quiet). */
  const deferred = (file: PendingTranscript, now: number): boolean => {
    if (
      flushing ||
      state === 'catching-up' ||
      (file.archived_generation !== null && file.archived_generation !== file.generation)
    )
      return false;
    const newBytes = file.committed_offset - (file.source_bytes ?? 0);
    const last = file.last_activity === null ? 0 : Date.parse(file.last_activity);
    return newBytes < LIVE_BATCH_BYTES && Number.isFinite(last) && now - last < LIVE_QUIET_MS;
  };

  /** Keeps an archive file that can no longer be appended to beside the new one (`<name>.<why>-<ms>.gz`). */
  const setAside = async (target: string, why: 'replaced' | 'damaged') => {
    const aside = `${target.replace(/\.gz$/, '')}.${why}-${deps.clock()}.gz`;
    await rename(target, aside).catch(() => undefined);
    return aside;
  };

  /** A reset transcript (replaced, truncated): the archive goes on if the file still starts with what it holds, else it starts anew beside the old one. */
  const followGeneration = async (file: PendingTranscript, target: string) => {
    const row = store.get(file.path);
    if (row === undefined) return;
    const same =
      row.source_bytes === 0 ||
      (await compareWithFile(target, row.archive_bytes, file.path, false).catch(() => ({ equal: false }))).equal;
    if (!same)
      log.info('archive: a transcript was replaced; its earlier archive is kept beside the new one', {
        path: file.path,
        aside: await setAside(target, 'replaced'),
      });
    store.put({ ...row, generation: file.generation, ...(same ? {} : { source_bytes: 0, archive_bytes: 0 }) });
  };

  const archiveTranscript = async (file: PendingTranscript) => {
    const rel = relativeToProject(deps.projectsDir, file.project, file.path);
    if (rel === null) return;
    const target = archivePathOf(deps.stateDir, { project: file.project, session_id: file.session_id, rel });
    if (file.archived_generation !== null && file.archived_generation !== file.generation)
      await followGeneration(file, target);
    const known = store.get(file.path);
    let from = known?.source_bytes ?? 0;
    let archiveBytes = known?.archive_bytes ?? 0;
    const source = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      () => null,
    );
    if (source === null) return;
    try {
      const stat = await source.stat({ bigint: true });
      const identity = { dev: String(stat.dev), ino: String(stat.ino), size: Number(stat.size) };
      // Still the file the index committed (ingest will see to it otherwise).
      const row = {
        dev: file.dev,
        ino: file.ino,
        committed_offset: file.committed_offset,
        head_len: file.head_len,
        head_hash: file.head_hash,
      } as FileRow;
      if (!stat.isFile() || !isSameFile(source.fd, row, identity, { checkBytesRead: 0 })) return;
      while (from < file.committed_offset && !closed) {
        const length = Math.min(MEMBER_BYTES, file.committed_offset - from);
        const bytes = Buffer.allocUnsafe(length);
        const { bytesRead } = await source.read(bytes, 0, length, from);
        if (bytesRead !== length) return;
        const member = await compress(bytes);
        if (store.totals().archiveBytes + member.length > deps.capBytes) throw new ArchiveCapReached(deps.capBytes);
        archiveBytes = await appendMember(target, archiveBytes, member);
        from += length;
        store.put({
          path: file.path,
          session_id: file.session_id,
          project: file.project,
          rel,
          kind: 'transcript',
          generation: file.generation,
          source_bytes: from,
          archive_bytes: archiveBytes,
          mtime_ms: Math.floor(Number(stat.mtimeMs)),
          archived_at: deps.clock(),
          pruned_at: null,
        });
      }
    } finally {
      await source.close();
    }
  };

  const pass = async () => {
    const now = deps.clock();
    const sessions = new Map<string, string>();
    let waiting = 0;
    failures = 0;
    for (const file of store.pending()) {
      if (closed) return;
      if (deferred(file, now)) {
        waiting += 1;
        continue;
      }
      try {
        await archiveTranscript(file);
        sessions.set(file.session_id, file.project);
      } catch (error) {
        if (error instanceof ArchiveCapReached) return stop(error.message);
        if (isDiskFull(error))
          return stop(
            `the disk is full (${(error as NodeJS.ErrnoException).code}) writing ${archivePathOf(deps.stateDir, { project: file.project, session_id: file.session_id, rel: '' })}`,
          );
        failures += 1;
        log.warn('archive: a transcript could not be archived; it is tried again later', { path: file.path, error });
        if (error instanceof ArchiveDamagedError) {
          await setAside(error.path, 'damaged');
          store.put({
            ...(store.get(file.path) as NonNullable<ReturnType<ArchiveStore['get']>>),
            source_bytes: 0,
            archive_bytes: 0,
          });
        }
      }
    }
    for (const [sessionId, project] of sessions) {
      if (closed) return;
      try {
        await archiveSessionFiles(
          {
            store,
            projectsDir: deps.projectsDir,
            stateDir: deps.stateDir,
            now,
            capBytes: deps.capBytes,
            isTranscript: store.isTranscript,
          },
          { project, sessionId },
        );
      } catch (error) {
        if (error instanceof ArchiveCapReached) return stop(error.message);
        if (isDiskFull(error))
          return stop(
            `the disk is full (${(error as NodeJS.ErrnoException).code}) writing the files of session ${sessionId}`,
          );
        failures += 1;
        log.warn("archive: files of a session's folder could not be archived; tried again later", { sessionId, error });
      }
    }
    state = 'live';
    reason = null;
    if (waiting > 0) arm();
  };

  const arm = () => {
    if (timer !== null || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void schedule(true);
    }, RECHECK_MS);
    timer.unref();
  };

  /** `retry`: also when stopped (the timer, a flush); a commit does not hammer a full disk. */
  const schedule = (retry = false): Promise<void> => {
    if (!deps.enabled || closed || state === 'waiting' || (isStopped() && !retry)) return Promise.resolve();
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        if (isStopped()) state = 'live';
        await pass();
        if (isStopped()) arm();
      } while (again && !closed && !isStopped());
    })()
      .catch((error: unknown) => log.error('archive: pass failed', { error }))
      .finally(() => {
        running = null;
      });
    return running;
  };

  const settle = async () => {
    while (running !== null) await running;
  };

  return {
    /** After the backfill: cut torn tails a crash left, then archive the history, oldest first. */
    async start(): Promise<void> {
      if (!deps.enabled || state !== 'waiting') return;
      for (const row of store.all()) {
        const target = archivePathOf(deps.stateDir, row);
        const outcome = await cutTornTail(target, row.archive_bytes).catch((error: unknown) => {
          log.warn('archive: could not check an archive file', { path: target, error });
          return 'ok' as const;
        });
        if (outcome === 'cut') log.info('archive: cut a torn append left by a crash', { path: target });
        if (outcome === 'short' || outcome === 'missing') {
          // Cut or deleted by someone else: what is left is kept aside, and the file archived again from its source while that exists.
          log.warn(
            'archive: an archive file is shorter than memd wrote; archived again from its source where it still exists',
            { path: target, outcome },
          );
          if (outcome === 'short') await setAside(target, 'damaged');
          store.put({ ...row, source_bytes: 0, archive_bytes: 0 });
        }
      }
      state = 'catching-up';
      await schedule(true);
    },
    /** Ingest committed lines (live or not): archived now or batched. */
    committed(): void {
      void schedule();
    },
    /**
     * At shutdown. The history catch-up (and a retry of a stopped archive) is background work: it
     * stops at once, at its next member (the book moves only after a member is flushed), and the
     * rest is archived after the next start. Only a live archive flushes what ingest already
     * committed of live transcripts, batching or not, for at most SHUTDOWN_FLUSH_MS, so that the
     * whole shutdown stays within its 2 s target.
     */
    async flush(): Promise<void> {
      flushing = true;
      if (timer !== null) clearTimeout(timer);
      if (state !== 'live') {
        if (running !== null)
          log.info('archive: shutdown stops the catch-up; the rest is archived after the next start', { state });
        closed = true;
        await settle();
        return;
      }
      const cut = setTimeout(() => {
        if (running !== null)
          log.info('archive: shutdown leaves the rest for the next start', { afterMs: SHUTDOWN_FLUSH_MS });
        closed = true;
      }, SHUTDOWN_FLUSH_MS);
      try {
        await schedule();
      } finally {
        clearTimeout(cut);
      }
      closed = true;
      if (timer !== null) clearTimeout(timer);
    },
    /** Waits for the pass under way, if any (tests, forget, restore). */
    settled: () => settle(),
    status(): ArchiveStatus {
      const totals = store.totals();
      return {
        enabled: deps.enabled,
        state,
        reason,
        ...totals,
        pendingBytes: deps.enabled ? store.pendingBytes() : 0,
        failures,
      };
    },
  };
}

export type Archiver = ReturnType<typeof createArchiver>;
