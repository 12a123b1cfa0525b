/**
 * Cutting an export into pages: each page ends on a UTF-8 character boundary, so that every page
 * decodes on its own and the pages' bytes, joined, are the export's bytes. Pure.
 */

/** The most continuation bytes one UTF-8 character has after its lead byte. */
const MAX_CONTINUATION_BYTES = 3;

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * Where a page of at most `maxBytes` from `start` ends: at `start + maxBytes` unless a character
 * runs across it, then at that character's first byte. Bytes that are not UTF-8 (more
 * continuation bytes in a row than a character has) are cut where the page is full.
 */
export function utf8PageEnd(bytes: Uint8Array, start: number, maxBytes: number): number {
  const end = Math.min(bytes.length, start + maxBytes);
  if (end >= bytes.length) return bytes.length;
  let cut = end;
  for (let step = 0; step < MAX_CONTINUATION_BYTES && cut > start && isContinuation(bytes[cut]); step++) cut--;
  if (isContinuation(bytes[cut]) || cut === start) return end;
  return cut;
}
