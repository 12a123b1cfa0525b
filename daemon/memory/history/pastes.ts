/**
 * Paste contents: inline in the history line, or, for long pastes, in
 * `<claude root>/paste-cache/<hash>.txt` (the hash being the sha256's first 16 hex digits). The
 * hash comes from a file other programs write, so it names a file only when it is plain hex.
 */
import { join } from 'node:path';
import type { HistoryPaste } from '../../../shared/protocol/history.js';
import { readTextIfPresent } from '../../fs/read.js';
import type { PasteRef } from './entry.js';

/** Claude Code uses 16; up to a whole sha512 is still a hash, anything longer is not one of its names. */
const CONTENT_HASH = /^[0-9a-f]{8,128}$/i;

export function isSafeContentHash(hash: string): boolean {
  return CONTENT_HASH.test(hash);
}

export function pasteCacheFile(pasteCacheDir: string, hash: string): string {
  return join(pasteCacheDir, `${hash}.txt`);
}

/**
 * The cached text, or null. Any failure to read is reported as a missing paste: one unreadable
 * file must not hide the rest of the history.
 */
async function readCached(pasteCacheDir: string, hash: string): Promise<string | null> {
  if (!isSafeContentHash(hash)) return null;
  try {
    return await readTextIfPresent(pasteCacheFile(pasteCacheDir, hash));
  } catch {
    return null;
  }
}

/** Resolves pastes; a hash shared by several pastes is read once. */
export function createPasteResolver(pasteCacheDir: string): (paste: PasteRef) => Promise<HistoryPaste> {
  const reads = new Map<string, Promise<string | null>>();
  const cached = (hash: string): Promise<string | null> => {
    let read = reads.get(hash);
    if (read === undefined) {
      read = readCached(pasteCacheDir, hash);
      reads.set(hash, read);
    }
    return read;
  };
  return async ({ id, type, content, contentHash }) => {
    if (content !== null) return { id, type, content, contentHash, missing: false, chars: content.length };
    if (contentHash === null) return { id, type, content: null, contentHash: null, missing: false, chars: null };
    const text = await cached(contentHash);
    if (text === null) return { id, type, content: null, contentHash, missing: true, chars: null };
    return { id, type, content: text, contentHash, missing: false, chars: text.length };
  };
}
