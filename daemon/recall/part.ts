/**
 * Recall as a part of the daemon (issue 33): the passages from search, the words' weights from the
 * full-text index's statistics, a past failure's course from the read model, memories from memdir.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import { recallPassages } from '../search/recall.js';
import type { SearchService } from '../search/service.js';
import type { Transcripts } from '../transcripts/transcripts.js';
import { createInjectedBook } from './injected.js';
import { createRecallService, type RecallService } from './service.js';
import type { TermWeights } from './terms.js';

export interface RecallPartDeps {
  db: Database.Database;
  config: Pick<MemdConfig, 'recallPromptTokens' | 'recallFailure' | 'recallMinCoverage'>;
  log: Logger;
  transcripts: Transcripts;
  memory: { memdir: MemdirStore };
  search: SearchService;
}

/**
 * Each word's inverse document frequency over the index's texts (BM25's form): a word in few
 * texts weighs more. A word the index does not hold weighs 0: no passage can hold it, so it says
 * nothing of which passage answers. Without the statistics (an index not built), 1 each.
 */
export function createTermWeights(db: Database.Database, log: Logger): TermWeights {
  let lookup: { documents: () => number; rows: (term: string) => number } | null = null;
  try {
    // A temp table: FTS5's own statistics, looked up by word (the search processes make the same).
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_vocab USING fts5vocab(main, 'search_fts', 'row')");
    const rows = db.prepare('SELECT doc FROM temp.recall_vocab WHERE term = ?').pluck();
    // Texts in the index: about one per entry (the rowid holds the entry and the text's kind).
    const documents = db.prepare('SELECT coalesce(max(rowid), 0) FROM entries').pluck();
    lookup = {
      documents: () => Math.max(1, Number(documents.get() ?? 0)),
      rows: (term) => Number(rows.get(term) ?? 0),
    };
  } catch (error) {
    log.warn('recall weighs every word alike: the search index has no statistics', { error });
  }
  return (words) => {
    if (lookup === null) return words.map(() => 1);
    const { rows } = lookup;
    const total = lookup.documents();
    return words.map((word) => {
      const found = rows(word);
      return found === 0 ? 0 : Math.log(1 + (total - found + 0.5) / (found + 0.5));
    });
  };
}

export function buildRecall(deps: RecallPartDeps): RecallService {
  return createRecallService({
    config: deps.config,
    // Not the request's signal: stopping a search kills its process (service.ts).
    passages: (input, owner) => recallPassages(deps.search, input, undefined, owner),
    weights: createTermWeights(deps.db, deps.log),
    transcripts: deps.transcripts,
    memdir: deps.memory.memdir,
    injected: createInjectedBook(deps.db),
    log: deps.log,
  });
}
