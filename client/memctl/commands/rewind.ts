/**
 * `memctl rewind list SESSION`, `memctl rewind restore SESSION MESSAGE_ID [--dry-run]` and
 * `memctl rewind undo UNDO_ID [--dry-run]`, each with `--json` (the result unchanged): Claude
 * Code's file checkpoints of a session, putting one back, and taking that back.
 */
import type {
  Checkpoint,
  RewindFileChange,
  RewindListResult,
  RewindRestoreResult,
  RewindUndoResult,
} from '../../../shared/protocol/rewind.js';
import type { Client } from '../../index.js';
import { type Command, UsageError } from '../context.js';
import { formatBytes, type Output } from '../output.js';

const USAGE =
  'rewind takes list SESSION, restore SESSION MESSAGE_ID [--dry-run] [--allow-outside-project [--yes]], or undo UNDO_ID [--dry-run]';

interface Invocation {
  action: 'list' | 'restore' | 'undo';
  positional: string[];
  dryRun: boolean;
  /** Files outside the session's project root too: asked for on a terminal, or given with --yes. */
  allowOutside: boolean;
  yes: boolean;
}

function parseArgs(args: string[]): Invocation {
  const [action, ...rest] = args;
  let dryRun = false;
  let allowOutside = false;
  let yes = false;
  const positional: string[] = [];
  for (const arg of rest) {
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--allow-outside-project' && action === 'restore') allowOutside = true;
    else if (arg === '--yes' && action === 'restore') yes = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const wanted = action === 'list' ? 1 : action === 'restore' ? 2 : action === 'undo' ? 1 : -1;
  if (wanted < 0 || positional.length !== wanted || (action === 'list' && dryRun)) throw new UsageError(USAGE);
  return { action: action as Invocation['action'], positional, dryRun, allowOutside, yes };
}

/** ISO as recorded (UTC), readable: `2026-12-02 10:28:36Z`. */
function when(timestamp: string): string {
  return timestamp === '' ? 'unknown time' : timestamp.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function renderCheckpoint(checkpoint: Checkpoint, number: number, out: Output): string[] {
  const lines = [`  ${out.bold(String(number))}  ${when(checkpoint.timestamp)}  ${checkpoint.messageId}`];
  lines.push(
    `     ${checkpoint.prompt === null ? out.dim('(prompt not in the transcript)') : JSON.stringify(checkpoint.prompt)}`,
  );
  const width = Math.max(0, ...checkpoint.files.map((file) => file.path.length));
  for (const file of checkpoint.files) {
    const backup = file.backupFileName === null ? 'did not exist' : `v${file.version} ${file.backupFileName}`;
    const missing = file.backupPresent ? '' : `  ${out.red('backup missing: cannot be restored')}`;
    lines.push(`     ${file.path.padEnd(width)}  ${backup}${missing}`);
  }
  if (checkpoint.files.length === 0) lines.push(`     ${out.dim('no files tracked yet')}`);
  // `?? []`: a memd before issue 31 does not say.
  const gone = checkpoint.goneFiles ?? [];
  if (gone.length > 0) {
    lines.push(
      `     ${out.red(`gone: Claude Code pruned the backup${gone.length === 1 ? '' : 's'} of ${gone.join(', ')}`)}; a restore here leaves ${gone.length === 1 ? 'it' : 'them'} as ${gone.length === 1 ? 'it is' : 'they are'}`,
    );
  }
  return lines;
}

export function renderList(result: RewindListResult, out: Output): string[] {
  if (result.checkpoints.length === 0) {
    return [
      `session ${result.sessionId} has no file checkpoints (Claude Code writes them when file checkpointing is on)`,
    ];
  }
  const lines = [
    out.bold(`file checkpoints of ${result.sessionId}`) + (result.cwd === null ? '' : ` in ${result.cwd}`),
  ];
  result.checkpoints.forEach((checkpoint, index) => lines.push(...renderCheckpoint(checkpoint, index + 1, out)));
  const gone = result.checkpoints.flatMap((checkpoint, index) =>
    (checkpoint.goneFiles ?? []).length > 0 ? [String(index + 1)] : [],
  );
  if (gone.length > 0) {
    lines.push(
      '',
      out.red(
        `checkpoint${gone.length === 1 ? '' : 's'} ${gone.join(', ')} can no longer be restored whole: their backups were pruned`,
      ),
    );
  }
  lines.push('', `files as they were before a prompt: memctl rewind restore ${result.sessionId} MESSAGE_ID --dry-run`);
  return lines;
}

const size = (bytes: number | null): string => (bytes === null ? 'absent' : formatBytes(bytes));

function renderChanges(files: readonly RewindFileChange[], out: Output): string[] {
  const width = Math.max(0, ...files.map((file) => file.path.length));
  return files.map((file) => {
    const path = file.path.padEnd(width);
    if (file.action === 'unchanged') return `  ${out.dim('unchanged'.padEnd(14))} ${path}`;
    if (file.action === 'missing-backup')
      return `  ${out.red('missing-backup'.padEnd(14))} ${path}  backup gone; left as it is`;
    const label = file.action === 'write' ? out.yellow('write'.padEnd(14)) : out.red('delete'.padEnd(14));
    return `  ${label} ${path}  ${size(file.bytesBefore)} → ${size(file.bytesAfter)}`;
  });
}

function changedCount(files: readonly RewindFileChange[]): number {
  return files.filter((file) => file.action === 'write' || file.action === 'delete').length;
}

export function renderRestore(result: RewindRestoreResult, out: Output): string[] {
  const changed = changedCount(result.files);
  const lines = [
    out.bold(`rewind of ${result.sessionId} to before ${result.messageId}`) +
      (result.dryRun ? ' (dry run: nothing was changed)' : ''),
    ...renderChanges(result.files, out),
  ];
  if (result.dryRun) {
    lines.push(
      changed === 0
        ? 'nothing to change'
        : `${changed} file${changed === 1 ? '' : 's'} would change; run it without --dry-run to restore`,
    );
  } else if (result.undoId === null) {
    lines.push('nothing to change: the files already are as they were then');
  } else {
    lines.push(`${changed} file${changed === 1 ? '' : 's'} changed; undo with: memctl rewind undo ${result.undoId}`);
  }
  return lines;
}

export function renderUndo(result: RewindUndoResult, out: Output): string[] {
  const changed = changedCount(result.files);
  const lines = [
    out.bold(`undo ${result.undoId}`) + (result.dryRun ? ' (dry run: nothing was changed)' : ''),
    ...renderChanges(result.files, out),
  ];
  if (result.dryRun)
    lines.push(`${changed} file${changed === 1 ? '' : 's'} would change back; run it without --dry-run to undo`);
  else lines.push(`${changed} file${changed === 1 ? '' : 's'} put back; the undo point is removed`);
  return lines;
}

/** The method's result (what --json prints) and its readable lines. */
/**
 * A restore outside the project writes wherever the transcript says (~/.ssh, dotfiles): the user
 * confirms it on a terminal, or says --yes; otherwise it is not asked for.
 */
async function confirmOutside(yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY)
    throw new UsageError(
      '--allow-outside-project writes files outside the project; add --yes to confirm without a terminal',
    );
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(
      'Restore files outside the project too (they may be anywhere on disk)? Type yes to confirm: ',
    );
    if (answer.trim().toLowerCase() !== 'yes') throw new UsageError('not confirmed; nothing was restored');
    return true;
  } finally {
    prompt.close();
  }
}

async function call(
  client: Client,
  invocation: Invocation,
  out: Output,
): Promise<{ result: unknown; lines: string[] }> {
  const { action, positional, dryRun } = invocation;
  const [first, second] = positional as [string, string];
  if (action === 'list') {
    const result = await client.rewindList({ sessionId: first });
    return { result, lines: renderList(result, out) };
  }
  if (action === 'restore') {
    const allowOutsideProject = invocation.allowOutside && (dryRun || (await confirmOutside(invocation.yes)));
    const result = await client.rewindRestore({
      sessionId: first,
      messageId: second,
      dryRun,
      ...(allowOutsideProject ? { allowOutsideProject } : {}),
    });
    return { result, lines: renderRestore(result, out) };
  }
  const result = await client.rewindUndo({ undoId: first, dryRun });
  return { result, lines: renderUndo(result, out) };
}

export const rewind: Command = async (ctx) => {
  const invocation = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    const { result, lines } = await call(client, invocation, ctx.out);
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of lines) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
