/**
 * `memctl search QUERY …`'s arguments and the page it prints, for the command (commands/search.ts)
 * and its quick path (quick/search.ts) alike. Pure.
 */
import {
  MATCH_CLOSE,
  MATCH_OPEN,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  type SearchQueryResult,
} from '../../shared/protocol/search.js';
import { stripAnsi } from '../../shared/text/ansi.js';
import { queryTerms } from '../../shared/text/excerpt.js';
import { type Output, plural } from './output.js';
import { formatAge } from './views/sessions.js';

const MAX_LIMIT = 100;
const SESSION_ID_CHARS = 8;

export interface SearchArgs {
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
/**
 * The same for ASCII words, tried first: V8 builds the Unicode classes of SHELL_SAFE when it first
 * runs (about 1.2 ms of `memctl search`'s start), which most words never need.
 */
const SHELL_SAFE_ASCII = /^[A-Za-z0-9_./:@%+=,-]+$/;
export const shellWord = (word: string): string =>
  SHELL_SAFE_ASCII.test(word) || SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** The arguments, or what is wrong with them. */
export function parseSearchArgs(args: readonly string[]): SearchArgs | string {
  try {
    return parseOrThrow(args);
  } catch (error) {
    if (error instanceof ArgumentError) return error.message;
    throw error;
  }
}

class ArgumentError extends Error {}

function parseOrThrow(args: readonly string[]): SearchArgs {
  const parsed: SearchArgs = {};
  const words: string[] = [];
  const value = (flag: string, index: number): string => {
    const next = args[index];
    if (next === undefined) throw new ArgumentError(`${flag} takes a value`);
    return next;
  };
  const count = (flag: string, text: string, max: number): number => {
    const number = Number(text);
    if (!Number.isSafeInteger(number) || number < 0 || number > max)
      throw new ArgumentError(`${flag} takes a number from 0 to ${max}`);
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
        throw new ArgumentError(`--kind takes one of ${SEARCH_KINDS.join(', ')}`);
      parsed.kinds = [...(parsed.kinds ?? []), kind as SearchKind];
    } else if (arg.startsWith('--')) throw new ArgumentError(`unknown option ${arg}`);
    else words.push(arg);
  }
  if (words.length > 0) parsed.query = words.join(' ');
  if ((parsed.query === undefined) === (parsed.context === undefined))
    throw new ArgumentError('search takes a QUERY, or --context SESSION:UUID');
  return parsed;
}

function highlight(snippet: string, out: Output): string {
  return snippet.replace(new RegExp(`${MATCH_OPEN}([^${MATCH_CLOSE}]*)${MATCH_CLOSE}`, 'g'), (_match, term: string) =>
    out.bold(out.yellow(term)),
  );
}

/** Hits grouped by session, in the order of each session's best hit. */
export function renderHits(hits: readonly SearchHit[], out: Output, now: number): string[] {
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
export function pageEnd(result: SearchQueryResult, args: readonly string[], continued: boolean): string[] {
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

/** The lines of a page of hits: the index's state, the hits by session, where the page ends. */
export function searchPage(
  result: SearchQueryResult,
  argv: readonly string[],
  continued: boolean,
  out: Output,
): string[] {
  const lines: string[] = [];
  if (result.index.state === 'building')
    lines.push(
      out.yellow(
        `the index is still reading older transcripts (${result.index.filesDone} of ${result.index.filesTotal} files): hits may be missing`,
      ),
    );
  if (result.hits.length === 0) lines.push(result.nextCursor === null ? 'no hits' : 'no hits yet');
  lines.push(...renderHits(result.hits, out, Date.now()));
  for (const line of pageEnd(result, argv, continued)) lines.push(out.dim(line));
  if (result.partial === true)
    lines.push(
      out.yellow(
        'the search ran out of time before the page was full: more hits may exist (the --cursor above goes on from where it stopped)',
      ),
    );
  return lines;
}

/** `search.query`'s params for the arguments of a QUERY (not `--context`). */
export function searchParams(args: SearchArgs, asking: string | undefined) {
  const { project, sessionId, since, until, kinds, limit, cursor } = args;
  return {
    query: args.query as string,
    ...(project === undefined ? {} : { project }),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(kinds === undefined ? {} : { kinds }),
    ...(limit === undefined ? {} : { limit }),
    ...(asking === undefined ? {} : { askingSession: asking }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}
