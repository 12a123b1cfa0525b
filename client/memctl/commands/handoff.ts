/**
 * `memctl handoff [SESSION] [--cwd DIR] [--json]`: a handoff on demand. Without SESSION, the most
 * recent session of the current directory; the file goes to the session's cwd unless --cwd says.
 */
import { join, resolve } from 'node:path';
import type { HandoffResult } from '../../../shared/protocol/handoff.js';
import { type Command, UsageError } from '../context.js';
import { writeHandoffFile } from '../handoff-file.js';
import type { Output } from '../output.js';

function parseArgs(args: string[]): { sessionId: string | undefined; cwd: string | undefined } {
  let cwd: string | undefined;
  const positional: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--cwd') {
      const value = args[++index];
      if (value === undefined) throw new UsageError('--cwd takes a directory');
      cwd = resolve(value);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length > 1) throw new UsageError('handoff takes at most one SESSION');
  return { sessionId: positional[0], cwd };
}

function render(result: HandoffResult, out: Output): string[] {
  const kind = result.partial
    ? out.bold('partial handoff (HANDOFF_AUTO_PARTIAL)')
    : `handoff by the ${result.summarizer ?? 'offline'} summarizer`;
  const lines = [
    `${kind} of ${result.sessionId ?? 'an unindexed session'}`,
    `  file      ${result.path}${result.gitignoreUpdated ? ' (added to .gitignore)' : ''}`,
  ];
  const { facts } = result;
  const changed = facts.filesTouched.filter((file) => file.status !== 'read').length;
  // git's paths are uncommitted ones, whoever changed them; the session's changes are counted apart.
  const git = facts.git === null ? '' : `; git status: ${facts.git.porcelain.length} paths`;
  lines.push(`  files     ${facts.filesTouched.length} touched, ${changed} changed in this session${git}`);
  lines.push(`  commands  ${facts.commands.length} run, ${facts.failing.length} failing`);
  if (result.pinned !== '') lines.push('', ...result.pinned.split('\n'));
  return lines;
}

/** The result once the file is written here (a memd older than issue 29 has written it itself). */
function writtenHere(cwd: string, made: HandoffResult): HandoffResult {
  if (made.written !== false) return made;
  const written = writeHandoffFile(cwd, made.text);
  const skipped =
    written.gitignoreSkipped === null
      ? made.skipped
      : [...made.skipped, { path: join(cwd, '.gitignore'), reason: written.gitignoreSkipped }];
  return { ...made, written: true, gitignoreUpdated: written.gitignoreUpdated, skipped };
}

export const handoff: Command = async (ctx) => {
  const args = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    let sessionId = args.sessionId;
    let cwd = args.cwd;
    if (sessionId === undefined) {
      const here = process.cwd();
      const { sessions } = await client.sessionsList({ project: here, limit: 1 });
      if (sessions[0] === undefined)
        throw new UsageError(`no session of ${here} is known to memd; name one (memctl sessions lists them)`);
      sessionId = sessions[0].sessionId;
      cwd ??= here;
    }
    cwd ??= (await client.sessionsGet({ sessionId })).cwd ?? undefined;
    if (cwd === undefined) throw new UsageError(`the session's cwd is not known; give one with --cwd`);
    // Written here, as the user: memd's service may not write in the project (issue 29).
    const result = writtenHere(cwd, await client.handoffGenerate({ sessionId, cwd, writeFile: false }));
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of render(result, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
