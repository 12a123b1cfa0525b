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
  searchContextResultSchema,
  searchQueryResultSchema,
} from '../../../shared/protocol/search.js';
import { stripAnsi } from '../../../shared/text/ansi.js';
import { excerptAround, queryTerms } from '../../../shared/text/excerpt.js';
import { searchFilled } from '../../search-pages.js';
import { type Command, UsageError } from '../context.js';
import { parseSearchArgs, searchPage, searchParams } from '../search-page.js';

/** Characters of each message `--context` prints: enough to read, short enough to scan. */
const CONTEXT_CHARS = 600;

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
  const args = parseSearchArgs(ctx.args);
  if (typeof args === 'string') throw new UsageError(args);
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
    // Run from a Bash call of a session, its own turn (this very command) is no hit (issue 28).
    const asking = askingSessionOf(ctx.env);
    // A page its time budget cut is followed (client/search-pages.ts): what is there is found.
    const answer = await searchFilled((params) => client.searchQuery(params), searchParams(args, asking));
    if (ctx.json) ctx.out.out(JSON.stringify(answer));
    else
      for (const line of searchPage(
        parseAnswer(searchQueryResultSchema, answer, 'search.query'),
        ctx.args,
        args.cursor !== undefined,
        ctx.out,
      ))
        ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
