/**
 * The key of a searchable text in `search_fts` (migration 12): the FTS5 table is contentless (it
 * stores the index, not the text: the transcript holds it), so its rowid alone says where a text
 * came from. rowid = (file id × 2^40 + byte offset of the line) × 8 + kind. A file's texts are one
 * rowid range (deleted together when the file is indexed again); the line's entry is found by
 * (file id, offset). File ids up to 2^20 and offsets up to 2^40 (1 TiB) fit in SQLite's 63 bits.
 */
import { SEARCH_KINDS, type SearchKind } from '../../shared/protocol/search.js';

const OFFSET_BITS = 40n;
const KIND_BITS = 3n;
/** Larger ids (a million transcript files) are not indexed for search rather than mis-keyed. */
export const MAX_SEARCH_FILE_ID = 2 ** 20 - 1;
export const MAX_SEARCH_OFFSET = 2 ** 40 - 1;

export function searchRowId(fileId: number, offset: number, kind: SearchKind): bigint {
  return (((BigInt(fileId) << OFFSET_BITS) | BigInt(offset)) << KIND_BITS) | BigInt(SEARCH_KINDS.indexOf(kind));
}

/** The first and last rowid a file's texts may have. */
export function searchRowRange(fileId: number): [bigint, bigint] {
  const first = BigInt(fileId) << (OFFSET_BITS + KIND_BITS);
  return [first, first + (1n << (OFFSET_BITS + KIND_BITS)) - 1n];
}

export function isSearchable(fileId: number, offset: number): boolean {
  return fileId <= MAX_SEARCH_FILE_ID && offset <= MAX_SEARCH_OFFSET;
}

/** SQL giving a rowid's file id, offset and kind index, for `rowid` named as given. */
export function searchRowParts(rowid: string): { fileId: string; offset: string; kind: string } {
  return { fileId: `(${rowid} >> 43)`, offset: `((${rowid} >> 3) & 1099511627775)`, kind: `(${rowid} & 7)` };
}

export function kindAt(index: number): SearchKind {
  return SEARCH_KINDS[index] ?? 'prompt';
}
