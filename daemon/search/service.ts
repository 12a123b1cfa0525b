/**
 * Search over every session (issue 17): `search.query` (query.ts, in the search worker with the
 * snippets it makes from the transcripts: snippet.ts) with the sessions' titles, `search.context` (the messages around a hit),
 * and the state of the index's background build (builder.ts).
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { SearchContextResult, SearchQueryResult } from '../../shared/protocol/search.js';
import type { Logger } from '../log/logger.js';
import { toMessageParams } from '../transcripts/messages.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import { createSearchBuilder } from './builder.js';
import { createSearchWorker } from './query-client.js';
import type { SearchFilter } from './query.js';

/** Messages before and after a hit that `search.context` gives by default. */
export const DEFAULT_CONTEXT_MESSAGES = 3;

export interface SearchDeps {
  db: Database.Database;
  /** The database file, which the search worker opens read-only. */
  dbPath: string;
  log: Logger;
  clock: () => number;
  /** The session's title as its summary has it (null when untitled or unknown). */
  titleOf(sessionId: string): string | null;
  /** The session's active conversation (NotFound for an unknown session), loaded in slices. */
  conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation>;
}

export function createSearchService(deps: SearchDeps) {
  const worker = createSearchWorker(deps.dbPath);
  const builder = createSearchBuilder({ db: deps.db, log: deps.log });

  return {
    async query(filter: SearchFilter): Promise<SearchQueryResult> {
      const { hits, nextOffset, partial } = await worker.query(filter, deps.clock());
      const titles = new Map<string, string | null>();
      const titleOf = (sessionId: string) => {
        if (!titles.has(sessionId)) titles.set(sessionId, deps.titleOf(sessionId));
        return titles.get(sessionId) ?? null;
      };
      return {
        hits: hits.map((hit) => ({
          sessionId: hit.sessionId,
          uuid: hit.uuid,
          timestamp: hit.timestamp,
          kind: hit.kind,
          snippet: hit.snippet,
          score: Math.round(hit.score * 1000) / 1000,
          project: hit.project,
          title: titleOf(hit.sessionId),
        })),
        nextCursor: nextOffset === null ? null : `o${nextOffset}`,
        ...(partial ? { partial: true } : {}),
        index: builder.state(),
      };
    },

    /** `signal`: the request's; the session's first load stops between slices when it aborts. */
    async context(sessionId: string, uuid: string, before = DEFAULT_CONTEXT_MESSAGES, after = DEFAULT_CONTEXT_MESSAGES, signal?: AbortSignal): Promise<SearchContextResult> {
      const conversation = await deps.conversation(sessionId, signal);
      const at = conversation.messages.findIndex((message) => message.uuids.includes(uuid));
      if (at === -1) {
        throw new RpcError(ErrorCode.NotFound, 'NotFound', `no message ${uuid} in the active conversation of ${sessionId} (it may be on an abandoned branch or before a compaction)`, {
          sessionId,
          uuid,
        });
      }
      const from = Math.max(0, at - before);
      return { sessionId, uuid, messages: toMessageParams(conversation.messages.slice(from, at + after + 1)), hitIndex: at - from };
    },

    state: () => builder.state(),
    start: () => builder.start(),
    stop: async () => {
      builder.stop();
      await worker.close();
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
