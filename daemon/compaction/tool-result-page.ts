/**
 * `toolResults.get` in pages (issue 13 item 6): a tool result can be hundreds of MB, more than
 * one 16 MiB frame (and more than one string) holds. Offsets and lengths count UTF-8 bytes of the
 * result's text form (the text, or the JSON of a block array); a page ends on a character
 * boundary, so that the pages put together are the text exactly. A persisted file is read only
 * in the range asked for.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ContentBlock } from '../../shared/protocol/messages.js';

/** What a call returns without `length`: well inside one frame even when every byte escapes. */
export const DEFAULT_PAGE_BYTES = 1024 * 1024;
/**
 * The most one page may hold: JSON escapes a control byte as six (`\u0001`), so 2 MiB of the
 * worst text still fits in the 16 MiB frame with the rest of the answer.
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** A UTF-8 character is at most 4 bytes: reading this many more finds the next boundary. */
const MAX_CHAR_BYTES = 4;

export interface PageRequest {
  offset: number;
  length: number;
}

export interface Page {
  /** The slice of the text form. */
  text: string;
  offset: number;
  /** Bytes in this page. */
  bytes: number;
  totalBytes: number;
  /** Where the next page starts; null when this one ends the result. */
  nextOffset: number | null;
}

export function pageRequest(offset: number | undefined, length: number | undefined): PageRequest {
  return { offset: offset ?? 0, length: Math.min(length ?? DEFAULT_PAGE_BYTES, MAX_PAGE_BYTES) };
}

/** The start of the character at or before `at`: UTF-8 continuation bytes are 10xxxxxx. */
function charStart(bytes: Uint8Array, at: number): number {
  let index = at;
  while (index > 0 && index < bytes.length && ((bytes[index] as number) & 0xc0) === 0x80) index -= 1;
  return index;
}

/** The page of bytes `all` (the whole text form, or a window of it that starts at `base`). */
function cut(window: Buffer, base: number, totalBytes: number, request: PageRequest): Page {
  const start = Math.min(request.offset, totalBytes);
  const wanted = Math.min(totalBytes, start + request.length);
  // A page that would end inside a character ends before it; the next page starts there.
  const end = wanted >= totalBytes ? totalBytes : base + charStart(window, wanted - base);
  const from = base + charStart(window, start - base);
  const slice = window.subarray(from - base, Math.max(from, end) - base);
  const stop = from + slice.length;
  return {
    text: slice.toString('utf8'),
    offset: from,
    bytes: slice.length,
    totalBytes,
    nextOffset: stop < totalBytes ? stop : null,
  };
}

/** A page of a result held in memory (from the transcript). */
export function pageOfText(text: string, request: PageRequest): Page {
  const bytes = Buffer.from(text, 'utf8');
  return cut(bytes, 0, bytes.length, request);
}

/** A page of a persisted file, read in its range only. */
export async function pageOfFile(handle: FileHandle, size: number, request: PageRequest): Promise<Page> {
  const start = Math.min(request.offset, size);
  // A few bytes before (to find where a character begins) and after (where the next one does).
  const base = Math.max(0, start - MAX_CHAR_BYTES);
  const to = Math.min(size, start + request.length + MAX_CHAR_BYTES);
  const window = Buffer.alloc(to - base);
  const { bytesRead } = await handle.read(window, 0, window.length, base);
  return cut(window.subarray(0, bytesRead), base, size, request);
}

/** The text form of a result: paged results of blocks are the JSON of the array. */
export function textForm(content: string | ContentBlock[]): { text: string; form: 'text' | 'json' } {
  return typeof content === 'string'
    ? { text: content, form: 'text' }
    : { text: JSON.stringify(content), form: 'json' };
}
