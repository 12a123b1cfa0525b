/**
 * Receive (issue 35): every other device's manifest, checked whole, then each memory in it merged
 * with this machine's by their versions (memdir-version.ts):
 * - the same etag: nothing to write; the versions are merged;
 * - theirs is older or the same version (a replayed or rolled-back copy): nothing;
 * - theirs descends from ours (a fast-forward): written here, atomically, through the memdir store
 *   and only over the version this machine last saw (its etag), so a file changed since is never
 *   clobbered (that change is published instead, and the two then conflict);
 * - both changed from one version (edit and edit, or edit and deletion): a conflict, recorded with
 *   their version kept in the state dir and ours left in place; nothing is lost on either side.
 * A memory whose file has not arrived (missing, or not yet the manifest's etag) or whose project
 * folder is not on this machine waits: it is tried again at every scan, the rest goes ahead.
 */

import { lstat, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { etagOf, memoryTextProblem } from '../memory/memdir/store.js';
import { createSlicer } from '../workers/slices.js';
import { isDeviceId, SYNC_DIR_MODE } from './layout.js';
import type { MemoryRecord } from './memdir-book.js';
import {
  isKept,
  keptPath,
  MAX_MEMORY_BYTES,
  memdirRootSegments,
  memorySegments,
  type SyncContext,
} from './memdir-context.js';
import {
  checkManifest,
  jsonOrNull,
  MANIFEST_FILE,
  MAX_MANIFEST_BYTES,
  type ManifestEntry,
  memoryKey,
} from './memdir-manifest.js';
import { compareVersions, EMPTY_VERSION, mergeVersions, versionText } from './memdir-version.js';
import { fingerprintOf, RefusedPath, readSynced } from './synced-files.js';

type Outcome = 'done' | 'wait';

interface DeviceState {
  /** The manifest's fingerprint when last read (null: never, or it was not there). */
  fingerprint: string | null;
  /** Its memories that could not be merged yet. */
  waiting: ManifestEntry[];
}

export interface Receiver {
  receive(devices: readonly string[]): Promise<void>;
}

export function createReceiver(ctx: SyncContext): Receiver {
  const { deps } = ctx;
  const self = deps.deviceId;
  const devices = new Map<string, DeviceState>();

  const remoteSegments = (device: string, entry: ManifestEntry) => [
    ...memdirRootSegments(device),
    ...memorySegments(entry),
  ];

  async function projectHere(project: string): Promise<boolean> {
    const stat = await lstat(join(deps.projectsDir, project)).catch(() => null);
    return stat?.isDirectory() === true;
  }

  /** Their text of the entry, once it has arrived whole; null until then. */
  async function theirText(device: string, entry: ManifestEntry): Promise<string | null> {
    try {
      const text = await readSynced(deps.syncDir, remoteSegments(device, entry), MAX_MEMORY_BYTES);
      return text !== null && etagOf(text) === entry.etag ? text : null;
    } catch (error) {
      if (!(error instanceof RefusedPath)) throw error;
      ctx.warnOnce(`refused:${device}:${memoryKey(entry)}`, 'memdir sync refuses a path in the sync folder', {
        device,
        error: error.message,
      });
      return null;
    }
  }

  /** Refusals the next scan may clear by itself: the file changed here since it was seen, another writer held the dir. */
  const passing = (error: unknown): boolean =>
    error instanceof RpcError && (error.code === ErrorCode.Conflict || error.code === ErrorCode.Locked);

  /** A memory that could not be merged waits for the next scan; the rest of the manifest goes on. */
  function notMerged(error: unknown, device: string, entry: ManifestEntry): Outcome {
    if (!passing(error))
      ctx.warnOnce(`merge:${device}:${memoryKey(entry)}`, 'memdir sync cannot merge a memory; it is tried again', {
        device,
        project: entry.project,
        scope: entry.scope,
        name: entry.name,
        error: (error as Error).message,
      });
    return 'wait';
  }

  async function fastForward(device: string, entry: ManifestEntry, record: MemoryRecord | undefined): Promise<Outcome> {
    if (!(await projectHere(entry.project))) return 'wait';
    const { project, scope, name } = entry;
    const ours = record?.etag ?? null;
    try {
      if (entry.etag === null) {
        if (ours !== null) await ctx.store.removeText({ project, scope, name, ifMatch: ours });
      } else {
        const text = await theirText(device, entry);
        if (text === null) return 'wait';
        const problem = memoryTextProblem(text, scope);
        if (problem !== null) {
          ctx.warnOnce(`invalid:${device}:${entry.etag}`, 'memdir sync refuses a memory from another machine', {
            device,
            project,
            scope,
            name,
            problem,
          });
          return 'done';
        }
        await ctx.store.putText({ project, scope, name, text, ifMatch: ours });
      }
    } catch (error) {
      return notMerged(error, device, entry);
    }
    const merged: MemoryRecord = {
      project,
      scope,
      name,
      etag: entry.etag,
      base: entry.base,
      version: mergeVersions(record?.version ?? EMPTY_VERSION, entry.version),
      seq: ctx.nextCounter(),
      changedAt: deps.clock(),
    };
    ctx.putRecord(merged);
    ctx.settle(merged, 'merged');
    deps.log.info('memdir sync: a memory changed on another machine was merged', {
      device,
      project,
      scope,
      name,
      etag: entry.etag,
    });
    return 'done';
  }

  async function keep(text: string, etag: string): Promise<string> {
    const path = keptPath(deps.stateDir, etag);
    await mkdir(dirname(path), { recursive: true, mode: SYNC_DIR_MODE });
    await writeFileAtomic(path, text);
    return path;
  }

  async function conflict(device: string, entry: ManifestEntry, record: MemoryRecord): Promise<Outcome> {
    const { project, scope, name } = entry;
    const open = ctx.book.openConflicts({ project, scope, name }).find((row) => row.device === device);
    if (
      open !== undefined &&
      open.theirEtag === entry.etag &&
      versionText(open.theirVersion) === versionText(entry.version)
    )
      return 'done';
    let kept: string | null = null;
    if (entry.etag !== null) {
      const text = await theirText(device, entry);
      if (text === null) return 'wait';
      kept = await keep(text, entry.etag);
    }
    const superseded = ctx.book.upsertConflict({
      project,
      scope,
      name,
      device,
      localEtag: record.etag,
      theirEtag: entry.etag,
      theirVersion: entry.version,
      theirBase: entry.base,
      kept,
      foundAt: deps.clock(),
    });
    // Their earlier version, which their newer one replaced on their own machine: nothing of it is lost.
    if (superseded !== null && isKept(deps.stateDir, superseded)) await rm(superseded, { force: true });
    deps.log.warn('memdir sync: a memory changed on two machines; both versions kept (memctl memdir conflicts)', {
      device,
      project,
      scope,
      name,
      ours: record.etag,
      theirs: entry.etag,
      kept,
    });
    return 'done';
  }

  async function merge(device: string, entry: ManifestEntry): Promise<Outcome> {
    const key = memoryKey(entry);
    const record = ctx.records.get(key);
    // A database rebuilt from nothing may hold a counter below what this machine once published.
    const mine = entry.version[self];
    if (mine !== undefined && mine > (ctx.book.counter(self) ?? 0)) ctx.book.setCounter(self, mine);
    if (record === undefined && entry.etag === null) return 'done';
    if (record !== undefined && record.etag === entry.etag) {
      const order = compareVersions(record.version, entry.version);
      const merged =
        order === 'equal' || order === 'after'
          ? record
          : { ...record, version: mergeVersions(record.version, entry.version) };
      if (merged !== record) ctx.putRecord(merged);
      ctx.settle(merged, 'merged');
      return 'done';
    }
    const order = compareVersions(entry.version, record?.version ?? EMPTY_VERSION);
    if (order === 'equal' || order === 'before') return 'done';
    if (order === 'after' || record === undefined) return fastForward(device, entry, record);
    return conflict(device, entry, record);
  }

  /** The manifest's memories to merge now: all of a new manifest, or those still waiting. */
  async function manifestOf(device: string, state: DeviceState): Promise<ManifestEntry[] | null> {
    const segments = [...memdirRootSegments(device), MANIFEST_FILE];
    const fingerprint = await fingerprintOf(join(deps.syncDir, ...segments)).catch((error: unknown) => {
      ctx.warnOnce(`manifest:${device}`, 'memdir sync cannot read a device’s manifest', {
        device,
        error: (error as Error).message,
      });
      return null;
    });
    if (fingerprint === null) {
      state.fingerprint = null;
      state.waiting = [];
      return null;
    }
    if (fingerprint === state.fingerprint) return state.waiting;
    state.fingerprint = fingerprint;
    state.waiting = [];
    const text = await readSynced(deps.syncDir, segments, MAX_MANIFEST_BYTES).catch(() => null);
    const checked = text === null ? null : await checkManifest(jsonOrNull(text), device);
    if (checked === null || !checked.ok) {
      // Torn or still arriving (read again once it changes), or from a newer memd (skipped until this one is).
      if (checked?.ok === false && checked.reason !== 'not an object')
        ctx.warnOnce(`manifest:${device}:${fingerprint}`, 'memdir sync skips a device’s manifest', {
          device,
          reason: checked.reason,
        });
      return null;
    }
    const highest = ctx.book.counter(device);
    if (highest !== null && checked.manifest.counter < highest) {
      ctx.warnOnce(`rolled-back:${device}:${fingerprint}`, 'memdir sync skips an older copy of a device’s manifest', {
        device,
        counter: checked.manifest.counter,
        highest,
      });
      return null;
    }
    ctx.book.setCounter(device, checked.manifest.counter);
    return checked.manifest.memories;
  }

  async function receiveFrom(device: string): Promise<void> {
    const state = devices.get(device) ?? { fingerprint: null, waiting: [] };
    devices.set(device, state);
    const entries = await manifestOf(device, state);
    if (entries === null || entries.length === 0) return;
    const slicer = createSlicer();
    const waiting: ManifestEntry[] = [];
    for (const entry of entries) {
      await slicer.tick();
      const outcome = await merge(device, entry).catch((error: unknown) => notMerged(error, device, entry));
      if (outcome === 'wait') waiting.push(entry);
    }
    state.waiting = waiting;
  }

  return {
    async receive(others) {
      if (deps.syncDir === '') return;
      for (const device of others) {
        if (device === self || !isDeviceId(device)) continue;
        await receiveFrom(device);
      }
    },
  };
}
