/**
 * Sync across machines (issue 35) as the daemon runs it: a round every `syncScanMs` (and soon after
 * the archive moves), one at a time: this machine's archive mirrored (publisher.ts), then the other
 * machines' subtrees read (reader.ts), their tombstones honoured, their new transcripts decoded and
 * handed to ingest. `sync.status` says what is shared each way; `archive.restore` of another
 * machine's session writes the decoded bytes where Claude Code keeps them. Off (no round, nothing
 * written outside the state dir) unless `syncDir` is set.
 */
import { lstat } from 'node:fs/promises';
import type Database from 'better-sqlite3';
import type { ArchiveRestoreResult } from '../../shared/protocol/archive.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { SyncDevice, SyncStatus } from '../../shared/protocol/sync.js';
import { tombstoneKey } from '../../shared/sync/tombstone.js';
import { plainChunks } from '../archive/read.js';
import { type RestoreSource, restoreSession } from '../archive/restore.js';
import type { ArchiveStore } from '../archive/store.js';
import type { Logger } from '../log/logger.js';
import type { DecodedFile } from './decode-pool.js';
import { createWorkerDecoder, type Decoder } from './decode-pool.js';
import type { DeviceIdentity } from './device.js';
import { decodedPath, deviceDir } from './layout.js';
import { createPublisher } from './publisher.js';
import { createReader, splitArchiveRel } from './reader.js';
import { createSyncStore } from './store.js';

/** A failing round is tried again after this long at most (doubling from the scan interval). */
const MAX_BACKOFF_MS = 5 * 60_000;

export interface SyncServiceDeps {
  db: Database.Database;
  projectsDir: string;
  stateDir: string;
  /** '' when sync is off. */
  syncDir: string;
  scanMs: number;
  device: DeviceIdentity;
  log: Logger;
  clock: () => number;
  archived: Pick<ArchiveStore, 'all'>;
  /** Forgets a session here, Claude Code's copies too (a tombstone another machine wrote). */
  forget(sessionId: string): Promise<void>;
  /** Decoded files for ingest (a few as changed files, many as a backfill), and the bytes still coming after them. */
  ingest(files: readonly DecodedFile[], comingBytes: number): void;
  /** Holds ingest's backfill open while a large round decodes (Ingestor.holdBackfill). */
  holdIngest?(): () => void;
  /** decode-pool.ts: the worker in the daemon (started on first use), inline in tests that want it. */
  decoder?: Decoder;
  /** Also run each round, after the archive's (memdir-sync.ts). */
  extraRounds?: readonly { name: string; run(otherDevices: readonly string[]): Promise<void> }[];
}

