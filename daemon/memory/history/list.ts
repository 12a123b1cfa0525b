/** `history.list`: a page of Claude Code's prompt history, newest first, with pastes resolved. */
import { historyFile, pasteCacheDir } from '../../../shared/paths.js';
import { invalidParams } from '../../../shared/protocol/errors.js';
import type { HistoryEntry, HistoryListResult } from '../../../shared/protocol/history.js';
import type { HistoryFilter, HistoryRecord } from './entry.js';
import { type PageOptions, readHistoryPage } from './page.js';
import { createPasteResolver } from './pastes.js';

/** The protocol's cap: a page is meant for a screen, not an export. */
export const MAX_HISTORY_LIMIT = 100;

export interface HistoryQuery {
  project?: string;
  sessionId?: string;
  limit?: number;
  /** ISO time: only entries strictly older (a previous page's nextBefore). */
  before?: string;
}

function toFilter(query: HistoryQuery): HistoryFilter {
  const filter: HistoryFilter = {};
  if (query.project !== undefined) filter.project = query.project;
  if (query.sessionId !== undefined) filter.sessionId = query.sessionId;
  if (query.before !== undefined) {
    const beforeMs = Date.parse(query.before);
    if (!Number.isFinite(beforeMs))
      throw invalidParams(`before must be an ISO timestamp, got ${JSON.stringify(query.before)}`, {
        before: query.before,
      });
    filter.beforeMs = beforeMs;
  }
  return filter;
}

function toLimit(limit: number | undefined): number {
  if (limit === undefined) return MAX_HISTORY_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw invalidParams(`limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}, got ${limit}`, { limit });
  }
  return limit;
}

export async function listHistory(
  claudeRoot: string,
  query: HistoryQuery,
  options: PageOptions = {},
): Promise<HistoryListResult> {
  const page = await readHistoryPage(historyFile(claudeRoot), toFilter(query), toLimit(query.limit), options);
  const resolve = createPasteResolver(pasteCacheDir(claudeRoot));
  const entries = await Promise.all(
    page.records.map(
      async (record: HistoryRecord): Promise<HistoryEntry> => ({
        display: record.display,
        timestamp: new Date(record.timestampMs).toISOString(),
        project: record.project,
        sessionId: record.sessionId,
        pastes: await Promise.all(record.pastes.map(resolve)),
      }),
    ),
  );
  const last = entries.at(-1);
  return { entries, nextBefore: page.hasMore && last !== undefined ? last.timestamp : null, badLines: page.badLines };
}
