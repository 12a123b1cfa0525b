/**
 * Which entry counts for an API response, as ccusage 20.0.24's daily report decides (its figures
 * are the reference; test/integration/usage.test.ts holds them):
 * - entries with the same message.id and requestId are one response, in any file of any session
 *   (a resumed 1.0.x session's copy of its history, a fork, a sub-agent's replay count once);
 *   without a requestId, only entries of the same session with the same timestamp are; without a
 *   message.id, each entry is its own;
 * - the entry that counts is a main-thread one over a sidechain one, then the one with the most
 *   tokens (input + output + cache writes + reads: message_start's placeholder output_tokens
 *   lose), then the first in ccusage's reading order (files by path, lines in order);
 * - its timestamp gives the day, its model the model, its file's folder the project;
 * - between files of two machines (issue 35: a session copied or restored to another machine and
 *   resumed there, both synced), the device ids take the place of the paths: every machine then
 *   picks the same entry, and so gives each device the same share. The order is (device id, path
 *   below that device's projects dir); the id alone decides between two devices, and within one
 *   the absolute path orders as the path below the root does (every file of a device lies under
 *   one root: the projects dir for this machine's, `<state>/sync/devices/<id>` for another's), so
 *   this machine's files keep ccusage's order among themselves;
 * - a sub-agent's response nested in an `agent_progress` entry of the main transcript is one
 *   like any other (a sidechain's, with the nested entry's time): counted once with the sub-agent
 *   file's copy of it, and alone when that file is gone.
 * The result depends only on which entries the index holds, not on the order they are folded in,
 * so that a backfill, a live append and a rebuild all give the same book.
 */

import { SYNTHETIC_MODEL } from '../../shared/transcript/models.js';
import { timestampMs } from '../../shared/transcript/timestamp.js';
import type { IndexedEntry, Usage } from '../../shared/transcript/types.js';
import { SLOT_MS } from './days.js';

/** One entry as the book keeps it. `key` is a signed 64-bit integer in decimal (SQLite's INTEGER). */
export interface Candidate {
  key: string;
  offset: number;
  slot: number;
  sidechain: boolean;
  model: string;
  usage: Usage;
}

/** A candidate with where it stands in ccusage's reading order. */
export interface Placed {
  candidate: Candidate;
  path: string;
  /** The device whose file it is, by id: this machine's own id for its own files. */
  device: string;
}

export function totalTokens(usage: Usage): number {
  return usage.input + usage.output + usage.cacheCreation + usage.cacheRead;
}

/** Multipliers of the two 32-bit lanes of keyOf (odd constants with well-mixed bits, as in cyrb53). */
const LANE_1 = 2_654_435_761;
const LANE_2 = 1_597_334_677;
const MIX_1 = 2_246_822_507;
const MIX_2 = 3_266_489_909;

/**
 * A response's key: a 64-bit hash, so that the book stores 8 bytes rather than two ids of ~30
 * characters; two different responses share one with odds of about 1 in 10^7 at a million. Two
 * multiply-xor lanes mixed into each other (cyrb53's construction, all 64 bits kept): ids are not
 * chosen by an adversary, and sha1 cost ten times as much per entry, a third of the book's ingest time.
 */
export function keyOf(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    h1 = Math.imul(h1 ^ code, LANE_1);
    h2 = Math.imul(h2 ^ code, LANE_2);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), MIX_1) ^ Math.imul(h2 ^ (h2 >>> 13), MIX_2);
  h2 = Math.imul(h2 ^ (h2 >>> 16), MIX_1) ^ Math.imul(h1 ^ (h1 >>> 13), MIX_2);
  return BigInt.asIntN(64, (BigInt(h2 >>> 0) << 32n) | BigInt(h1 >>> 0)).toString();
}

/** What the book reads of an entry. */
export type ResponseEntry = Pick<
  IndexedEntry,
  'offset' | 'type' | 'timestamp' | 'messageId' | 'requestId' | 'model' | 'usage' | 'isSidechain'
>;

/** The candidate an entry is, or null when it is not an API response ccusage counts. */
export function candidateOf(entry: ResponseEntry, sessionId: string, path: string): Candidate | null {
  // A sub-agent's response nested in a progress entry of the main transcript counts too (parse.ts), as a sidechain's.
  const nested = entry.type === 'progress';
  if (
    (entry.type !== 'assistant' && !nested) ||
    entry.usage === null ||
    entry.model === SYNTHETIC_MODEL ||
    entry.timestamp === null
  )
    return null;
  // ccusage skips an entry whose time it cannot read: it has no day. memd skips bad values too
  // (timestamp.ts): checked again here, since an index written before held them as they were.
  const ms = timestampMs(entry.timestamp);
  if (ms === null) return null;
  let identity: string;
  if (entry.messageId === null) identity = `entry\0${path}\0${entry.offset}`;
  else if (entry.requestId === null) identity = `message\0${entry.messageId}\0${sessionId}\0${ms}`;
  else identity = `response\0${entry.messageId}\0${entry.requestId}`;
  return {
    key: keyOf(identity),
    offset: entry.offset,
    slot: Math.floor(ms / SLOT_MS),
    sidechain: entry.isSidechain || nested,
    model: entry.model ?? '',
    usage: entry.usage,
  };
}

/** Within one file: whether `a` counts rather than `b` (same key). */
export function outranksInFile(a: Candidate, b: Candidate): boolean {
  if (a.sidechain !== b.sidechain) return !a.sidechain;
  const [ta, tb] = [totalTokens(a.usage), totalTokens(b.usage)];
  if (ta !== tb) return ta > tb;
  return a.offset < b.offset;
}

/**
 * Across files: whether `a` counts rather than `b` (same key). Paths compare as ccusage sorts them
 * (code units: ASCII paths); files of two devices by their device ids (see above).
 */
export function outranks(a: Placed, b: Placed): boolean {
  if (a.device === b.device && a.path === b.path) return outranksInFile(a.candidate, b.candidate);
  if (a.candidate.sidechain !== b.candidate.sidechain) return !a.candidate.sidechain;
  const [ta, tb] = [totalTokens(a.candidate.usage), totalTokens(b.candidate.usage)];
  if (ta !== tb) return ta > tb;
  if (a.device !== b.device) return a.device < b.device;
  return a.path < b.path;
}
