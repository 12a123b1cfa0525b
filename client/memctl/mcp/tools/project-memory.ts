/**
 * `project_memory`: the project's memory files (memdir.list / memdir.read / memdir.write). A write
 * never replaces a memory the model did not read: without an etag it must be new. The name's
 * safety is the daemon's to judge (two passes, PathRejected with the reason), not this module's.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type {
  MemdirListResult,
  MemdirReadResult,
  MemdirWriteResult,
  MemoryFileInfo,
} from '../../../../shared/protocol/memdir.js';
import { joinWithinBudget, OUTPUT_BUDGET_CHARS, oneLine, pageOf } from '../budget.js';
import { ToolInputError } from '../errors.js';
import { count, formatTime, list, plural, quoted, respond, type ToolContext } from './context.js';

/**
 * A memory is read into future sessions' context: one that does not fit a single read (the output
 * budget) belongs in a file of the project instead.
 */
export const MEMORY_CONTENT_MAX_CHARS = OUTPUT_BUDGET_CHARS - 2_000;
const NAME_CHARS = 200;
const DESCRIPTION_CHARS = 1_000;
const PATH_CHARS = 600;
const ETAG_CHARS = 200;
/** Files listed that are not memories: a few say enough about what is wrong. */
const SKIPPED_SHOWN = 10;

const ACTIONS = ['list', 'read', 'write'] as const;
const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;

/** Read in every request (listing.ts): the action's enum and the tool's description say what each field is for. */
const input = {
  action: z.enum(ACTIONS),
  name: z.string().min(1).max(NAME_CHARS).optional(),
  type: z.enum(MEMORY_TYPES).optional(),
  description: z.string().max(DESCRIPTION_CHARS).optional(),
  content: z.string().min(1).max(MEMORY_CONTENT_MAX_CHARS).optional(),
  etag: z.string().min(1).max(ETAG_CHARS).optional(),
  scope: z.enum(['private', 'team']).optional(),
  offset: z.number().int().min(0).max(10_000_000).optional(),
};

function renderMemoryLine(memory: MemoryFileInfo): string {
  const description = oneLine(memory.description, 300);
  return `- ${oneLine(memory.name, NAME_CHARS)} · ${oneLine(memory.type, 20)} · updated ${formatTime(memory.updated)} · etag ${oneLine(memory.etag, ETAG_CHARS)}${description ? `\n  ${description}` : ''}`;
}

function renderList(result: MemdirListResult): string {
  const memories = list<MemoryFileInfo>(result.memories);
  const skipped = list<{ path: unknown; reason: unknown }>(result.skipped);
  const where = `project ${oneLine(result.project, PATH_CHARS)}, ${oneLine(result.scope, 10)} scope (${oneLine(result.dir, PATH_CHARS)})`;
  const index = result.index
    ? `MEMORY.md (the index): ${plural(count(result.index.lines), 'line')}${result.index.inStep === false ? ', edited by hand: the next write rebuilds it' : ''}${count(result.index.dropped) > 0 ? `, ${count(result.index.dropped)} oldest left out of it` : ''}.`
    : '';
  const notMemories =
    skipped.length > 0
      ? `\nFiles that are not memories: ${skipped
          .slice(0, SKIPPED_SHOWN)
          .map((file) => `${oneLine(file.path, PATH_CHARS)} (${oneLine(file.reason, 200)})`)
          .join('; ')}${skipped.length > SKIPPED_SHOWN ? `; and ${skipped.length - SKIPPED_SHOWN} more` : ''}.`
      : '';
  if (memories.length === 0)
    return `No memories in ${where}.${notMemories}\nproject_memory with action write creates one.`;
  return joinWithinBudget(
    `${plural(memories.length, 'memory', 'memories')} in ${where}, newest first:`,
    memories.map(renderMemoryLine),
    `${index}${notMemories}\nproject_memory with action read and a name gives a memory's body.`,
    (left) => `(${plural(left, 'older memory', 'older memories')} left out to fit the output budget.)`,
  );
}

function renderRead(result: MemdirReadResult, offset: number): string {
  const description = oneLine(result.description, 300);
  const head = `Memory ${quoted(result.name, NAME_CHARS)} · ${oneLine(result.type, 20)} · ${oneLine(result.scope, 10)} · updated ${formatTime(result.updated)} · etag ${oneLine(result.etag, ETAG_CHARS)}${description ? `\n${description}` : ''}`;
  return `${head}\n\n${pageOf(typeof result.content === 'string' ? result.content : '', offset).text}`;
}

function renderWrite(result: MemdirWriteResult): string {
  const index = result.index ? ` MEMORY.md now has ${plural(count(result.index.lines), 'line')}.` : '';
  return `${result.isNew ? 'Created' : 'Replaced'} memory ${quoted(result.name, NAME_CHARS)} (${oneLine(result.type, 20)}, ${oneLine(result.scope, 10)} scope) at ${oneLine(result.path, PATH_CHARS)}; its etag is now ${oneLine(result.etag, ETAG_CHARS)}.${index}`;
}

function required<T>(value: T | undefined, field: string, action: string): T {
  if (value === undefined) throw new ToolInputError(`project_memory with action ${action} needs ${field}.`);
  return value;
}

export function registerProjectMemoryTool(server: McpServer, context: ToolContext): Record<string, RegisteredTool> {
  const memory = server.registerTool(
    'project_memory',
    {
      title: "The project's memory files",
      description: 'Notes for later sessions: rules, decisions, gotchas. Replacing one needs its etag.',
      inputSchema: input,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => {
      // The server's own project: another project's memories are its sessions' to keep.
      const project = context.cwd;
      const scope = args.scope === undefined ? {} : { scope: args.scope };
      return respond(
        async () => {
          switch (args.action) {
            case 'list':
              return renderList(await context.memd.memdirList({ project, ...scope }));
            case 'read':
              return renderRead(
                await context.memd.memdirRead({ project, ...scope, name: required(args.name, 'name', 'read') }),
                args.offset ?? 0,
              );
            case 'write':
              return renderWrite(
                await context.memd.memdirWrite({
                  project,
                  ...scope,
                  name: required(args.name, 'name', 'write'),
                  type: required(args.type, 'type', 'write'),
                  content: required(args.content, 'content', 'write'),
                  ...(args.description === undefined ? {} : { description: args.description }),
                  // Without an etag the memory must not exist yet: a model never overwrites what it has not read.
                  ifMatch: args.etag ?? null,
                }),
              );
          }
        },
        {
          notFound:
            args.action === 'read'
              ? 'project_memory with action list gives the names of the memories that exist.'
              : 'memd knows a project once Claude Code has run a session in it; list_sessions with project: "all" shows the projects memd knows.',
          conflict:
            args.etag === undefined
              ? 'To replace it, read it first (action read) and write again with its etag, or choose another name.'
              : undefined,
        },
      );
    },
  );
  return { project_memory: memory };
}
