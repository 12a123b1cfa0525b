/**
 * `memctl search QUERY [--project P] [--session S] [--since 7d] [--until T] [--kind K] [--limit N] [--cursor C] [--json]`:
 * hits over every session, grouped by session with its title, matches highlighted, and how to get
 * the rest when there is more (the page's `--cursor`); and
 * `memctl search --context HIT [--near WORDS] [--before N] [--after N]`: the messages around a hit,
 * where HIT is the `SESSION:UUID` a hit line ends with, a long hit message shown around WORDS (the
 * hit line names its first matched word), or else by its head and tail.
 */

import type { ContentBlock } from '../../../shared/protocol/messages.js';
import { parseAnswer } from '../../../shared/protocol/schema.js';
import {
  askingSessionOf,
  describeSegment,
  MATCH_CLOSE,
  MATCH_OPEN,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  type SearchQueryResult,
  searchContextResultSchema,
  searchQueryResultSchema,
} from '../../../shared/protocol/search.js';
import { stripAnsi } from '../../../shared/text/ansi.js';
import { excerptAround, queryTerms } from '../../../shared/text/excerpt.js';
import { searchFilled } from '../../search-pages.js';
import { type Command, UsageError } from '../context.js';
import type { Output } from '../output.js';
import { formatAge } from '../views/sessions.js';

const MAX_LIMIT = 100;
/** Characters of each message `--context` prints: enough to read, short enough to scan. */
const CONTEXT_CHARS = 600;
const SESSION_ID_CHARS = 8;

interface SearchArgs {
  query?: string;
  context?: string;
  project?: string;
  sessionId?: string;
  since?: string;
  until?: string;
  kinds?: SearchKind[];
  limit?: number;
  cursor?: string;
  before?: number;
  after?: number;
  near?: string;
}

