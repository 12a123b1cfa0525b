/**
 * `project_memory`: the project's memory files (memdir.list / memdir.read / memdir.write). A write
 * never replaces a memory the model did not read: without an etag it must be new. The name's
 * safety is the daemon's to judge (two passes, PathRejected with the reason), not this module's.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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

const input = {
  action: z
    .enum(ACTIONS)
    .describe(
      "list: every memory (name, type, description, updated, etag). read: one memory's body (needs name). write: create or replace one memory (needs name, type, content).",
    ),
  project: z
    .string()
    .min(1)
    .max(4_096)
    .optional()
    .describe('The project: its absolute directory or folder name (-home-user-src-app). Omit for the current project.'),
  scope: z
    .enum(['private', 'team'])
    .optional()
    .describe(
      "private (default): this user's memories of the project. team: the memories shared with the team (memory/team/).",
    ),
  name: z
    .string()
    .min(1)
    .max(NAME_CHARS)
    .optional()
    .describe(
      "The memory's name: a relative path without .md, of letters, digits, - and _, nested with / (testing/flaky-tests).",
    ),
  type: z
    .enum(MEMORY_TYPES)
    .optional()
    .describe(
      'For write. user: about the user (role, preferences); feedback: how the user wants the work done (rules, corrections); project: facts about this project (decisions, architecture, gotchas); reference: where to find things outside the code.',
    ),
  description: z
    .string()
    .max(DESCRIPTION_CHARS)
    .optional()
    .describe('For write: one line saying what the memory holds; it goes into the MEMORY.md index.'),
  content: z
    .string()
    .min(1)
    .max(MEMORY_CONTENT_MAX_CHARS)
    .optional()
    .describe(
      `For write: the memory's markdown body (at most ${MEMORY_CONTENT_MAX_CHARS.toLocaleString('en-US')} characters).`,
    ),
  etag: z
    .string()
    .min(1)
    .max(ETAG_CHARS)
    .optional()
    .describe(
      'For write: the etag list or read gave. Needed to replace an existing memory; the write is refused if the memory changed since. Omit to create a new memory.',
    ),
  offset: z
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .optional()
    .describe('For read: where to start, in characters, when the answer said the body continues.'),
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

export function registerProjectMemoryTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'project_memory',
    {
      title: "The project's memory files",
      description: `The project's persistent memories: one markdown file per memory under Claude Code's projects/<project>/memory/, each with a type and a one-line description, indexed by MEMORY.md, which memd keeps in step. They outlast sessions and compactions. list them, read one, or write one: save what a later session must know and cannot see in the code (the user's rules and corrections, decisions and why, gotchas). Keep one topic per memory. To change a memory, read it first and write with its etag (without an etag a write only creates; a changed memory is never overwritten). memd refuses names that could leave the memory dir and says why. Default: the current project (${context.cwd}).`,
      inputSchema: input,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => {
      const project = args.project ?? context.cwd;
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
}
