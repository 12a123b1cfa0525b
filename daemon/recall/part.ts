/**
 * Recall as a part of the daemon (issue 33): the passages from search, the words' weights from the
 * full-text index's statistics, a past failure's course from the read model, memories from memdir.
 */
import type Database from 'better-sqlite3';
import type { MemdConfig } from '../../shared/config.js';
import { idf } from '../../shared/search/relevance.js';
import type { Logger } from '../log/logger.js';
import type { MemdirStore } from '../memory/memdir/store.js';
import { recallPassages } from '../search/recall.js';
import type { SearchService } from '../search/service.js';
import { createTermStats, type TermStats } from '../search/term-stats.js';
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
 * Each term's inverse document frequency over the index's lines (BM25's form, as search weighs a
 * question: term-stats.ts on the daemon's connection): a term whose words are in few lines weighs
 * more; one whose words the index does not hold weighs 0 (no passage can hold it). Without the
 * statistics (an index not built), 1 each.
 */
export function createTermWeights(db: Database.Database, log: Logger): TermWeights {
  let stats: TermStats | null = null;
  try {
    stats = createTermStats(db);
  } catch (error) {
    log.warn('recall weighs every word alike: the search index has no statistics', { error });
  }
  return (terms) => {
    if (stats === null) return terms.map(() => 1);
    const { lines } = stats.totals();
    return terms.map((words) => {
      const found = words.reduce((sum, word) => sum + (stats as TermStats).documents(word), 0);
      return found === 0 ? 0 : idf(Math.min(found, lines), lines);
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