/** A word the shell passes as it is; any other is single-quoted. */
const SHELL_SAFE = /^[\p{L}\p{N}_./:@%+=,-]+$/u;
const shellWord = (word: string): string => (SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function parseArgs(args: string[]): SearchArgs {
  const parsed: SearchArgs = {};
  const words: string[] = [];
  const value = (flag: string, index: number): string => {
    const next = args[index];
    if (next === undefined) throw new UsageError(`${flag} takes a value`);
    return next;
  };
  const count = (flag: string, text: string, max: number): number => {
    const number = Number(text);
    if (!Number.isSafeInteger(number) || number < 0 || number > max)
      throw new UsageError(`${flag} takes a number from 0 to ${max}`);
    return number;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--project') parsed.project = value(arg, ++index);
    else if (arg === '--session') parsed.sessionId = value(arg, ++index);
    else if (arg === '--since') parsed.since = value(arg, ++index);
    else if (arg === '--until') parsed.until = value(arg, ++index);
    else if (arg === '--cursor') parsed.cursor = value(arg, ++index);
    else if (arg === '--context') parsed.context = value(arg, ++index);
    else if (arg === '--near') parsed.near = value(arg, ++index);
    else if (arg === '--before') parsed.before = count(arg, value(arg, ++index), 50);
    else if (arg === '--after') parsed.after = count(arg, value(arg, ++index), 50);
    else if (arg === '--limit') parsed.limit = Math.max(1, count(arg, value(arg, ++index), MAX_LIMIT));
    else if (arg === '--kind') {
      const kind = value(arg, ++index);
      if (!(SEARCH_KINDS as readonly string[]).includes(kind))
        throw new UsageError(`--kind takes one of ${SEARCH_KINDS.join(', ')}`);
      parsed.kinds = [...(parsed.kinds ?? []), kind as SearchKind];
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else words.push(arg);
  }
  if (words.length > 0) parsed.query = words.join(' ');
  if ((parsed.query === undefined) === (parsed.context === undefined))
    throw new UsageError('search takes a QUERY, or --context SESSION:UUID');
  return parsed;
}

function highlight(snippet: string, out: Output): string {
  return snippet.replace(new RegExp(`${MATCH_OPEN}([^${MATCH_CLOSE}]*)${MATCH_CLOSE}`, 'g'), (_match, term: string) =>
    out.bold(out.yellow(term)),
  );
}

/** Hits grouped by session, in the order of each session's best hit. */
function renderHits(hits: readonly SearchHit[], out: Output, now: number): string[] {
  const groups = new Map<string, SearchHit[]>();
  for (const hit of hits) groups.set(hit.sessionId, [...(groups.get(hit.sessionId) ?? []), hit]);
  const lines: string[] = [];
  for (const [sessionId, group] of groups) {
    const first = group[0] as SearchHit;
    lines.push(
      `${out.bold(first.title ?? '(untitled)')}  ${out.dim(`${sessionId.slice(0, SESSION_ID_CHARS)} · ${first.projectName ?? first.project}`)}`,
    );
    for (const hit of group) {
      const snippet =
        hit.snippet === null
          ? out.dim('(its transcript is gone: the line is indexed, its text cannot be shown)')
          : highlight(stripAnsi(hit.snippet), out);
      lines.push(`  ${hit.kind.padEnd(9)} ${formatAge(hit.timestamp, now).padEnd(8)} ${snippet}`);
      // The first matched word goes with the reference, so that --context shows the match.
      const near = hit.snippet === null ? undefined : queryTerms(hit.snippet)[0];
      const reference = `--context ${sessionId.slice(0, SESSION_ID_CHARS)}:${hit.uuid}${near === undefined ? '' : ` --near ${shellWord(near)}`}`;
      if (hit.uuid !== null) lines.push(`  ${' '.repeat(18)}${out.dim(reference)}`);
    }
    lines.push('');
  }
  return lines;
}

/**
 * What the page covers (issue 28): the sessions it shows, and whether that is every session the
 * query matches, or the command that goes on from where it stopped.
 */
function pageEnd(result: SearchQueryResult, args: readonly string[], continued: boolean): string[] {
  const sessions = new Set(result.hits.map((hit) => hit.sessionId)).size;
  if (result.nextCursor === null) {
    if (result.hits.length === 0) return [];
    return [
      continued
        ? `the last of the hits: ${plural(sessions, 'session')} on this page`
        : `every hit: ${plural(sessions, 'session')} in all`,
    ];
  }
  const rest = args.filter((_arg, index) => args[index] !== '--cursor' && args[index - 1] !== '--cursor');
  return [
    `${plural(sessions, 'session')} on this page; more hits (and maybe more sessions) follow:`,
    `  memctl search ${rest.map(shellWord).join(' ')} --cursor ${shellWord(result.nextCursor)}`,
  ];
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

function blockText(block: ContentBlock): string {
  const record = block as unknown as Record<string, unknown>;
  if (record.type === 'text' && typeof record.text === 'string') return record.text;
  if (record.type === 'tool_use') return `[${String(record.name)}] ${JSON.stringify(record.input)}`;
  // A hit can be the model's thinking (issue 28): it is shown like a text.
  if (record.type === 'thinking' && typeof record.thinking === 'string') return `[thinking] ${record.thinking}`;
  if (record.type === 'tool_result') {
    const content = record.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('\n')
          : '';
    return `[result${record.is_error === true ? ', error' : ''}] ${text}`;
  }
  return `[${String(record.type)}]`;
}

export const search: Command = async (ctx) => {
  const args = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    if (args.context !== undefined) {
      const [sessionId, uuid] = args.context.split(':');
      if (sessionId === undefined || uuid === undefined || sessionId === '' || uuid === '')
        throw new UsageError('--context takes SESSION:UUID, as a hit line ends with');
      const answer = await client.searchContext({
        sessionId,
        uuid,
        ...(args.before === undefined ? {} : { before: args.before }),
        ...(args.after === undefined ? {} : { after: args.after }),
      });
      if (ctx.json) ctx.out.out(JSON.stringify(answer));
      else {
        const result = parseAnswer(searchContextResultSchema, answer, 'search.context');
        const terms = args.near === undefined ? [] : queryTerms(args.near);
        const where = describeSegment(result.segment);
        if (where !== null) ctx.out.out(ctx.out.dim(where));
        result.messages.forEach((message, index) => {
          const text = stripAnsi(
            typeof message.content === 'string' ? message.content : message.content.map(blockText).join('\n'),
          ).trim();
          // The hit's message around the match (or its head and tail); the others by their head.
          const cut =
            index === result.hitIndex
              ? excerptAround(text, terms, CONTEXT_CHARS)
              : text.length > CONTEXT_CHARS
                ? `${text.slice(0, CONTEXT_CHARS)}…`
                : text;
          const head = `${message.role}${index === result.hitIndex ? ' (the hit)' : ''}`;
          ctx.out.out(index === result.hitIndex ? ctx.out.bold(head) : ctx.out.dim(head));
          ctx.out.out(`  ${cut.replace(/\n/g, '\n  ')}`);
        });
      }
      return 0;
    }
    const { project, sessionId, since, until, kinds, limit, cursor } = args;
    const query = args.query as string;
    // Run from a Bash call of a session, its own turn (this very command) is no hit (issue 28).
    const asking = askingSessionOf(ctx.env);
    // A page its time budget cut is followed (client/search-pages.ts): what is there is found.
    const answer = await searchFilled((params) => client.searchQuery(params), {
      query,
      ...(project === undefined ? {} : { project }),
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      ...(kinds === undefined ? {} : { kinds }),
      ...(limit === undefined ? {} : { limit }),
      ...(asking === undefined ? {} : { askingSession: asking }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (ctx.json) ctx.out.out(JSON.stringify(answer));
    else {
      const result = parseAnswer(searchQueryResultSchema, answer, 'search.query');
      if (result.index.state === 'building')
        ctx.out.out(
          ctx.out.yellow(
            `the index is still reading older transcripts (${result.index.filesDone} of ${result.index.filesTotal} files): hits may be missing`,
          ),
        );
      if (result.hits.length === 0) ctx.out.out(result.nextCursor === null ? 'no hits' : 'no hits yet');
      for (const line of renderHits(result.hits, ctx.out, Date.now())) ctx.out.out(line);
      for (const line of pageEnd(result, ctx.args, cursor !== undefined)) ctx.out.out(ctx.out.dim(line));
      if (result.partial === true)
        ctx.out.out(
          ctx.out.yellow(
            'the search ran out of time before the page was full: more hits may exist (the --cursor above goes on from where it stopped)',
          ),
        );
    }
    return 0;
  } finally {
    client.close();
  }
};
