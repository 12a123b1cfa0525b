/**
 * Search over every session (issue 17): `search.query` (query.ts, in the search processes with the
 * snippets they make from the transcripts: snippet.ts, behind a fair queue with a deadline:
 * query-pool.ts) with the sessions' titles, `search.context` (the messages around a hit),
 * and the state of the index's background build (builder.ts).
 */
import type Database from 'better-sqlite3';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import {
  DEFAULT_CONTEXT_BLOCK_CHARS,
  type SearchContextResult,
  type SearchQueryResult,
} from '../../shared/protocol/search.js';
import { redactDeep } from '../../shared/text/redact.js';
import { attachmentTexts } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import type { Logger } from '../log/logger.js';
import type { SessionConversation } from '../transcripts/conversation.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import { buildMessages, toMessageParams } from '../transcripts/messages.js';
import { createSearchBuilder } from './builder.js';
import { cutMessages } from './context-cut.js';
import { chainOfHit, segmentOf } from './hit-chain.js';
import { planQuery, type SearchFilter } from './query.js';
import { createSearchPool, type SearchOwner } from './query-pool.js';
import { askedQuestion } from './question.js';

/** Messages before and after a hit that `search.context` gives by default. */
export const DEFAULT_CONTEXT_MESSAGES = 3;

export interface SearchDeps {
  db: Database.Database;
  /** The database file, which the search processes open read-only. */
  dbPath: string;
  /** Search processes, and how long a query may run (config searchProcesses, searchDeadlineMs). */
  processes: number;
  deadlineMs: number;
  log: Logger;
  clock: () => number;
  /** The session's title as its summary has it (null when untitled or unknown). */
  titleOf(sessionId: string): string | null;
  /** Each project folder's name as tables show it (project-name.ts). */
  projectNames(): ReadonlyMap<string, string>;
  /** The session's active conversation (NotFound for an unknown session), loaded in slices. */
  conversation(sessionId: string, signal?: AbortSignal): Promise<SessionConversation>;
  /** Entries' lines read back from a transcript, in slices (a hit's segment or branch, when it is not the active conversation). */
  read(path: string, entries: readonly IndexedEntry[], signal?: AbortSignal): Promise<LoadedEntry[]>;
  /** Sessions whose turn is open now (an agent, the turn hooks, holds their memory lock): their turn in flight is never a hit (issue 28). */
  openTurns?(): readonly string[];
}

export function createSearchService(deps: SearchDeps) {
  const pool = createSearchPool({
    dbPath: deps.dbPath,
    size: deps.processes,
    deadlineMs: deps.deadlineMs,
    log: deps.log,
  });
  const builder = createSearchBuilder({ db: deps.db, log: deps.log });

  /**
   * The query's hits as the search process gave them, with each session's title and project
   * name: `search.query`'s, and recall's (recall.ts), which keeps a passage's coverage.
   * `owner` (the client's connection) has one query running at a time; `signal` stops it.
   */
  const titledHits = async (filter: SearchFilter, owner: SearchOwner = 0, signal?: AbortSignal) => {
    // A query that cannot be parsed, or asks too much, is answered without taking a process; a
    // question (plain words, issue 33) is not FTS5's syntax and is not parsed as such.
    if (askedQuestion(filter) === null) planQuery(filter.query);
    const openTurns = deps.openTurns?.() ?? [];
    const { hits, nextCursor, partial } = await pool.query(
      openTurns.length === 0 ? filter : { ...filter, openTurns },
      deps.clock(),
      owner,
      signal,
    );
    const titles = new Map<string, string | null>();
    const titleOf = (sessionId: string) => {
      if (!titles.has(sessionId)) titles.set(sessionId, deps.titleOf(sessionId));
      return titles.get(sessionId) ?? null;
    };
    const names = hits.length === 0 ? new Map<string, string>() : deps.projectNames();
    return {
      hits: hits.map((hit) => ({
        ...hit,
        projectName: names.get(hit.project) ?? hit.project,
        title: titleOf(hit.sessionId),
      })),
      nextCursor,
      partial,
    };
  };

  return {
    hits: titledHits,

    async query(filter: SearchFilter, owner: SearchOwner = 0, signal?: AbortSignal): Promise<SearchQueryResult> {
      const { hits, nextCursor, partial } = await titledHits(filter, owner, signal);
      return {
        hits: hits.map((hit) => ({
          sessionId: hit.sessionId,
          uuid: hit.uuid,
          timestamp: hit.timestamp,
          kind: hit.kind,
          snippet: hit.snippet,
          score: Math.round(hit.score * 1000) / 1000,
          project: hit.project,
          projectName: hit.projectName,
          title: hit.title,
        })),
        nextCursor,
        ...(partial ? { partial: true, partialReason: 'time' as const } : {}),
        index: builder.state(),
      };
    },

    /** `signal`: the request's; the session's first load stops between slices when it aborts. */
    async context(
      sessionId: string,
      uuid: string,
      before = DEFAULT_CONTEXT_MESSAGES,
      after = DEFAULT_CONTEXT_MESSAGES,
      maxBlockChars = DEFAULT_CONTEXT_BLOCK_CHARS,
      signal?: AbortSignal,
    ): Promise<SearchContextResult> {
      const conversation = await deps.conversation(sessionId, signal);
      let found = conversation.messages;
      let at = found.findIndex((message) => message.uuids.includes(uuid));
      let segment = segmentOf(conversation.entries, conversation.active, true);
      if (at === -1) {
        // Before a compaction or on a rewound branch (issue 28, item 6): the hit's own chain.
        const chain = chainOfHit(conversation.entries, uuid);
        if (chain !== null) {
          found = buildMessages(await deps.read(conversation.file.path, chain.entries, signal), attachmentTexts);
          at = found.findIndex((message) => message.uuids.includes(uuid));
          segment = segmentOf(conversation.entries, chain, false);
        }
      }
      if (at === -1) {
        throw new RpcError(
          ErrorCode.NotFound,
          'NotFound',
          `no message ${uuid} in the main transcript of ${sessionId}`,
          { sessionId, uuid },
        );
      }
      const from = Math.max(0, at - before);
      const hitIndex = at - from;
      // Redacted (issue 27) before anything cuts the blocks (a halved secret loses its shape), and
      // cut as they are taken: the answer's size is known before it is serialized.
      const messages = redactDeep(toMessageParams(found.slice(from, at + after + 1)));
      return { sessionId, uuid, messages: cutMessages(messages, hitIndex, maxBlockChars), hitIndex, segment };
    },

    state: () => builder.state(),
    status: () => ({ ...pool.status(), index: builder.state() }),
    // An index follower: ingest writes the index itself; after a commit the builder looks for files
    // it left behind (builder.ts).
    stopStep: 'stop the search index build',
    start: () => builder.start(),
    committed: () => builder.committed(),
    stop: async () => {
      builder.stop();
      pool.close();
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
