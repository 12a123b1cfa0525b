/**
 * `memctl archive list|restore|verify|prune|deleted|forget`: memd's copy of every transcript (issue 18),
 * and the transcripts Claude Code deleted with what memd holds of them (`deleted`, issue 31).
 * `restore SESSION [--to DIR]` puts a session's files back where Claude Code keeps them, so that
 * `claude --resume SESSION` works again; `forget SESSION [--delete-transcripts]` removes a session
 * from everywhere memd keeps it.
 */
import type { ArchiveListResult, ArchiveVerifyResult } from '../../../shared/protocol/archive.js';
import { type Command, type CommandContext, UsageError } from '../context.js';
import { formatBytes, type Output } from '../output.js';
import { renderArchiveStatus } from '../views/archive-status.js';
import { renderDeleted } from '../views/deletions.js';

/** memctl's one byte formatter (B, KiB, MiB), so that `memctl status` has one set of units. */
const size = formatBytes;

function renderList(result: ArchiveListResult, out: Output): string[] {
  const lines = [renderArchiveStatus(result.status, out)];
  for (const session of result.sessions) {
    const where = session.pruned
      ? out.dim(' (pruned)')
      : session.transcriptGone
        ? out.yellow(' (only in the archive)')
        : '';
    lines.push(
      `${session.sessionId}  ${session.projectName ?? session.project}  ${session.title ?? out.dim('(untitled)')}  ${session.files} files  ${size(session.archiveBytes)}  ${session.archivedAt.slice(0, 16).replace('T', ' ')}${where}`,
    );
  }
  if (result.nextCursor !== null)
    lines.push(out.dim(`more: memctl call archive.list '${JSON.stringify({ cursor: result.nextCursor })}'`));
  return lines;
}

function renderVerify(result: ArchiveVerifyResult, out: Output): string[] {
  const lines = result.problems.map(
    (problem) => `${out.red('bad')}  ${problem.path}: ${problem.problem} (${problem.archivePath})`,
  );
  lines.push(
    `${result.ok} of ${result.checked} archived files verified${result.problems.length > 0 ? `, ${result.problems.length} with problems` : ''}`,
  );
  return lines;
}

/** `--flag VALUE` and bare flags out of the arguments; the rest stays positional. */
function options(args: readonly string[], valued: readonly string[], bare: readonly string[]) {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (valued.includes(arg)) {
      const value = args[++at];
      if (value === undefined) throw new UsageError(`${arg} takes a value`);
      values.set(arg, value);
    } else if (bare.includes(arg)) flags.add(arg);
    else if (arg.startsWith('--')) throw new UsageError(`archive: unknown option ${arg}`);
    else positional.push(arg);
  }
  return { values, flags, positional };
}

async function withClient<T>(
  ctx: CommandContext,
  run: (client: ReturnType<CommandContext['client']>) => Promise<T>,
): Promise<T> {
  const client = ctx.client();
  try {
    return await run(client);
  } finally {
    client.close();
  }
}

export const archive: Command = async (ctx) => {
  const [action, ...rest] = ctx.args;
  const print = (result: unknown, lines: () => string[]) => {
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of lines()) ctx.out.out(line);
  };
  switch (action) {
    case 'list': {
      const { values, positional } = options(rest, ['--limit'], []);
      if (positional.length > 1) throw new UsageError('archive list takes at most one SESSION');
      const limit = values.has('--limit') ? Number(values.get('--limit')) : undefined;
      if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
        throw new UsageError('--limit takes a positive number');
      const result = await withClient(ctx, (client) =>
        client.archiveList({ ...(positional[0] ? { sessionId: positional[0] } : {}), ...(limit ? { limit } : {}) }),
      );
      print(result, () => renderList(result, ctx.out));
      return 0;
    }
    case 'restore': {
      const { values, positional } = options(rest, ['--to', '--device'], []);
      const [sessionId] = positional;
      if (sessionId === undefined || positional.length > 1) throw new UsageError('archive restore takes one SESSION');
      const to = values.get('--to');
      const device = values.get('--device');
      const result = await withClient(ctx, (client) =>
        client.archiveRestore({
          sessionId,
          ...(to === undefined ? {} : { to }),
          ...(device === undefined ? {} : { device }),
        }),
      );
      print(result, () => [
        ...result.files.map(
          (file) => `${file.action === 'restored' ? 'restored' : 'present '}  ${file.path}  ${size(file.bytes)}`,
        ),
        to === undefined ? `claude --resume ${result.sessionId} works again` : `restored under ${to}`,
      ]);
      return 0;
    }
    case 'verify': {
      const { positional } = options(rest, [], []);
      if (positional.length > 1) throw new UsageError('archive verify takes at most one SESSION');
      const result = await withClient(ctx, (client) =>
        client.archiveVerify(positional[0] ? { sessionId: positional[0] } : {}),
      );
      print(result, () => renderVerify(result, ctx.out));
      return result.problems.length === 0 ? 0 : 1;
    }
    case 'prune': {
      const { values, flags, positional } = options(rest, ['--older-than'], ['--dry-run']);
      const olderThan = values.get('--older-than');
      if (olderThan === undefined || positional.length > 0)
        throw new UsageError('archive prune takes --older-than SPAN (180d, 26w) [--dry-run]');
      const dryRun = flags.has('--dry-run');
      const result = await withClient(ctx, (client) => client.archivePrune({ olderThan, dryRun }));
      print(result, () => [
        `${dryRun ? 'would prune' : 'pruned'} ${result.sessions.length} sessions, ${size(result.freedBytes)}${dryRun ? ' (dry run: nothing removed)' : ''}`,
      ]);
      return 0;
    }
    case 'forget': {
      const { flags, positional } = options(rest, [], ['--delete-transcripts']);
      const [sessionId] = positional;
      if (sessionId === undefined || positional.length > 1)
        throw new UsageError('archive forget takes one SESSION [--delete-transcripts]');
      const result = await withClient(ctx, (client) =>
        client.archiveForget({ sessionId, deleteTranscripts: flags.has('--delete-transcripts') }),
      );
      const { removed } = result;
      print(result, () => [
        `forgot ${result.sessionId}: ${removed.entries} index rows, ${removed.searchTexts} search texts, ${removed.archivedFiles} archived files, ${removed.sessionMemory} session-memory files, ${removed.transcripts} of Claude Code's files, ${removed.logLines} log lines`,
      ]);
      return 0;
    }
    case 'deleted': {
      const { values, positional } = options(rest, ['--since', '--limit'], []);
      if (positional.length > 0) throw new UsageError('archive deleted takes [--since SPAN|TIME] [--limit N]');
      const since = values.get('--since');
      const limit = values.has('--limit') ? Number(values.get('--limit')) : undefined;
      if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
        throw new UsageError('--limit takes a positive number');
      const result = await withClient(ctx, (client) =>
        client.archiveDeleted({
          ...(since === undefined ? {} : { since }),
          ...(limit === undefined ? {} : { limit }),
        }),
      );
      print(result, () => renderDeleted(result, ctx.out, Date.now()));
      return 0;
    }
    default:
      throw new UsageError('archive takes list, restore, verify, prune, deleted or forget');
  }
};
