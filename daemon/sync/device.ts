/**
 * This machine's device id: random, made at memd's first start and kept in the state dir
 * (`<state>/device.json`), so that a renamed host keeps its subtree and two hosts of one name do
 * not share one; it names this machine's tombstones even before sync is set up. The name shown to users is the config's `syncDeviceName`, else the host name.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { isDeviceId } from './layout.js';

export interface DeviceIdentity {
  id: string;
  name: string;
}

/** Longest device name kept: it is shown in a column. */
const MAX_NAME_CHARS = 64;

export function deviceNameOf(configured: string): string {
  const name = (configured.trim() === '' ? hostname() : configured).replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  return name === '' ? 'unnamed' : name.slice(0, MAX_NAME_CHARS);
}

/** The state dir's device id, or null when none was made (or device.json is not one's). */
async function readDeviceId(path: string): Promise<string | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    const id = (value as { id?: unknown } | null)?.id;
    return typeof id === 'string' && isDeviceId(id) ? id : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
    return null;
  }
}

/** The state dir's device id, made on first use (written atomically: a crash leaves none or one). */
export async function loadDeviceId(stateDir: string): Promise<string> {
  const path = join(stateDir, 'device.json');
  const known = await readDeviceId(path);
  if (known !== null) return known;
  const id = randomBytes(8).toString('hex');
  await writeFileAtomic(path, `${JSON.stringify({ id, createdAt: new Date().toISOString() })}\n`);
  return id;
}
