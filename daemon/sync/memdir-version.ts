/**
 * A memory's version across machines (issue 35): one counter per device that changed it, the
 * device's own monotonic counter at that change (a version vector). Clocks differ between machines,
 * so no wall time decides anything; and manifests are snapshots, so a machine may never see the
 * versions in between: with a vector, "remote descends from what I have" is a comparison, however
 * many versions were skipped, and a replayed older manifest compares as older, never as new.
 */
import { isRecord } from '../../shared/values.js';
import { isDeviceId } from './layout.js';

export type Version = Readonly<Record<string, number>>;

/** How two versions relate: `after` means the first descends from the second. */
export type Order = 'equal' | 'before' | 'after' | 'concurrent';

/** Devices one version may name: a user's machines, many times over; a longer vector is not memd's. */
export const MAX_VERSION_DEVICES = 256;

export const EMPTY_VERSION: Version = Object.freeze({});

/** The version in `value` (from a manifest or the database), or null when it is not one. */
export function parseVersion(value: unknown): Version | null {
  if (!isRecord(value)) return null;
  const entries = Object.entries(value);
  if (entries.length > MAX_VERSION_DEVICES) return null;
  const version: Record<string, number> = {};
  for (const [device, counter] of entries) {
    if (!isDeviceId(device) || typeof counter !== 'number' || !Number.isSafeInteger(counter) || counter < 1)
      return null;
    version[device] = counter;
  }
  return version;
}

export function compareVersions(a: Version, b: Version): Order {
  let aAhead = false;
  let bAhead = false;
  for (const device of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const left = a[device] ?? 0;
    const right = b[device] ?? 0;
    if (left > right) aAhead = true;
    else if (right > left) bAhead = true;
  }
  if (aAhead && bAhead) return 'concurrent';
  if (aAhead) return 'after';
  return bAhead ? 'before' : 'equal';
}

/** Whether `a` already holds everything `b` does (equal, or descends from it). */
export const covers = (a: Version, b: Version): boolean => {
  const order = compareVersions(a, b);
  return order === 'equal' || order === 'after';
};

/** The least version that descends from both. */
export function mergeVersions(a: Version, b: Version): Version {
  const merged: Record<string, number> = { ...a };
  for (const [device, counter] of Object.entries(b)) merged[device] = Math.max(merged[device] ?? 0, counter);
  return merged;
}

/** `version` changed by `device` at its counter `counter`. */
export const bumpVersion = (version: Version, device: string, counter: number): Version => ({
  ...version,
  [device]: counter,
});

/** Keys in order, so that one version is always written as one string. */
export function sortedVersion(version: Version): Version {
  const sorted: Record<string, number> = {};
  for (const device of Object.keys(version).sort()) sorted[device] = version[device] as number;
  return sorted;
}

export const versionText = (version: Version): string => JSON.stringify(sortedVersion(version));