export function createSyncService(deps: SyncServiceDeps) {
  const { log } = deps;
  const enabled = deps.syncDir !== '';
  const store = createSyncStore(deps.db);
  const decoder = deps.decoder ?? createWorkerDecoder();
  const publisher = enabled
    ? createPublisher({ ...deps, store, syncDir: deps.syncDir, device: deps.device, archiveMark: store.archiveMark })
    : null;
  const reader = enabled
    ? createReader({
        store,
        syncDir: deps.syncDir,
        stateDir: deps.stateDir,
        self: deps.device.id,
        decoder,
        log,
        clock: deps.clock,
        honour: async (tombstone) => {
          // Recorded first: the reader then passes the session's files over, whatever the forget finds.
          store.putTombstone({
            session_hash: tombstone.sessionHash,
            device: tombstone.device,
            at: tombstone.at,
            delete_transcripts: tombstone.deleteTranscripts ? 1 : 0,
          });
          publisher?.indexChanged();
          // The tombstone names no session: the sessions known here are hashed to find it.
          const known = deps.db
            .prepare('SELECT session_id FROM files UNION SELECT session_id FROM archive_files')
            .pluck()
            .all() as string[];
          for (const sessionId of known.filter((id) => tombstoneKey(id) === tombstone.sessionHash))
            await deps.forget(sessionId).catch((error: unknown) => {
              if (!(error instanceof RpcError && error.code === ErrorCode.NotFound))
                log.warn('sync: a session forgotten on another machine could not be forgotten here', {
                  sessionId,
                  error,
                });
            });
        },
        decoded: (files, comingBytes) => deps.ingest(files, comingBytes),
        ...(deps.holdIngest === undefined ? {} : { hold: deps.holdIngest }),
      })
    : null;
  let state: SyncStatus['state'] = enabled ? 'starting' : 'off';
  let reason: string | null = null;
  let lastRoundAt: number | null = null;
  let publishedAt: number | null = null;
  let behind = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let failures = 0;

  const round = async () => {
    if (publisher === null || reader === null) return;
    state = 'syncing';
    try {
      const published = await publisher.publish();
      behind = published.behind;
      if (published.wroteIndex) publishedAt = deps.clock();
      await reader.scan();
      const others = store
        .devices()
        .filter((device) => device.gone_at === null)
        .map((device) => device.id);
      for (const extra of deps.extraRounds ?? []) await extra.run(others);
      state = 'idle';
      reason = null;
      failures = 0;
    } catch (error) {
      state = 'failing';
      reason = (error as Error).message;
      if (failures === 0) log.warn('sync: a round failed; tried again with backoff', { error });
      failures += 1;
    } finally {
      lastRoundAt = deps.clock();
    }
  };

  const schedule = (ms: number) => {
    if (stopped || !enabled) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => void runNow(), ms);
    timer.unref();
  };

  const runNow = async (): Promise<void> => {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await round();
      } while (again && !stopped);
    })();
    try {
      await running;
    } finally {
      running = null;
      const backoff = failures === 0 ? deps.scanMs : Math.min(deps.scanMs * 2 ** failures, MAX_BACKOFF_MS);
      // Another round soon while the archive is not mirrored whole yet.
      schedule(behind > 0 ? Math.min(backoff, 1_000) : backoff);
    }
  };

  const deviceName = (id: string) => store.devices().find((device) => device.id === id)?.name ?? id;

  return {
    enabled,
    /** After the backfill (as the archive's own catch-up): the first round, then one every scanMs. */
    start() {
      if (enabled) schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
      await decoder.close();
    },
    status(): SyncStatus {
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
      if (!enabled) return { enabled, dir: null, state, reason, self: null, devices: [], lastRoundAt: null };
      const totals = new Map(store.receivedTotals().map((row) => [row.device, row]));
      const states = new Map((reader?.states() ?? []).map((device) => [device.id, device]));
      const published = store.publishedTotals();
      const devices: SyncDevice[] = store.devices().map((device) => {
        const read = states.get(device.id);
        const total = totals.get(device.id);
        return {
          id: device.id,
          name: device.name,
          version: device.version,
          gone: device.gone_at !== null,
          firstSeen: new Date(device.first_seen).toISOString(),
          lastSeen: new Date(device.last_seen).toISOString(),
          indexWrittenAt: read?.index?.writtenAt ?? null,
          sessions: read?.index?.sessions.length ?? 0,
          files: total?.files ?? 0,
          archiveBytes: total?.archiveBytes ?? 0,
          sourceBytes: total?.sourceBytes ?? 0,
          behind: read?.behind ?? 0,
          problems: total?.problems ?? 0,
          problem: read?.problem ?? null,
        };
      });
      return {
        enabled,
        dir: deps.syncDir,
        state,
        reason,
        self: {
          id: deps.device.id,
          name: deps.device.name,
          dir: deviceDir(deps.syncDir, deps.device.id),
          sessions: published.sessions,
          files: published.files,
          bytes: published.bytes,
          behind,
          publishedAt: iso(publishedAt),
          tombstones: store.tombstoneCount(),
        },
        devices,
        lastRoundAt: iso(lastRoundAt),
      };
    },
    /** Whether another machine's copy of the session is here (decoded). */
    has(sessionId: string): boolean {
      return (
        deps.db.prepare('SELECT 1 FROM files WHERE session_id = ? AND device IS NOT NULL LIMIT 1').get(sessionId) !==
        undefined
      );
    },
    /**
     * Another machine's copy of a session written where Claude Code keeps it (or under `to`), byte
     * for byte what that machine's archive holds: the device asked for (id or name), else the one
     * holding the most of the session.
     */
    async restore(
      sessionId: string,
      to: string | undefined,
      device: string | undefined,
    ): Promise<ArchiveRestoreResult> {
      const received = deps.db
        .prepare(
          "SELECT device, rel, source_bytes FROM sync_received WHERE rel LIKE ? ESCAPE '\\' AND source_bytes > 0 AND problem IS NULL",
        )
        .all(`%/${sessionId.replace(/[\\%_]/g, (char) => `\\${char}`)}/%`) as {
        device: string;
        rel: string;
        source_bytes: number;
      }[];
      const byDevice = new Map<string, typeof received>();
      for (const row of received) {
        const parts = splitArchiveRel(row.rel);
        if (parts === null || parts.sessionId !== sessionId) continue;
        byDevice.set(row.device, [...(byDevice.get(row.device) ?? []), row]);
      }
      const wanted =
        device === undefined
          ? [...byDevice.entries()].sort((a, b) => total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1))[0]?.[0]
          : [...byDevice.keys()].find((id) => id === device || deviceName(id) === device);
      if (wanted === undefined)
        throw new RpcError(
          ErrorCode.NotFound,
          'NotFound',
          device === undefined
            ? `memd has no archive of session ${sessionId}, here or from another machine`
            : `no machine named ${device} shared session ${sessionId}`,
          { sessionId },
        );
      const sources: RestoreSource[] = [];
      for (const row of byDevice.get(wanted) ?? []) {
        const parts = splitArchiveRel(row.rel) as NonNullable<ReturnType<typeof splitArchiveRel>>;
        const path = decodedPath(deps.stateDir, wanted, `${parts.project}/${parts.source}`);
        const stat = await lstat(path).catch(() => null);
        if (stat === null || !stat.isFile() || stat.size < row.source_bytes) continue;
        sources.push({
          project: parts.project,
          rel: parts.source,
          bytes: row.source_bytes,
          from: `${deviceName(wanted)}'s copy ${path}`,
          chunks: () => plainChunks(path, row.source_bytes),
        });
      }
      return restoreSession({ projectsDir: deps.projectsDir }, sessionId, sources, to);
    },
  };
}

const total = (rows: readonly { source_bytes: number }[]) => rows.reduce((sum, row) => sum + row.source_bytes, 0);

export type SyncService = ReturnType<typeof createSyncService>;
