/**
 * Where an export reads a session's main transcript from. Every byte an export uses (the `jsonl`
 * pages and the lines the reports are made of) comes through one `OpenTranscript`, so that memd's
 * archive can stand in for a transcript Claude Code deleted: main.ts passes the function, and
 * this file's `openMainTranscript` is the plain one, the file where the index found it.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { parseTranscriptJson } from '../../shared/transcript/depth.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { isRecord } from '../../shared/values.js';
import { isMissingPath, notAFile } from '../fs/read.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import type { Transcripts } from '../transcripts/transcripts.js';

export interface TranscriptBytes {
  /** Bytes in the transcript now: what a `jsonl` export takes (a page never reads past its first page's size). */
  readonly size: number;
  /** Which file, and which version of it: a later page of the same export checks it is unchanged. */
  readonly identity: string;
  /** Up to `length` bytes from `offset` (fewer only at the end). */
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** A session's main transcript; NotFound (kinds NotFound, MainTranscriptMissing, TranscriptGone) when there is none to read. */
export type OpenTranscript = (sessionId: string) => Promise<TranscriptBytes>;

/** The session's main transcript where the index found it. */
export function openMainTranscript(transcripts: Transcripts): OpenTranscript {
  return async (sessionId) => {
    const file = transcripts.mainFile(sessionId);
    const gone = () =>
      new RpcError(
        ErrorCode.NotFound,
        'TranscriptGone',
        `the transcript of session ${sessionId} was deleted (${file.path}); memd has its index entries but not its text`,
        {
          sessionId,
          path: file.path,
        },
      );
    if (file.gone) throw gone();
    let handle;
    try {
      // Non-blocking: a FIFO swapped in for the transcript must not hold a thread until a writer comes.
      handle = await open(file.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (isMissingPath(error)) throw gone();
      throw error;
    }
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw notAFile(file.path);
    }
    const opened = handle;
    return {
      size: stat.size,
      identity: `${file.id}:${file.generation}:${stat.dev}:${stat.ino}`,
      async read(offset, length) {
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await opened.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      },
      close: () => opened.close(),
    };
  };
}

/** Lines read together: few reads for small lines, a bounded buffer for any. */
const READ_SPAN_BYTES = 4 * 1024 * 1024;

function changedAt(offset: number): RpcError {
  return new RpcError(
    ErrorCode.InvalidTranscript,
    'InvalidTranscript',
    `the transcript changed at byte ${offset}; export again once memd has read it`,
    { offset },
  );
}

/**
 * The entries' lines (in offset order), parsed, handed to `each` in order; between spans of
 * lines the event loop runs, and an aborted `signal` stops the reading. A line that no longer
 * parses, or no longer is the entry indexed there, is InvalidTranscript, as for every reader.
 */
export async function readEntries(
  source: TranscriptBytes,
  entries: readonly IndexedEntry[],
  each: (loaded: LoadedEntry) => void,
  signal: AbortSignal,
): Promise<void> {
  let index = 0;
  while (index < entries.length) {
    signal.throwIfAborted();
    const first = entries[index] as IndexedEntry;
    let last = index;
    let end = first.offset + first.length;
    while (last + 1 < entries.length) {
      const next = entries[last + 1] as IndexedEntry;
      if (next.offset < first.offset || next.offset + next.length - first.offset > READ_SPAN_BYTES) break;
      last++;
      end = Math.max(end, next.offset + next.length);
    }
    const span = await source.read(first.offset, end - first.offset);
    for (let at = index; at <= last; at++) {
      const entry = entries[at] as IndexedEntry;
      const start = entry.offset - first.offset;
      if (start + entry.length > span.length) throw changedAt(entry.offset);
      let raw: unknown;
      try {
        raw = parseTranscriptJson(span.toString('utf8', start, start + entry.length));
      } catch {
        raw = null;
      }
      if (!isRecord(raw) || (entry.uuid !== null && raw.uuid !== entry.uuid)) throw changedAt(entry.offset);
      each({ entry, raw });
    }
    index = last + 1;
  }
}
