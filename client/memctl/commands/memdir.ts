/**
 * `memctl memdir list|read|write|delete PROJECT ...`: project and team memory. PROJECT is a
 * project folder name, an absolute path, or `.` for the current directory. `conflicts [PROJECT]`
 * and `resolve PROJECT NAME --keep local|theirs`: memories changed on two machines (issue 35).
 */
import { readFileSync } from 'node:fs';
import { projectDirNameOf } from '../../../shared/paths.js';
import type { MemdirKeep, MemdirListResult, MemoryScope, MemoryType } from '../../../shared/protocol/memdir.js';
import { type Command, type CommandContext, UsageError } from '../context.js';
import type { Output } from '../output.js';
import { renderConflicts } from '../views/memdir-conflicts.js';

const TYPES: readonly MemoryType[] = ['user', 'feedback', 'project', 'reference'];
const ACTIONS = ['list', 'read', 'write', 'delete', 'conflicts', 'resolve'] as const;
const KEEPS: readonly MemdirKeep[] = ['local', 'theirs'];
type Action = (typeof ACTIONS)[number];

interface Parsed {
  action: Action;
  project: string;
  name: string | undefined;
  scope: MemoryScope;
  type: MemoryType | undefined;
  description: string | undefined;
  file: string | undefined;
  ifMatch: string | null | undefined;
  keep: MemdirKeep | undefined;
  device: string | undefined;
}

function parseArgs(args: string[]): Parsed {
  const positional: string[] = [];
  let scope: MemoryScope = 'private';
  let type: MemoryType | undefined;
  let description: string | undefined;
  let file: string | undefined;
  let ifMatch: string | null | undefined;
  let keep: MemdirKeep | undefined;
  let device: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const value = () => {
      const next = args[++index];
      if (next === undefined) throw new UsageError(`${arg} takes a value`);
      return next;
    };
    if (arg === '--team') scope = 'team';
    else if (arg === '--type') {
      const given = value();
      if (!TYPES.includes(given as MemoryType)) throw new UsageError(`--type takes one of ${TYPES.join(', ')}`);
      type = given as MemoryType;
    } else if (arg === '--description') description = value();
    else if (arg === '--file') file = value();
    else if (arg === '--if-match') ifMatch = value();
    else if (arg === '--new') ifMatch = null;
    else if (arg === '--keep') {
      const given = value();
      if (!KEEPS.includes(given as MemdirKeep)) throw new UsageError('--keep takes local or theirs');
      keep = given as MemdirKeep;
    } else if (arg === '--device') device = value();
    // Project folder names start with a single dash (-home-user-src-app): only -- marks an option.
    else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const [action, project, name, ...rest] = positional;
  if (!ACTIONS.includes(action as Action))
    throw new UsageError('memdir takes list, read, write, delete, conflicts or resolve');
  // conflicts lists every project's unless one is named.
  if (action === 'conflicts' && name !== undefined) throw new UsageError('memdir conflicts takes at most a PROJECT');
  if (action === 'resolve' && keep === undefined) throw new UsageError('memdir resolve needs --keep local|theirs');
  if (project === undefined && action !== 'conflicts')
    throw new UsageError(`memdir ${action} takes a PROJECT (a project folder name, a path, or .)`);
  const takesName = action !== 'list' && action !== 'conflicts';
  if (takesName ? name === undefined || rest.length > 0 : action === 'list' && name !== undefined) {
    throw new UsageError(
      action === 'list' ? 'memdir list takes only a PROJECT' : `memdir ${action} takes a PROJECT and one NAME`,
    );
  }
  if (action === 'write' && type === undefined) throw new UsageError(`memdir write needs --type (${TYPES.join(', ')})`);
  return {
    action: action as Action,
    // `.` is this folder's project, renamed when Claude Code's environment (its Bash tool) says so.
    project: project === '.' ? projectDirNameOf(process.cwd(), process.env) : (project ?? ''),
    name,
    scope,
    type,
    description,
    file,
    ifMatch,
    keep,
    device,
  };
}

