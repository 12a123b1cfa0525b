/**
 * A device's memdir manifest, `<syncDir>/<device>/memdir/manifest.json` (issue 35): every memory
 * the device holds, with its etag, the etag it was made from, its version (memdir-version.ts) and
 * the device's counter when the entry last changed; a deleted memory stays listed with a null etag
 * (a tombstone), so that "deleted there" is never confused with "not arrived yet". Written last and
 * atomically by its device; everything in it is checked here before any of it is used, since the
 * sync engine may bring it torn, old, or from a newer memd.
 */
import { checkMemoryName } from '../../shared/memdir/names.js';
import type { MemoryScope } from '../../shared/protocol/memdir.js';
import { isRecord } from '../../shared/values.js';
import { createSlicer } from '../workers/slices.js';
import { parseVersion, sortedVersion, type Version } from './memdir-version.js';

/** The manifest's format: a reader skips a device whose manifest says a newer one (and retries later). */
export const MEMDIR_MANIFEST_FORMAT = 1;
export const MANIFEST_FILE = 'manifest.json';
/**
 * Memories one device publishes at most: a note collection is dozens per project, so this is far
 * past any real one, and it keeps a manifest's parse within one slice of the event loop.
 */
export const MAX_SYNCED_MEMORIES = 10_000;
/** A manifest larger than this is not one memd wrote (MAX_SYNCED_MEMORIES entries fit several times). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;
/** A project folder as Claude Code names it (shared/paths.ts sanitizeProjectDirName); NAME_MAX long at most. */
const PROJECT_FOLDER = /^[A-Za-z0-9-]{1,255}$/;
const ETAG = /^[0-9a-f]{32}$/;

export interface ManifestEntry {
  project: string;
  scope: MemoryScope;
  name: string;
  /** The device's version of the memory; null: deleted there (a tombstone). */
  etag: string | null;
  /** The etag this version was made from (the last version the device held before it); null: new. */
  base: string | null;
  version: Version;
  /** The device's counter when the entry last changed. */
  seq: number;
}

export interface Manifest {
  format: number;
  device: string;
  /** The device's counter when it wrote the manifest: never goes down, so a lower one is a rolled-back copy. */
  counter: number;
  memories: ManifestEntry[];
}

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; reason: string; newer?: true };

/** One string per memory: the key of maps and of the conflicts' rows. */
export const memoryKey = (entry: { project: string; scope: MemoryScope; name: string }): string =>
  `${entry.project}\u0000${entry.scope}\u0000${entry.name}`;

export const isProjectFolder = (name: string): boolean => PROJECT_FOLDER.test(name);

const isEtag = (value: unknown): value is string | null =>
  value === null || (typeof value === 'string' && ETAG.test(value));
const isCounter = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function entryOf(value: unknown): ManifestEntry | string {
  if (!isRecord(value)) return 'an entry is not an object';
  const { project, scope, name, etag, base, seq } = value;
  if (typeof project !== 'string' || !isProjectFolder(project)) return 'an entry has no valid project folder';
  if (scope !== 'private' && scope !== 'team') return 'an entry has no valid scope';
  if (typeof name !== 'string' || !checkMemoryName(name, scope).ok) return 'an entry has no valid memory name';
  if (!isEtag(etag) || !isEtag(base)) return `memory ${name} has an invalid etag`;
  if (!isCounter(seq)) return `memory ${name} has an invalid counter`;
  const version = parseVersion(value.version);
  if (version === null || Object.keys(version).length === 0) return `memory ${name} has an invalid version`;
  return { project, scope, name, etag, base, version, seq };
}

/** The manifest in `value` (parsed JSON), every field checked; slices of the event loop between entries. */
export async function checkManifest(value: unknown, device: string): Promise<ManifestCheck> {
  if (!isRecord(value)) return { ok: false, reason: 'not an object' };
  const { format, counter, memories } = value;
  if (typeof format !== 'number' || !Number.isSafeInteger(format) || format < 1)
    return { ok: false, reason: 'no format' };
  if (format > MEMDIR_MANIFEST_FORMAT)
    return { ok: false, reason: `format ${format} is newer than this memd's ${MEMDIR_MANIFEST_FORMAT}`, newer: true };
  if (value.device !== device) return { ok: false, reason: 'written for another device' };
  if (!isCounter(counter)) return { ok: false, reason: 'no counter' };
  if (!Array.isArray(memories) || memories.length > MAX_SYNCED_MEMORIES)
    return { ok: false, reason: `memories is not a list of at most ${MAX_SYNCED_MEMORIES}` };
  const entries: ManifestEntry[] = [];
  const keys = new Set<string>();
  const slicer = createSlicer();
  for (const raw of memories) {
    await slicer.tick();
    const entry = entryOf(raw);
    if (typeof entry === 'string') return { ok: false, reason: entry };
    const key = memoryKey(entry);
    if (keys.has(key)) return { ok: false, reason: `memory ${entry.name} is listed twice` };
    keys.add(key);
    entries.push(entry);
  }
  return { ok: true, manifest: { format, device, counter, memories: entries } };
}

/** The JSON in `text`, or null: a manifest still arriving is torn, and is read again once it changed. */
export function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function manifestText(manifest: Manifest): string {
  const memories = manifest.memories.map((entry) => ({
    project: entry.project,
    scope: entry.scope,
    name: entry.name,
    etag: entry.etag,
    base: entry.base,
    version: sortedVersion(entry.version),
    seq: entry.seq,
  }));
  return `${JSON.stringify({ format: manifest.format, device: manifest.device, counter: manifest.counter, memories }, null, 1)}\n`;
}
