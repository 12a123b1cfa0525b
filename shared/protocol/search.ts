/** `search.query` and `search.context` (issue 17): full-text search over every session's lines. */
import { type MessageParam, messageParamSchema } from './messages.js';
import { arrayOf, bool, literal, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';

/**
 * What a hit is: a user's prompt, the assistant's text, a tool call's input (the command, path or
 * pattern), the key lines of a failed tool call, or (cut to SEARCH_OUTPUT_CHARS) a tool's output;
 * what a Write, Edit, MultiEdit or NotebookEdit wrote (its path and the written text's head), the
 * model's thinking, or memd's own traffic: its MCP calls and their results, Reads of its handoff
 * and session memory, the context its SessionStart hook gave (shared/search/own-traffic.ts; all
 * issue 28). The index keys a text by its kind's place here, in 3 bits (daemon/store/search-row.ts):
 * at most 8 kinds, and a new order needs the index rebuilt.
 */
export const SEARCH_KINDS = ['prompt', 'assistant', 'tool', 'error', 'output', 'memd', 'write', 'thinking'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** What a search returns unless `kinds` says otherwise: memd's own traffic only when asked for. */
export const DEFAULT_SEARCH_KINDS: readonly SearchKind[] = SEARCH_KINDS.filter((kind) => kind !== 'memd');

/** The marks around each matched term in a snippet. */
export const MATCH_OPEN = '«';
export const MATCH_CLOSE = '»';

export interface SearchHit {
  sessionId: string;
  /** The entry's uuid; null for a line without one (then `offset` names it). */
  uuid: string | null;
  timestamp: string | null;
  kind: SearchKind;
  /** Up to ~200 characters around the match with most of the terms near it, matches marked «like this»; null when the transcript is gone. */
  snippet: string | null;
  /** Higher is better: bm25 relevance with a boost for recent lines. */
  score: number;
  /** The session's project folder and title, so that a list of hits reads without another call. */
  project: string;
  /** The project as tables show it (`shop`, `acme/api`); `project` accepts it (issue 28). */
  projectName: string;
  title: string | null;
}

/** Why a page is partial: its time budget ran out (the only cut; a cursor goes on from it). */
export type SearchPartialReason = 'time';

export interface SearchQueryResult {
  hits: SearchHit[];
  /**
   * Pass as `cursor` for the next page; null once every match of the query has been looked at.
   * Following it walks every match once (issue 28): no cap on candidates ends a search unsaid.
   */
  nextCursor: string | null;
  /**
   * Present (true) when the page stopped with fewer hits than asked because its time budget
   * (`partialReason: 'time'`, ~30 ms of reading lines back to check a phrase or of walking matches a
   * filter leaves out) ran out: more hits may exist, and `nextCursor` goes on from there.
   */
  partial?: true;
  partialReason?: SearchPartialReason;
  /** `building` while the index of lines ingested before it existed is still being filled. */
  index: { state: 'ready' | 'building'; filesDone: number; filesTotal: number };
}

/** The search processes (daemon.status `search`; an addition, issue 27). */
export interface SearchStatus {
  /** Search processes alive (started on the first query; at most `searchProcesses`). */
  processes: number;
  /** Queries running now (one per client connection at most), and waiting for a process. */
  running: number;
  queued: number;
  /** A query running longer is stopped and answered SearchTimeout (1010). */
  deadlineMs: number;
  /** Queries stopped, since the daemon started: past the deadline, and because the client cancelled or left. */
  stoppedAtDeadline: number;
  stoppedCancelled: number;
  /**
   * The index's background build (issue 34: after a big first backfill; an addition, absent from
   * older daemons): `building` while lines ingested without their texts are read.
   */
  index?: { state: 'ready' | 'building'; filesDone: number; filesTotal: number };
}

/** `search.context`'s `maxBlockChars`: its default (a block longer is a file or a tool's whole output), and bounds. */
export const DEFAULT_CONTEXT_BLOCK_CHARS = 32_000;
export const MIN_CONTEXT_BLOCK_CHARS = 200;
export const MAX_CONTEXT_BLOCK_CHARS = 1_000_000;

export interface SearchContextResult {
  sessionId: string;
  uuid: string;
  /**
   * The messages around the hit (the hit's own included), in Messages API form, oldest first. A
   * block cut to `maxBlockChars` (or to the answer's size, ~12 MB) carries `cutChars`, the
   * characters left out, and a cut string ends with ` … [memd cut N characters]`; blocks left out
   * once the answer is full are counted in a text block in their place.
   */
  messages: MessageParam[];
  /** Index in `messages` of the one holding the hit. */
  hitIndex: number;
  /**
   * Where the hit is (issue 28; an addition): its compaction segment, 0 the first of `of`
   * (a segment ends at a compact boundary), and whether it is on the active conversation (the
   * one Claude Code goes on from). A hit before a compaction or on a rewound branch has
   * `active: false`, and `messages` are those around it on its own chain.
   */
  segment?: SearchContextSegment;
}

export interface SearchContextSegment {
  index: number;
  of: number;
  active: boolean;
}

/**
 * Where a hit is, in words (memctl and the MCP tool say it alike); null for the active
 * conversation of a session never compacted, where there is nothing to say.
 */
export function describeSegment(segment: SearchContextSegment | undefined): string | null {
  if (segment === undefined || (segment.active && segment.of <= 1)) return null;
  const where = `segment ${segment.index + 1} of ${segment.of}`;
  if (segment.active) return `${where}, the active conversation`;
  if (segment.index < segment.of - 1) return `${where}: before a compaction, no longer in the model's context`;
  return `${where}: on a branch the user rewound away from`;
}

const indexStateSchema = looseObject({ state: oneOf('ready', 'building'), filesDone: num(), filesTotal: num() });

export const searchStatusSchema: Schema<SearchStatus> = looseObject({
  processes: num(),
  running: num(),
  queued: num(),
  deadlineMs: num(),
  stoppedAtDeadline: num(),
  stoppedCancelled: num(),
  index: optional(indexStateSchema),
});

export const searchHitSchema: Schema<SearchHit> = looseObject({
  sessionId: str(),
  uuid: nullable(str()),
  timestamp: nullable(str()),
  kind: oneOf(...SEARCH_KINDS),
  snippet: nullable(str()),
  score: num(),
  project: str(),
  projectName: str(),
  title: nullable(str()),
});

export const searchQueryResultSchema: Schema<SearchQueryResult> = looseObject({
  hits: arrayOf(searchHitSchema),
  nextCursor: nullable(str()),
  partial: optional(literal(true)),
  partialReason: optional(literal('time')),
  index: indexStateSchema,
});

export const searchContextResultSchema: Schema<SearchContextResult> = looseObject({
  sessionId: str(),
  uuid: str(),
  messages: arrayOf(messageParamSchema),
  hitIndex: num(),
  segment: optional(looseObject({ index: num(), of: num(), active: bool() })),
});

/**
 * Claude Code puts the session's id in the environment of what it runs: hooks, Bash commands and
 * stdio MCP servers (2.1.197: `CLAUDE_CODE_SESSION_ID`, set when the server starts).
 */
export const SESSION_ID_ENV = 'CLAUDE_CODE_SESSION_ID';
/** A session id as Claude Code writes it (a UUID); anything else in the variable is not one. */
const ENV_SESSION_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{7,199}$/;

/** The session a search is asked from, when the asker runs inside one (`askingSession`, issue 28). */
export function askingSessionOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const id = env[SESSION_ID_ENV];
  return id !== undefined && ENV_SESSION_ID.test(id) ? id : undefined;
}
