/**
 * The key of a searchable text in `search_fts` (migration 13): the FTS5 table is contentless (it
 * stores the index, not the text: the transcript holds it), so its rowid alone says where a text
 * came from: rowid = (rowid of the line's row in `entries`) × 8 + kind. Entries' rowids are dense
 * and grow with the offset within a file (a file's rows are appended in order, or all replaced),
 * so the index's rowid deltas are a byte or two and a file's texts lie between its first and last
 * entry's. memd never VACUUMs (which could renumber entries' rowids and would need the index
 * rebuilt: `UPDATE files SET search_offset = 0` with the index emptied).
 */
import { SEARCH_KINDS, type SearchKind } from '../../shared/protocol/search.js';

const KIND_BITS = 3n;
/** Rowids per entry: one per kind. */
export const KIND_SLOTS = 8;

export function searchRowId(entryRowid: number | bigint, kind: SearchKind): bigint {
  return (BigInt(entryRowid) << KIND_BITS) | BigInt(SEARCH_KINDS.indexOf(kind));
}

/** The first and last rowid the texts of entries first..last may have. */
export function searchRowRange(firstEntry: number, lastEntry: number): [number, number] {
  return [firstEntry * KIND_SLOTS, lastEntry * KIND_SLOTS + KIND_SLOTS - 1];
}

/** SQL giving a rowid's entry rowid and kind index, for `rowid` named as given. */
export function searchRowParts(rowid: string): { entry: string; kind: string } {
  return { entry: `(${rowid} >> 3)`, kind: `(${rowid} & 7)` };
}

/**
 * A searchable text as INSERT parameters: (offset of its line, kind, text) triples in a flat run,
 * so that ingest's hot path (and the parse worker's messages) build no object per text.
 */
export type SearchParam = string | number;

export function kindAt(index: number): SearchKind {
  return SEARCH_KINDS[index] ?? 'prompt';
}
