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
import { runNow, runSliced, type Slicer, type Steps } from '../workers/slices.js';

export interface LoadedEntry {
  entry: IndexedEntry;
  /** The transcript line as Claude Code wrote it. */
  raw: Record<string, unknown>;
}

/** The entries' lines from `path`, in the order given, read at once (small reads, or a worker's). */
export function loadEntries(path: string, entries: readonly IndexedEntry[]): LoadedEntry[] {
  return runNow(readSteps(path, entries));
}

/**
 * The same, a slice at a time: the active conversation of a 63 MB session is 150 ms of reads and
 * JSON.parse (a 1 MB tool result is a few ms alone), which the main thread must not hold at once.
 */
export function readEntries(path: string, entries: readonly IndexedEntry[], slicer: Slicer): Promise<LoadedEntry[]> {
  return runSliced(readSteps(path, entries), slicer);
}

/** One line per step; the file stays open between steps and is closed however the steps end. */
function readSteps(path: string, entries: readonly IndexedEntry[]): Steps<LoadedEntry[]> {
  return keptSteps(path, entries, (loaded) => loaded);
}

/**
 * The same steps, each line passed through `keep` as soon as it is read: a reader that holds a
 * whole session (earlier.ts) keeps only what `keep` returns, never two whole lines at once.
 */
export function* keptSteps<T>(
  path: string,
  entries: readonly IndexedEntry[],
  keep: (loaded: LoadedEntry) => T,
): Steps<T[]> {
  // Non-blocking, then checked: a FIFO or device swapped in for the transcript would otherwise
  // block this open (on the main thread) until a writer came, freezing the whole daemon.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) {
      throw new RpcError(
        ErrorCode.InvalidTranscript,
        'InvalidTranscript',
        `${path} is no longer a regular file; memd reads only regular files`,
        { path },
      );
    }
    const kept: T[] = [];
    for (const entry of entries) {
      kept.push(keep(readOne(fd, path, entry)));
      yield;
    }
    return kept;
  } finally {
    closeSync(fd);
  }
}

function readOne(fd: number, path: string, entry: IndexedEntry): LoadedEntry {
  const bytes = Buffer.allocUnsafe(entry.length);
  const read = readSync(fd, bytes, 0, entry.length, entry.offset);
  let raw: unknown;
  try {
    raw = parseTranscriptJson(bytes.toString('utf8', 0, read));
  } catch {
    raw = null;
  }
  if (!isRecord(raw) || (entry.uuid !== null && raw.uuid !== entry.uuid)) {
    throw new RpcError(
      ErrorCode.InvalidTranscript,
      'InvalidTranscript',
      `${path} changed at byte ${entry.offset}; try again once memd has read it`,
      {
        path,
        offset: entry.offset,
      },
    );
  }
  return { entry, raw };
}
