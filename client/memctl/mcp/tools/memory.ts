/** `session_memory` (memory.summary: a session's summary.md) and `handoff` (handoff.read: the project's docs/handoff-context.md), paged by offset. */
import { isAbsolute } from 'node:path';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { oneLine, quotedPageOf } from '../budget.js';
import { formatTime, respond, type ToolContext } from './context.js';

const ID_CHARS = 100;
const PATH_CHARS = 600;
/** A bound on what a model may pass: a summary is at most 12,000 tokens (DESIGN.md §5), a handoff a few pages. */
const MAX_OFFSET = 10_000_000;

/** A long text comes in pages, the end of each saying the offset of the next: the model learns it there. */
const offsetInput = z.number().int().min(0).max(MAX_OFFSET).optional();

const summaryInput = {
  session: z.string().min(4).max(200),
  offset: offsetInput,
};

const handoffInput = {
  cwd: z.string().min(1).max(4_096).refine(isAbsolute, 'must be an absolute path').optional(),
  offset: offsetInput,
};

export function registerMemoryTools(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const memory = server.registerTool(
    'session_memory',
    {
      title: "Read a session's memory (summary.md)",
      description: "A session's summary.md: task, state, files, errors, next steps.",
      inputSchema: summaryInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          const result = await context.memd.memorySummary({ sessionId: args.session });
          const session = oneLine(result.sessionId, ID_CHARS);
          if (typeof result.text !== 'string') {
            return `Session ${session} has no session memory yet (memd writes summary.md once a session passes about 10,000 tokens). To read what it did, use search_sessions with session: ${JSON.stringify(session)}.`;
          }
          const page = quotedPageOf(
            result.text,
            args.offset ?? 0,
            `the session memory of ${session}, summarized from its transcript`,
          );
          const covers =
            result.lastUuid === null
              ? ''
              : `, covering the conversation up to uuid ${oneLine(result.lastUuid, ID_CHARS)}`;
          const by = result.summarizer === null ? '' : ` by the ${oneLine(result.summarizer, 40)} summarizer`;
          return `Session memory of ${session} (extracted ${formatTime(result.extractedAt)}${by}${covers}):\n\n${page}`;
        },
        { notFound: 'list_sessions (project: "all" for every project) or search_sessions give the ids memd knows.' },
      ),
  );

  const handoff = server.registerTool(
    'handoff',
    {
      title: "Read the project's handoff",
      description: "memd's handoff of the project, written before a compaction.",
      inputSchema: handoffInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(async () => {
        const result = await context.memd.handoffRead({ cwd: args.cwd ?? context.cwd });
        const path = oneLine(result.path, PATH_CHARS);
        if (typeof result.refused === 'string')
          return `memd did not read the handoff at ${path}: ${oneLine(result.refused, 400)}.`;
        // Issue 27: a file memd did not write, or that changed since, is no handoff (a cloned repository can ship one).
        if (typeof result.untrusted === 'string') {
          return `There is no handoff of memd's for ${oneLine(result.cwd, PATH_CHARS)}: the file at ${path} is not used (${oneLine(result.untrusted, 600)}). memd gives only a handoff it wrote itself, unchanged since; memctl handoff writes one. session_memory and search_sessions read what past sessions did.`;
        }
        if (typeof result.text !== 'string') {
          return `There is no handoff for ${oneLine(result.cwd, PATH_CHARS)} (nothing at ${path}). memd writes one before a compaction (with memctl install-hooks) or when the user runs memctl handoff. session_memory and search_sessions read what past sessions did.`;
        }
        const partial = result.partial
          ? " It is partial: the narrative could not be made, so it holds the facts and the transcript's tail."
          : '';
        const session =
          typeof result.sessionId === 'string'
            ? `session ${oneLine(result.sessionId, ID_CHARS)}`
            : 'a session memd did not know';
        return `Handoff for ${oneLine(result.cwd, PATH_CHARS)} (${path}), written by memd for ${session}.${partial}\n\n${quotedPageOf(result.text, args.offset ?? 0, "memd's handoff, written from a session's transcript")}`;
      }),
  );
  return { session_memory: memory, handoff };
}
