/**
 * A device's `index.json` and `device.json` in the sync folder: what it says it shares. Written by
 * another machine and carried by a sync engine, so read as hostile: every field checked, every
 * path confined to its session's folder, sizes bounded; a file that fails is ignored whole until a
 * good copy arrives (a torn copy from an engine mid-write fails JSON.parse and waits).
 */
import { isAbsolute, normalize, sep } from 'node:path';
import { TOMBSTONE_KEY_PATTERN } from '../../shared/sync/tombstone.js';
import { isDeviceId } from './layout.js';

export interface SyncIndexFile {
  rel: string;
  kind: 'transcript' | 'file';
  sourceBytes: number;
  archiveBytes: number;
}

export interface SyncIndex {
  format: number;
  device: string;
  writtenAt: string;
  sessions: { sessionId: string; project: string; files: SyncIndexFile[] }[];
  /** Sessions forgotten on any machine, by tombstone key (shared/sync/tombstone.ts): never their ids. */
  tombstones: { sessionHash: string; device: string; at: number; deleteTranscripts: boolean }[];
}

export interface DeviceFile {
  format: number;
  id: string;
  name: string;
  version: string;
}

/** Bounds on what one device may list: far above a heavy user's (a few thousand sessions). */
const MAX_SESSIONS = 200_000;
const MAX_FILES_PER_SESSION = 20_000;
const MAX_TOMBSTONES = 200_000;
const MAX_NAME_CHARS = 200;
/** A path part Claude Code could have made: no separators, no dot-dirs, printable. */
const SAFE_PART = /^[^/\\\0\p{Cc}]{1,255}$/u;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A project folder or session id: one path part, not `.` or `..`. */
export function isSafePart(value: unknown): value is string {
  return typeof value === 'string' && SAFE_PART.test(value) && value !== '.' && value !== '..';
}

/** A path under a project folder (`<sessionId>.jsonl`, `<sessionId>/subagents/x.jsonl`): relative, no `..`. */
export function isSafeRel(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || value.length > 1024 || isAbsolute(value)) return false;
  if (normalize(value) !== value) return false;
  return value.split(sep).every((part) => isSafePart(part));
}

export function parseDeviceFile(text: string, expectedId: string, maxFormat: number): DeviceFile | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'device.json is not JSON (torn or still arriving)';
  }
  if (!isObject(value)) return 'device.json is not an object';
  if (!isCount(value.format) || value.format > maxFormat)
    return `device.json is of format ${String(value.format)}, newer than this memd reads`;
  if (value.id !== expectedId || !isDeviceId(expectedId)) return 'device.json names another device';
  const name = typeof value.name === 'string' ? value.name.replace(/\p{Cc}/gu, '').slice(0, MAX_NAME_CHARS) : '';
  const version = typeof value.version === 'string' ? value.version.slice(0, 40) : '';
  return { format: value.format, id: expectedId, name: name === '' ? expectedId : name, version };
}

export function parseIndex(text: string, expectedId: string, maxFormat: number): SyncIndex | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'index.json is not JSON (torn or still arriving)';
  }
  if (!isObject(value)) return 'index.json is not an object';
  if (!isCount(value.format) || value.format > maxFormat)
    return `index.json is of format ${String(value.format)}, newer than this memd reads`;
  if (value.device !== expectedId) return 'index.json names another device';
  if (!Array.isArray(value.sessions) || value.sessions.length > MAX_SESSIONS) return 'index.json has no session list';
  if (!Array.isArray(value.tombstones) || value.tombstones.length > MAX_TOMBSTONES)
    return 'index.json has no tombstone list';
  const sessions: SyncIndex['sessions'] = [];
  for (const session of value.sessions as unknown[]) {
    if (!isObject(session) || !isSafePart(session.sessionId) || !isSafePart(session.project)) continue;
    if (!Array.isArray(session.files) || session.files.length > MAX_FILES_PER_SESSION) continue;
    const files: SyncIndexFile[] = [];
    for (const file of session.files as unknown[]) {
      if (!isObject(file) || !isSafeRel(file.rel) || !isCount(file.sourceBytes) || !isCount(file.archiveBytes))
        continue;
      if (file.kind !== 'transcript' && file.kind !== 'file') continue;
      files.push({ rel: file.rel, kind: file.kind, sourceBytes: file.sourceBytes, archiveBytes: file.archiveBytes });
    }
    sessions.push({ sessionId: session.sessionId, project: session.project, files });
  }
  const tombstones: SyncIndex['tombstones'] = [];
  for (const tombstone of value.tombstones as unknown[]) {
    if (!isObject(tombstone) || typeof tombstone.sessionHash !== 'string' || !isCount(tombstone.at)) continue;
    if (!TOMBSTONE_KEY_PATTERN.test(tombstone.sessionHash)) continue;
    if (typeof tombstone.device !== 'string' || !isDeviceId(tombstone.device)) continue;
    tombstones.push({
      sessionHash: tombstone.sessionHash,
      device: tombstone.device,
      at: tombstone.at,
      deleteTranscripts: tombstone.deleteTranscripts === true,
    });
  }
  const writtenAt = typeof value.writtenAt === 'string' ? value.writtenAt.slice(0, 40) : '';
  return { format: value.format, device: expectedId, writtenAt, sessions, tombstones };
}
