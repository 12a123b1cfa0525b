/**
 * The search index's side of a commit (issue 17): the texts of the committed lines go into
 * `search_fts` in the commit's transaction, so the index holds what the entries hold. A file the
 * index is not caught up with (ingested before the index was made, being read by the search index
 * builder) gets nothing here; the builder reads its lines from where the index stopped.
 */
import type Database from 'better-sqlite3';
import { SEARCH_KINDS, type SearchKind } from '../../shared/protocol/search.js';
import type { FileRow } from './rows.js';
import { KIND_SLOTS, type SearchParam, searchRowRange } from './search-row.js';

export interface SearchWriter {
  /** Before a file's entries are deleted (it is read again from its start): its texts go first, while their rows say where they are. Returns how many. */
  dropFile(fileId: number): number;
  /**
   * Inside the commit's transaction, after its rows (`rowids`: theirs by offset); `row` is the
   * file's row before the commit. True when the file's search offset moved to `committedOffset`
   * (the caller's row follows once the transaction succeeds).
   */
  commit(
    row: FileRow,
    reset: boolean,
    committedOffset: number,
    runs: readonly (readonly SearchParam[])[],
    rowids: ReadonlyMap<number, number>,
  ): boolean;
  /** Adds texts of a file's lines between byte offsets `from` and `to`, their entries written already (the builder), in the caller's transaction. */
  add(fileId: number, from: number, to: number, runs: readonly (readonly SearchParam[])[]): void;
}

export function createSearchWriter(db: Database.Database): SearchWriter {
  // Plain INSERT: a file's texts are dropped before it is indexed again and the builder moves its
  // offset in the same transaction as its texts, so a rowid is never written twice (OR REPLACE
  // would look each rowid up in the index first: a third of the insert time). Keys computed here:
  // an INSERT … SELECT into the FTS5 table costs seven times as much.
  const insert = db.prepare('INSERT INTO search_fts (rowid, text) VALUES (?, ?)');
  const entryRowids = db.prepare('SELECT rowid FROM entries WHERE file_id = ? ORDER BY offset').pluck();
  const entriesFrom = db
    .prepare('SELECT offset, rowid FROM entries WHERE file_id = ? AND offset >= ? AND offset < ?')
    .raw();
  const deleteRange = db.prepare('DELETE FROM search_fts WHERE rowid BETWEEN ? AND ?');
  const setOffset = db.prepare('UPDATE files SET search_offset = ? WHERE id = ?');

  const insertAll = (runs: readonly (readonly SearchParam[])[], rowids: ReadonlyMap<number, number>) => {
    for (const run of runs) {
      for (let at = 0; at + 2 < run.length; at += 3) {
        const entry = rowids.get(run[at] as number);
        // A line without an entry row has nothing a hit could point at.
        if (entry !== undefined)
          insert.run(entry * KIND_SLOTS + SEARCH_KINDS.indexOf(run[at + 1] as SearchKind), run[at + 2] as string);
      }
    }
  };

  return {
    dropFile(fileId) {
      // The file's entries in runs of consecutive rowids (one run unless other files' lines were
      // committed between its own): one range delete each. all(), not iterate(): the connection
      // runs no other statement while an iterator is open.
      let first = -1;
      let last = -1;
      let dropped = 0;
      for (const rowid of entryRowids.all(fileId) as number[]) {
        if (rowid === last + 1) {
          last = rowid;
          continue;
        }
        if (first !== -1) dropped += deleteRange.run(...searchRowRange(first, last)).changes;
        first = rowid;
        last = rowid;
      }
      if (first !== -1) dropped += deleteRange.run(...searchRowRange(first, last)).changes;
      return dropped;
    },
    commit(row, reset, committedOffset, runs, rowids) {
      if (!reset && row.search_offset !== row.committed_offset) return false;
      insertAll(runs, rowids);
      setOffset.run(committedOffset, row.id);
      return true;
    },
    add(fileId, from, to, runs) {
      insertAll(runs, new Map(entriesFrom.all(fileId, from, to) as [number, number][]));
    },
  };
}
