/** `search_sessions` (search.query) and `session_context` (search.context): find a line in any session, then read around it. */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SEARCH_KINDS, type SearchHit, type SearchQueryResult } from '../../../../shared/protocol/search.js';
import { queryTerms } from '../../../../shared/text/excerpt.js';
import { searchFilled } from '../../../search-pages.js';
import { joinWithinBudget, OUTPUT_BUDGET_CHARS, oneLine } from '../budget.js';
import { count, formatTime, list, plural, quoted, respond, type ToolContext } from './context.js';
import { renderContext } from './render-messages.js';

/** Hits a model asks for without saying: enough to choose from, few enough to read. */
const DEFAULT_HITS = 10;
/** Each hit renders in at most ~600 characters, so this many fit the output budget whole. */
const MAX_HITS = 30;
/** Messages on each side of a hit by default: the question before, the outcome after. */
const DEFAULT_AROUND = 3;
/** More than this a side is a transcript read, not a hit's context; page with another hit instead. */
const MAX_AROUND = 10;
/** Characters of a block memd sends: the most of one that render-messages.ts shows (the hit's text, 6,000). */
const CONTEXT_BLOCK_CHARS = 6_000;
/**
 * With a query, the hit's texts are shown around its words (issue 28), which can be past the first
 * 6,000 characters: memd sends this much of each block (the daemon's answer stays under its 4 M).
 */
const QUERY_BLOCK_CHARS = 100_000;
/** The daemon makes snippets of about 200 characters; a longer one is cut, not trusted. */
const SNIPPET_CHARS = 400;
const TITLE_CHARS = 100;
const PROJECT_CHARS = 120;
const ID_CHARS = 100;
const CURSOR_CHARS = 200;

const SESSION_ID = z.string().min(4).max(200);

const FTS_ADVICE =
  'Query syntax: two or more plain words are a question, ranked by relevance, one hit per session; a single word or SQLite FTS5 syntax is exact: "an exact phrase" in double quotes, OR between alternatives, NOT before a word to exclude it, a trailing * for a prefix (invoic*), and NEAR(word1 word2, 5) for words at most 5 words apart. A word with punctuation (src/totals.js, Math.round) is searched as a phrase.';

/** Said once in the tool list: when to use the tool, and the syntax a query may use. */
const SEARCH_DESCRIPTION = "Exact words in past sessions' prompts, replies, commands, paths, errors. FTS5 syntax.";

const searchInput = {
  query: z.string().min(1).max(1_000),
  // Names and descriptions the model reads in every request (listing.ts): a word where a word says it.
  project: z.string().min(1).max(4_096).optional(),
  session: SESSION_ID.optional(),
  kinds: z.array(z.enum(SEARCH_KINDS)).min(1).max(SEARCH_KINDS.length).optional(),
  limit: z.number().int().min(1).max(MAX_HITS).optional(),
  cursor: z.string().min(1).max(CURSOR_CHARS).optional(),
};

const contextInput = {
  session: SESSION_ID,
  uuid: z.string().min(1).max(200),
  before: z.number().int().min(0).max(MAX_AROUND).optional(),
  after: z.number().int().min(0).max(MAX_AROUND).optional(),
  query: z.string().min(1).max(1_000).optional(),
};

