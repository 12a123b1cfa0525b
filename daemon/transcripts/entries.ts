/**
 * Reads the full JSON of indexed entries back from their transcript, by byte offset: the index
 * keeps only metadata, and compaction needs the content. Reads are positioned (no scan), and a
 * line that no longer parses, or no longer is the entry indexed there, is an InvalidTranscript
 * error: the file changed under the index, and the next ingest pass will catch up.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { isRecord } from '../../shared/values.js';

export interface LoadedEntry {
  entry: IndexedEntry;
  /** The transcript line as Claude Code wrote it. */
  raw: Record<string, unknown>;
}

/** The entries' lines from `path`, in the order given. */
export function loadEntries(path: string, entries: readonly IndexedEntry[]): LoadedEntry[] {
  // Non-blocking, then checked: a FIFO or device swapped in for the transcript would otherwise
  // block this open (on the main thread) until a writer came, freezing the whole daemon.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) {
      throw new RpcError(ErrorCode.InvalidTranscript, 'InvalidTranscript', `${path} is no longer a regular file; memd reads only regular files`, { path });
    }
    return entries.map((entry) => {
      const bytes = Buffer.allocUnsafe(entry.length);
      const read = readSync(fd, bytes, 0, entry.length, entry.offset);
      let raw: unknown;
      try {
        raw = parseTranscriptJson(bytes.toString('utf8', 0, read));
      } catch {
        raw = null;
      }
      if (!isRecord(raw) || (entry.uuid !== null && raw.uuid !== entry.uuid)) {
        throw new RpcError(ErrorCode.InvalidTranscript, 'InvalidTranscript', `${path} changed at byte ${entry.offset}; try again once memd has read it`, {
          path,
          offset: entry.offset,
        });
      }
      return { entry, raw };
    });
  } finally {
    closeSync(fd);
  }
}
