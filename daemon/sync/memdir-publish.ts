/**
 * Publish (issue 35): this machine's memory files mirrored into its own subtree of the sync folder,
 * `<syncDir>/<device>/memdir/<project>/[team/]<name>.md`, each written atomically, then the
 * manifest, written last. A file is read only when its stat changed; a memory whose etag moved is a
 * new version (this machine's counter in its vector); a memory gone from a dir that was read whole
 * is a tombstone. When nothing changed a scan costs a readdir per memory dir, an lstat per memory
 * and one of the manifest.
 */
import { join } from 'node:path';
import { readInside } from '../memory/memdir/safe-path.js';
import { etagOf, memoryTextProblem } from '../memory/memdir/store.js';
import { createSlicer, type Slicer } from '../workers/slices.js';
import type { MemoryRecord } from './memdir-book.js';
import { MAX_MEMORY_BYTES, memdirRootSegments, memorySegments, type SyncContext } from './memdir-context.js';
import {
  checkManifest,
  jsonOrNull,
  MANIFEST_FILE,
  MAX_MANIFEST_BYTES,
  MAX_SYNCED_MEMORIES,
  MEMDIR_MANIFEST_FORMAT,
  manifestText,
  memoryKey,
} from './memdir-manifest.js';
import { type LocalFile, scanLocalMemdirs } from './memdir-scan.js';
import { bumpVersion, EMPTY_VERSION } from './memdir-version.js';
import { fingerprintOf, readSynced, removeSynced, writeSynced } from './synced-files.js';

/** How long a deletion stays in the manifest: longer than any machine stays away and still expects it honoured. */
export const TOMBSTONE_KEEP_MS = 180 * 86_400_000;
/** Claude Code writes memory files in place: one changed this recently may be half-written. */
export const DEFAULT_QUIET_MS = 1_000;
/** `<project>` is the third segment under the sync folder: emptied dirs are removed up to it, not past. */
const KEEP_SEGMENTS = 3;

interface Seen {
  fingerprint: string;
  /** Null: the file is not a memory (or one this scope may not hold), so it is not published. */
  etag: string | null;
}

export interface Publisher {
  publish(): Promise<void>;
}

const scopeKeyOf = (entry: { project: string; scope: string }): string => `${entry.project}\u0000${entry.scope}`;