function renderList(result: MemdirListResult, out: Output): string[] {
  const lines = [
    out.bold(`${result.scope} memory of ${result.project}`),
    `  dir    ${result.dir}`,
    `  index  ${result.index.path} (${result.index.lines} lines${result.index.dropped > 0 ? `, ${result.index.dropped} left out` : ''})`,
  ];
  if (result.memories.length === 0) lines.push('  no memories yet');
  for (const memory of result.memories) {
    lines.push(
      `  ${memory.updated.slice(0, 16).replace('T', ' ')}  ${memory.type.padEnd(9)} ${memory.name}${memory.description === '' ? '' : ` — ${memory.description}`}`,
    );
  }
  for (const skipped of result.skipped) lines.push(out.dim(`  skipped ${skipped.path}: ${skipped.reason}`));
  return lines;
}

/** `conflicts` and `resolve`: the sync of memory files across machines. */
async function syncAction(parsed: Parsed, ctx: CommandContext, client: ReturnType<CommandContext['client']>) {
  if (parsed.action === 'conflicts') {
    const result = await client.memdirConflicts(parsed.project === '' ? {} : { project: parsed.project });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of renderConflicts(result, ctx.out)) ctx.out.out(line);
    return 0;
  }
  const result = await client.memdirResolve({
    project: parsed.project,
    scope: parsed.scope,
    name: parsed.name as string,
    keep: parsed.keep as MemdirKeep,
    ...(parsed.device === undefined ? {} : { device: parsed.device }),
  });
  if (ctx.json) ctx.out.out(JSON.stringify(result));
  else
    ctx.out.out(
      `kept the ${result.kept === 'local' ? 'version here' : `version of ${result.device}`} of ${result.name} (${result.etag === null ? 'deleted' : `etag ${result.etag}`})${result.remaining > 0 ? `; ${result.remaining} more conflicts of it open` : ''}`,
    );
  return 0;
}

export const memdir: Command = async (ctx) => {
  const parsed = parseArgs(ctx.args);
  const base = { project: parsed.project, scope: parsed.scope };
  const client = ctx.client();
  try {
    if (parsed.action === 'conflicts' || parsed.action === 'resolve') return await syncAction(parsed, ctx, client);
    if (parsed.action === 'list') {
      const result = await client.memdirList(base);
      if (ctx.json) ctx.out.out(JSON.stringify(result));
      else for (const line of renderList(result, ctx.out)) ctx.out.out(line);
      return 0;
    }
    const name = parsed.name as string;
    if (parsed.action === 'read') {
      const result = await client.memdirRead({ ...base, name });
      // The body alone, as stored, so that it can be piped; --json has the metadata.
      if (ctx.json) ctx.out.out(JSON.stringify(result));
      else process.stdout.write(result.content);
      return 0;
    }
    if (parsed.action === 'write') {
      const content = readFileSync(parsed.file ?? 0, 'utf8');
      const result = await client.memdirWrite({
        ...base,
        name,
        type: parsed.type as MemoryType,
        content,
        ...(parsed.description === undefined ? {} : { description: parsed.description }),
        ...(parsed.ifMatch === undefined ? {} : { ifMatch: parsed.ifMatch }),
      });
      if (ctx.json) ctx.out.out(JSON.stringify(result));
      else
        ctx.out.out(
          `${result.isNew ? 'created' : 'updated'} ${result.path} (etag ${result.etag}); index ${result.index.lines} lines`,
        );
      return 0;
    }
    const result = await client.memdirDelete({
      ...base,
      name,
      ...(typeof parsed.ifMatch === 'string' ? { ifMatch: parsed.ifMatch } : {}),
    });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else
      ctx.out.out(
        result.deleted ? `deleted ${name}; index ${result.index.lines} lines` : `no memory ${name}: nothing deleted`,
      );
    return 0;
  } finally {
    client.close();
  }
};
