/**
 * The devices a usage report names (issue 35): this machine by the id and name main.ts passes,
 * the others by the name `sync_devices` holds for them (the sync reader writes it from each
 * machine's device.json), and an id that no row names by the id itself. `usage.report`'s `device`
 * takes an id or a name, and means a device as the book keeps it ('' for this machine).
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';

/** This machine as other machines' listings name it (daemon/sync/device.ts). */
export interface ThisDevice {
  id: string;
  name: string;
}

export interface KnownDevice {
  id: string;
  name: string;
}

export interface UsageDevices {
  /** The id a device of the book is reported under: this machine's for '' (its files), else the device's own. */
  idOf(stored: string): string;
  /** Whether a reported id is this machine's. */
  isThis(id: string): boolean;
  /** Each named device's name by id, this machine's included (one without a name is shown by its id). */
  names(): ReadonlyMap<string, string>;
  /**
   * The device of the book (`usage_files.device`) that an id or a name means. Throws NotFound
   * (kind UnknownDevice) when none, InvalidParams (kind AmbiguousDevice) when a name fits several;
   * both with `data.candidates` ({id, name}).
   */
  resolve(text: string): string;
}

/** Candidates listed in an error; more would not help anyone choose. */
const MAX_CANDIDATES = 20;

export function createUsageDevices(db: Database.Database, self: ThisDevice): UsageDevices {
  const named = db.prepare('SELECT id, name FROM sync_devices ORDER BY name, id');
  // A device whose files the book counted before the sync reader named it.
  const counted = db.prepare("SELECT DISTINCT device FROM usage_files WHERE device != ''").pluck();

  /** Each named device's name by id, this machine's first (its own name wins over a row the sync reader wrote of it). */
  const names = (): Map<string, string> => {
    const devices = new Map<string, string>([[self.id, self.name]]);
    for (const row of named.all() as KnownDevice[]) if (!devices.has(row.id)) devices.set(row.id, row.name);
    return devices;
  };
  /** Every device known by name or by usage. */
  const known = (): KnownDevice[] => {
    const devices = names();
    for (const id of counted.all() as string[]) if (!devices.has(id)) devices.set(id, id);
    return [...devices].map(([id, name]) => ({ id, name }));
  };
  const stored = (id: string) => (id === self.id ? '' : id);

  return {
    idOf: (device) => (device === '' ? self.id : device),
    isThis: (id) => id === self.id,
    names,
    resolve(text) {
      const devices = known();
      if (devices.some((device) => device.id === text)) return stored(text);
      // A name as typed, else whatever its case (host names are often told both ways).
      let matching = devices.filter((device) => device.name === text);
      if (matching.length === 0)
        matching = devices.filter((device) => device.name.toLowerCase() === text.toLowerCase());
      const candidates = (matching.length > 1 ? matching : devices).slice(0, MAX_CANDIDATES);
      const list = candidates.map((device) => `${device.name} (${device.id})`).join(', ');
      if (matching.length === 1) return stored((matching[0] as KnownDevice).id);
      if (matching.length > 1)
        throw new RpcError(
          ErrorCode.InvalidParams,
          'AmbiguousDevice',
          `device "${text}" is ambiguous: ${list}; name it by its id`,
          { device: text, candidates },
        );
      throw new RpcError(ErrorCode.NotFound, 'UnknownDevice', `no device "${text}" (known: ${list})`, {
        device: text,
        candidates,
      });
    },
  };
}
