/**
 * A forgotten session's tombstone key (issue 35): a hash of its id, not the id, so that forget
 * leaves nothing that names the session in the state dir or the sync folder, while every machine
 * can still tell whether a session it holds was forgotten elsewhere.
 */
import { createHash } from 'node:crypto';

/** Hex digits kept: collisions are out of reach at this length. */
const KEY_HEX = 32;

export const TOMBSTONE_KEY_PATTERN = /^[0-9a-f]{32}$/;

export function tombstoneKey(sessionId: string): string {
  return createHash('sha256').update(`memd-tombstone:${sessionId}`, 'utf8').digest('hex').slice(0, KEY_HEX);
}