export function createPublisher(ctx: SyncContext): Publisher {
  const { deps } = ctx;
  const self = deps.deviceId;
  const quietMs = deps.quietMs ?? DEFAULT_QUIET_MS;
  const manifestSegments = [...memdirRootSegments(self), MANIFEST_FILE];
  const publishedSegments = (record: Pick<MemoryRecord, 'project' | 'scope' | 'name'>) => [
    ...memdirRootSegments(self),
    ...memorySegments(record),
  ];
  /** Local files by path: their stat when last read, and what they held. */
  const seen = new Map<string, Seen>();
  /** What this run knows its subtree holds, by memory. */
  const published = new Map<string, string>();
  let manifestFingerprint: string | null | undefined;
  let seeded = false;

  /**
   * A database rebuilt from nothing (a corrupt one is moved aside) must not restart this machine's
   * counter below what the others have seen: the rows come back from its own manifest.
   */
  async function seed(): Promise<void> {
    seeded = true;
    if (ctx.book.counter(self) !== null) return;
    const text = await readSynced(deps.syncDir, manifestSegments, MAX_MANIFEST_BYTES).catch(() => null);
    let counter = 0;
    if (text !== null) {
      const checked = await checkManifest(jsonOrNull(text), self);
      if (checked.ok) {
        counter = checked.manifest.counter;
        for (const entry of checked.manifest.memories) {
          if (!ctx.records.has(memoryKey(entry))) ctx.putRecord({ ...entry, changedAt: deps.clock() });
        }
        deps.log.info('memdir sync: rows taken back from this machine’s own manifest', {
          counter,
          memories: checked.manifest.memories.length,
        });
      }
    }
    ctx.book.setCounter(self, Math.max(counter, ctx.book.counter(self) ?? 0));
  }

  /** What the subtree holds, read back: after a start, or when someone else changed the manifest there. */
  async function verify(slicer: Slicer): Promise<void> {
    published.clear();
    for (const record of ctx.records.values()) {
      await slicer.tick();
      if (record.etag === null) {
        await removeSynced(deps.syncDir, publishedSegments(record), KEEP_SEGMENTS).catch(() => undefined);
        continue;
      }
      const text = await readSynced(deps.syncDir, publishedSegments(record), MAX_MEMORY_BYTES).catch(() => null);
      if (text !== null && etagOf(text) === record.etag) published.set(memoryKey(record), record.etag);
    }
  }

  async function readLocal(file: LocalFile): Promise<string | null> {
    return readInside(file.dir, file.name, { scope: file.scope }).catch((error: unknown) => {
      ctx.warnOnce(`read:${file.dir}/${file.name}`, 'memdir sync cannot read a memory file', {
        dir: file.dir,
        name: file.name,
        error: (error as Error).message,
      });
      return null;
    });
  }

  async function publishFile(file: LocalFile): Promise<void> {
    const path = join(file.dir, `${file.name}.md`);
    let known = seen.get(path);
    let text: string | null = null;
    if (known?.fingerprint !== file.fingerprint) {
      // Compared only when asked for: an mtime has finer grain than the clock, and may read as just ahead of it.
      if (quietMs > 0 && deps.clock() - file.mtimeMs < quietMs) return;
      if (file.size > MAX_MEMORY_BYTES) {
        ctx.warnOnce(`large:${path}`, 'memdir sync passes over a memory file too large to be a note', { path });
        return;
      }
      text = await readLocal(file);
      if (text === null) return;
      const problem = memoryTextProblem(text, file.scope);
      if (problem !== null)
        ctx.warnOnce(`invalid:${path}:${file.fingerprint}`, 'memdir sync passes over a file that is not a memory', {
          path,
          problem,
        });
      known = { fingerprint: file.fingerprint, etag: problem === null ? etagOf(text) : null };
      seen.set(path, known);
    }
    if (known.etag === null) return;
    const record = ctx.records.get(file.key);
    const changed = record?.etag !== known.etag;
    if (!changed && published.get(file.key) === known.etag) return;
    text ??= await readLocal(file);
    if (text === null || etagOf(text) !== known.etag) {
      // Changed between the stat and the read: the next scan reads it again.
      seen.delete(path);
      return;
    }
    await writeSynced(deps.syncDir, publishedSegments(file), text);
    published.set(file.key, known.etag);
    if (!changed) return;
    const counter = ctx.nextCounter();
    const next: MemoryRecord = {
      project: file.project,
      scope: file.scope,
      name: file.name,
      etag: known.etag,
      base: record?.etag ?? null,
      version: bumpVersion(record?.version ?? EMPTY_VERSION, self, counter),
      seq: counter,
      changedAt: deps.clock(),
    };
    ctx.putRecord(next);
    // Made the same as the other machine's version by hand: that conflict is over.
    ctx.settle(next, 'merged');
  }

  async function tombstone(record: MemoryRecord): Promise<void> {
    await removeSynced(deps.syncDir, publishedSegments(record), KEEP_SEGMENTS);
    published.delete(memoryKey(record));
    const counter = ctx.nextCounter();
    ctx.putRecord({
      ...record,
      etag: null,
      base: record.etag,
      version: bumpVersion(record.version, self, counter),
      seq: counter,
      changedAt: deps.clock(),
    });
  }

  /** One memory that could not be published waits for the next scan (its row unchanged); the others go on. */
  function failed(memory: Pick<MemoryRecord, 'project' | 'scope' | 'name'>, error: unknown): void {
    ctx.warnOnce(`publish:${memoryKey(memory)}`, 'memdir sync cannot publish a memory; it is tried again', {
      project: memory.project,
      scope: memory.scope,
      name: memory.name,
      error: (error as Error).message,
    });
  }

  function pruneTombstones(): void {
    const before = deps.clock() - TOMBSTONE_KEEP_MS;
    for (const record of [...ctx.records.values()]) {
      if (record.etag === null && record.changedAt < before) ctx.dropRecord(record);
    }
  }

  async function writeManifest(): Promise<void> {
    // Live memories first, then the newest deletions, within what a reader takes.
    const entries = [...ctx.records.values()]
      .sort((a, b) => ((a.etag === null) === (b.etag === null) ? b.seq - a.seq : a.etag === null ? 1 : -1))
      .slice(0, MAX_SYNCED_MEMORIES)
      .sort((a, b) => (memoryKey(a) < memoryKey(b) ? -1 : 1));
    const counter = ctx.nextCounter();
    const text = manifestText({ format: MEMDIR_MANIFEST_FORMAT, device: self, counter, memories: entries });
    await writeSynced(deps.syncDir, manifestSegments, text);
    manifestFingerprint = await fingerprintOf(join(deps.syncDir, ...manifestSegments));
    ctx.dirty = false;
  }

  return {
    async publish() {
      if (deps.syncDir === '') return;
      const slicer = createSlicer();
      if (!seeded) await seed();
      const onDisk = await fingerprintOf(join(deps.syncDir, ...manifestSegments)).catch(() => 'refused');
      if (onDisk !== manifestFingerprint) {
        await verify(slicer);
        ctx.dirty = true;
      }
      const scan = await scanLocalMemdirs(deps.projectsDir, MAX_SYNCED_MEMORIES, slicer);
      for (const { path, reason } of scan.refused)
        ctx.warnOnce(`refused:${path}`, 'memdir sync passes over a path in the projects dir', { path, reason });
      const present = new Set<string>();
      const seenPaths = new Set<string>();
      for (const scope of scan.scopes) {
        for (const file of scope.files) {
          await slicer.tick();
          present.add(file.key);
          seenPaths.add(join(file.dir, `${file.name}.md`));
          await publishFile(file).catch((error: unknown) => failed(file, error));
        }
      }
      for (const path of seen.keys()) if (!seenPaths.has(path)) seen.delete(path);
      const unread = new Set(scan.scopes.filter((scope) => scope.state === 'refused').map(scopeKeyOf));
      for (const record of [...ctx.records.values()]) {
        if (record.etag === null || present.has(memoryKey(record))) continue;
        // Only a memory missing from a dir read whole is deleted; a project folder gone says nothing of its memories.
        if (!scan.projects.has(record.project) || unread.has(scopeKeyOf(record))) continue;
        await slicer.tick();
        await tombstone(record).catch((error: unknown) => failed(record, error));
      }
      pruneTombstones();
      if (ctx.dirty) await writeManifest();
    },
  };
}
