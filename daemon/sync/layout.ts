/**
 * The sync folder's layout (issue 35, docs/sync.md). Each machine writes only its own subtree,
 * named by its device id, and reads the others' read-only:
 *
 *   <syncDir>/<device>/device.json                     who it is (name, memd version)
 *   <syncDir>/<device>/index.json                      its sessions and their files, its tombstones
 *   <syncDir>/<device>/archive/<project>/<sessionId>/<rel>.gz   its archive, member for member
 *   <syncDir>/<device>/memdir/<project>/…              its memory files (memdir-sync.ts)
 *
 * Other machines' transcripts are decoded into the state dir, laid out as a projects dir per
 * device (`<state>/sync/devices/<device>/<project>/<rel>`), and indexed from there.
 */
import { join } from 'node:path';
import { syncedTranscriptsDir } from '../../shared/paths.js';

/** A device id: random, made once per state dir. Anything else in the sync folder is not a device's. */
export const DEVICE_ID_PATTERN = /^[0-9a-f]{16}$/;
/** The sync folder's format: a reader skips a device whose files say a newer one. */
export const SYNC_FORMAT = 1;
/** Dirs memd makes in the sync folder and the state dir: owner only (they hold transcripts). */
export const SYNC_DIR_MODE = 0o700;

export const isDeviceId = (name: string): boolean => DEVICE_ID_PATTERN.test(name);

export function deviceDir(syncDir: string, device: string): string {
  return join(syncDir, device);
}

export function deviceFile(syncDir: string, device: string): string {
  return join(syncDir, device, 'device.json');
}

export function indexFile(syncDir: string, device: string): string {
  return join(syncDir, device, 'index.json');
}

export function syncedArchiveRoot(syncDir: string, device: string): string {
  return join(syncDir, device, 'archive');
}

export function syncedMemdirRoot(syncDir: string, device: string): string {
  return join(syncDir, device, 'memdir');
}

/** Where one of another machine's files is decoded (shared/paths.ts syncedTranscriptsDir). */
export function decodedPath(stateDir: string, device: string, rel: string): string {
  return join(syncedTranscriptsDir(stateDir), device, rel);
}