interface SearchArgs {
  query: string;
  project?: string | undefined;
  session?: string | undefined;
  since?: string | undefined;
  kinds?: SearchHit['kind'][] | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

function scopeOf(args: SearchArgs): string {
  const where =
    args.session !== undefined
      ? `session ${oneLine(args.session, ID_CHARS)}`
      : args.project !== undefined
        ? `project ${oneLine(args.project, PROJECT_CHARS)}`
        : 'every project';
  const filters: string[] = [];
  if (args.kinds !== undefined) filters.push(`kinds: ${args.kinds.join(', ')}`);
  if (args.since !== undefined) filters.push(`since ${oneLine(args.since, 64)}`);
  return filters.length > 0 ? `${where} (${filters.join('; ')})` : where;
}

/** The session a hit is in, said once for all its hits on the page. */
function renderSessionLine(hit: SearchHit): string {
  const title = hit.title === null ? '(untitled)' : quoted(hit.title, TITLE_CHARS);
  return `session ${oneLine(hit.sessionId, ID_CHARS)} · ${oneLine(hit.projectName ?? hit.project, PROJECT_CHARS)} · ${title}`;
}

function renderHit(hit: SearchHit, rank: number): string {
  const where = hit.uuid === null ? 'no uuid (no context to read)' : `uuid ${oneLine(hit.uuid, ID_CHARS)}`;
  const snippet =
    hit.snippet === null ? '(the transcript is gone; only the hit is known)' : oneLine(hit.snippet, SNIPPET_CHARS);
  return `${rank}. ${oneLine(hit.kind, 20)} · ${formatTime(hit.timestamp)} · ${where}\n   ${snippet}`;
}

/**
 * Hits grouped by session, sessions in the order of their best hit, each hit keeping its rank: a
 * session's id, project and title are said once, not once per hit.
 */
function renderHitsBySession(hits: SearchHit[]): string[] {
  const groups = new Map<string, { rank: number; hit: SearchHit }[]>();
  hits.forEach((hit, index) => {
    const key = String(hit.sessionId);
    const group = groups.get(key) ?? [];
    group.push({ rank: index + 1, hit });
    groups.set(key, group);
  });
  return [...groups.values()].flatMap((group) =>
    group.map(({ rank, hit }, index) => `${index === 0 ? `\n${renderSessionLine(hit)}\n` : ''}${renderHit(hit, rank)}`),
  );
}

/**
 * One hit per line of a transcript (issue 33, item 5): an Edit is indexed as the call (its path) and
 * as what it wrote, and both can match; the second says nothing the first does not, and
 * session_context reads the same messages for both. The first, the better ranked, is kept.
 */
export function oneHitPerLine(hits: readonly SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => {
    if (hit.uuid === null) return true;
    const key = `${hit.sessionId}\n${hit.uuid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function renderSearch(args: SearchArgs, result: SearchQueryResult): string {
  const hits = oneHitPerLine(list<SearchHit>(result.hits));
  const building =
    result.index?.state === 'building'
      ? `\nmemd is still indexing older sessions (${count(result.index.filesDone)} of ${count(result.index.filesTotal)} files): more hits may appear later.`
      : '';
  if (hits.length === 0 && typeof result.nextCursor === 'string') {
    // Cut by time before any hit was found (a phrase in a large scope): not "no hits".
    return `No hits yet for ${quoted(args.query, 200)} in ${scopeOf(args)}: the search ran out of time before it had looked at every match.${building}\nCall search_sessions again with the same arguments and cursor: ${quoted(result.nextCursor, CURSOR_CHARS)}.`;
  }
  if (hits.length === 0) {
    const none =
      args.cursor !== undefined ? 'No more hits.' : `No hits for ${quoted(args.query, 200)} in ${scopeOf(args)}.`;
    return `${none}${building}\nTry other or fewer words, a prefix (invoic*), OR between alternatives, or fewer filters. ${FTS_ADVICE}`;
  }
  const head = `${plural(hits.length, 'hit')} for ${quoted(args.query, 200)} in ${scopeOf(args)}, numbered best first, by session:${building}`;
  const sessions = new Set(hits.map((hit) => hit.sessionId)).size;
  const more = result.nextCursor !== null && result.nextCursor !== undefined;
  const cut =
    result.partial === true
      ? ' The search ran out of time before this page was full (it checks phrases on the text): more hits may exist.'
      : '';
  const tail = more
    ? `\n${plural(sessions, 'session')} on this page; more hits (maybe in more sessions) exist.${cut} Call search_sessions again with the same arguments and cursor: ${quoted(result.nextCursor as string, CURSOR_CHARS)}.`
    : args.cursor === undefined
      ? `\nNo more hits: these are every hit, in ${plural(sessions, 'session')}.`
      : '\nNo more hits.';
  return joinWithinBudget(
    head,
    renderHitsBySession(hits),
    `${tail}\nTo read around a hit: session_context with the hit's session and uuid, and this query.`,
    (left) => `(${plural(left, 'more hit')} of this page left out to fit the output budget: ask with a lower limit.)`,
    OUTPUT_BUDGET_CHARS,
    'session titles and snippets of matching lines',
  );
}

export function registerSearchTools(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const search = server.registerTool(
    'search_sessions',
    {
      title: 'Search past Claude Code sessions',
      description: SEARCH_DESCRIPTION,
      inputSchema: searchInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          // A page its time budget cut is followed (client/search-pages.ts): what is there is found.
          const result = await searchFilled((params) => context.memd.searchQuery(params), {
            query: args.query,
            limit: args.limit ?? DEFAULT_HITS,
            ...(args.project === undefined ? {} : { project: args.project }),
            ...(args.session === undefined ? {} : { sessionId: args.session }),
            ...(args.kinds === undefined ? {} : { kinds: args.kinds }),
            ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
            ...(context.session === undefined ? {} : { askingSession: context.session }),
          });
          return renderSearch(args, result);
        },
        {
          invalidParams: `Fix the query or the filter it names. ${FTS_ADVICE}`,
          notFound: 'Check the project or session: list_sessions shows them (project: "all" for every project).',
        },
      ),
  );

  const around = server.registerTool(
    'session_context',
    {
      title: 'Read the conversation around a search hit',
      description: 'Messages around a recall or search hit.',
      inputSchema: contextInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          const result = await context.memd.searchContext({
            sessionId: args.session,
            uuid: args.uuid,
            before: args.before ?? DEFAULT_AROUND,
            after: args.after ?? DEFAULT_AROUND,
            maxBlockChars: args.query === undefined ? CONTEXT_BLOCK_CHARS : QUERY_BLOCK_CHARS,
          });
          return renderContext(result, args.query === undefined ? [] : queryTerms(args.query));
        },
        {
          notFound:
            'Use a session id and uuid exactly as search_sessions gave them; run the search again if the session may have been deleted since.',
        },
      ),
  );
  return { search_sessions: search, session_context: around };
}
