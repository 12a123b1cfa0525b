/**
 * The best passages of past sessions for a natural-language question (issue 33): what the
 * UserPromptSubmit and PostToolUse hooks' recall and the MCP `recall` tool put before the model.
 * The question is run as a question whatever its shape (a prompt may hold quotes or one word),
 * through the search processes (their deadline and fairness), one passage per session, ranked by
 * relevance (question.ts); each passage says where it is (`ref`, what `memctl search --context`
 * takes) and how much of the question it holds (`coverage`), for the caller's threshold.
 * Secrets are redacted before indexing and in every text read back (shared/text/redact.ts).
 */
import { MATCH_CLOSE, MATCH_OPEN, type SearchKind } from '../../shared/protocol/search.js';
import type { SearchFilter } from './query.js';
import type { SearchOwner } from './query-pool.js';
import type { SearchService } from './service.js';

/** A passage is about this many characters unless asked otherwise: a few lines of context. */
export const DEFAULT_PASSAGE_CHARS = 600;
/** Passages at most unless asked otherwise. */
export const DEFAULT_RECALL_LIMIT = 5;

export interface RecallQuestion {
  /** The question, as typed (a prompt, an error's key line). */
  question: string;
  /** Scope, as `search.query` takes it. */
  project?: string;
  sessionId?: string;
  since?: string;
  until?: string;
  /** Kinds to look in (every kind but memd's own traffic by default). */
  kinds?: readonly SearchKind[];
  /** Sessions whose lines are never passages (the asking session, for one). */
  excludeSessions?: readonly string[];
  /** The session asking: its turn in flight is left out too (as `search.query`'s askingSession). */
  askingSession?: string;
  limit?: number;
  passageChars?: number;
}

export interface RecallPassage {
  sessionId: string;
  title?: string;
  project: string;
  projectName: string;
  timestamp: string | null;
  /** The passage's text (redacted), about `passageChars` around its best match, unmarked. */
  text: string;
  /** Relevance: higher is better, comparable within one question. */
  score: number;
  /** The share of the question's weight (rare words weigh more) the passage holds, 0-1: a threshold's measure. */
  coverage: number;
  /** `SESSION:UUID`, as `memctl search --context` takes it. */
  ref: string;
  /** Which text of its line it is: prompt, error, tool (a command or path), assistant, output… */
  field: SearchKind;
}

const MARKS = new RegExp(`[${MATCH_OPEN}${MATCH_CLOSE}]`, 'g');

/**
 * The best passages for the question, best first, one per session; a line without a uuid (it
 * cannot be opened) or whose transcript is gone (no text) is left out.
 */
export async function recallPassages(
  search: Pick<SearchService, 'hits'>,
  input: RecallQuestion,
  signal?: AbortSignal,
  owner: SearchOwner = 0,
): Promise<RecallPassage[]> {
  const filter: SearchFilter = {
    query: input.question,
    question: true,
    limit: input.limit ?? DEFAULT_RECALL_LIMIT,
    passageChars: input.passageChars ?? DEFAULT_PASSAGE_CHARS,
    ...(input.project === undefined ? {} : { project: input.project }),
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
    ...(input.since === undefined ? {} : { since: input.since }),
    ...(input.until === undefined ? {} : { until: input.until }),
    ...(input.kinds === undefined ? {} : { kinds: input.kinds }),
    ...(input.excludeSessions === undefined ? {} : { excludeSessions: input.excludeSessions }),
    ...(input.askingSession === undefined ? {} : { askingSession: input.askingSession }),
  };
  const { hits } = await search.hits(filter, owner, signal);
  const passages: RecallPassage[] = [];
  for (const hit of hits) {
    if (hit.uuid === null || hit.snippet === null) continue;
    passages.push({
      sessionId: hit.sessionId,
      ...(hit.title === null ? {} : { title: hit.title }),
      project: hit.project,
      projectName: hit.projectName,
      timestamp: hit.timestamp,
      text: hit.snippet.replace(MARKS, ''),
      score: Math.round(hit.score * 1000) / 1000,
      coverage: hit.coverage ?? 0,
      ref: `${hit.sessionId}:${hit.uuid}`,
      field: hit.kind,
    });
  }
  return passages;
}
