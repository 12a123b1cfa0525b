/**
 * The search index's side of a commit (issue 17): the texts of the committed lines go into
 * `search_fts` in the commit's transaction, so the index holds what the entries hold. A file the
 * index is not caught up with (ingested before migration 12, being read by the search index
 * builder) gets nothing here; the builder reads its lines from where the index stopped.
 */
import type Database from 'better-sqlite3';
import type { SearchKind } from '../../shared/protocol/search.js';
import type { FileRow } from '../store/rows.js';
import { isSearchable, searchRowId, searchRowRange } from '../store/search-row.js';
import type { SearchParam } from './chunk-parser.js';

export interface SearchWriter {
  /**
   * Inside the commit's transaction, after its rows; `row` is the file's row before the commit.
   * True when the file's search offset moved to `committedOffset` (the caller's row follows once
   * the transaction succeeds).
   */
  commit(row: FileRow, reset: boolean, committedOffset: number, runs: readonly (readonly SearchParam[])[]): boolean;
  /** Adds texts of a file's lines and moves its search offset (the builder), in the caller's transaction. */
  add(fileId: number, runs: readonly (readonly SearchParam[])[]): void;
}

export function createSearchWriter(db: Database.Database): SearchWriter {
  // Plain INSERT: a file's range is deleted before it is indexed again and the builder moves its
  // offset in the same transaction as its texts, so a rowid is never written twice. OR REPLACE
  // would look each rowid up in the index first (a third of the insert time).
  const insert = db.prepare('INSERT INTO search_fts (rowid, text) VALUES (?, ?)');
  const deleteFile = db.prepare('DELETE FROM search_fts WHERE rowid BETWEEN ? AND ?');
  const setOffset = db.prepare('UPDATE files SET search_offset = ? WHERE id = ?');

  const add = (fileId: number, runs: readonly (readonly SearchParam[])[]) => {
    for (const run of runs) {
      for (let at = 0; at + 2 < run.length; at += 3) {
        const offset = run[at] as number;
        if (!isSearchable(fileId, offset)) continue;
        insert.run(searchRowId(fileId, offset, run[at + 1] as SearchKind), run[at + 2] as string);
      }
    }
  };

  return {
    commit(row, reset, committedOffset, runs) {
      if (reset) {
        const [first, last] = searchRowRange(row.id);
        deleteFile.run(first, last);
      } else if (row.search_offset !== row.committed_offset) {
        return false;
      }
      add(row.id, runs);
      setOffset.run(committedOffset, row.id);
      return true;
    },
    add,
  };
}
