/**
 * `sync.status` (issue 35): what this machine shares through the sync folder and what the others
 * shared. Nothing is shared unless `syncDir` is set.
 */
import { arrayOf, bool, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

export interface SyncSelf {
  id: string;
  name: string;
  /** This machine's subtree: `<syncDir>/<id>`. */
  dir: string;
  /** Sessions and archive files mirrored there, and their gzipped bytes. */
  sessions: number;
  files: number;
  bytes: number;
  /** Archive files not mirrored yet (the first mirror of a large archive goes in rounds). */
  behind: number;
  /** When this machine last wrote its index (ISO); null before the first time. */
  publishedAt: string | null;
  /** Sessions forgotten (`archive forget`) on any machine, whose tombstones it carries. */
  tombstones: number;
}

export interface SyncDevice {
  id: string;
  name: string;
  version: string;
  /** Its subtree is no longer in the sync folder (an unlinked machine): what was decoded of it stays indexed. */
  gone: boolean;
  /** When this machine first and last saw its subtree (this machine's clock, ISO). */
  firstSeen: string;
  lastSeen: string;
  /** When it says it wrote its index (its own clock, ISO; clocks differ between machines). */
  indexWrittenAt: string | null;
  /** Sessions its index lists, and its archive files decoded here. */
  sessions: number;
  files: number;
  /** Its gzipped bytes decoded here, and the transcript bytes they hold. */
  archiveBytes: number;
  sourceBytes: number;
  /** Files its index lists with bytes not here yet (still arriving, or a torn last member). */
  behind: number;
  /** Files that cannot be decoded (a bad member); each counted, the rest decoded. */
  problems: number;
  /** Why the device's files are not read now (its index torn or of a newer format); null when read. */
  problem: string | null;
}

export const SYNC_STATES = ['off', 'starting', 'idle', 'syncing', 'failing'] as const;

export interface SyncStatus {
  enabled: boolean;
  /** The sync folder (absolute); null when sync is off. */
  dir: string | null;
  state: (typeof SYNC_STATES)[number];
  /** The last round's failure (the folder missing, a full disk); null when it went through. */
  reason: string | null;
  self: SyncSelf | null;
  devices: SyncDevice[];
  /** When the last round ended (ISO). */
  lastRoundAt: string | null;
}

const deviceSchema: Schema<SyncDevice> = looseObject({
  id: str(),
  name: str(),
  version: str(),
  gone: bool(),
  firstSeen: str(),
  lastSeen: str(),
  indexWrittenAt: nullable(str()),
  sessions: num(),
  files: num(),
  archiveBytes: num(),
  sourceBytes: num(),
  behind: num(),
  problems: num(),
  problem: nullable(str()),
});

export const syncStatusSchema: Schema<SyncStatus> = looseObject({
  enabled: bool(),
  dir: nullable(str()),
  state: oneOf(...SYNC_STATES),
  reason: nullable(str()),
  self: nullable(
    looseObject({
      id: str(),
      name: str(),
      dir: str(),
      sessions: num(),
      files: num(),
      bytes: num(),
      behind: num(),
      publishedAt: nullable(str()),
      tombstones: num(),
    }),
  ),
  devices: arrayOf(deviceSchema),
  lastRoundAt: nullable(str()),
});
