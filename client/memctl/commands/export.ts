/**
 * `memctl export SESSION [--format md|html|jsonl] [--out FILE] [--no-redact] [--json]`: a session as
 * markdown (the default), a self-contained HTML report, or its transcript as Claude Code wrote it.
 * Reports are redacted of secrets unless `--no-redact` (issue 27); jsonl is the bytes as they are. The
 * pages of export.session are streamed to stdout as they come, or into FILE, which appears
 * atomically once the last page is written.
 */
import { resolve } from 'node:path';
import { EXPORT_FORMATS, type ExportFormat, type ExportPage } from '../../../shared/protocol/export.js';
import type { Client } from '../../index.js';
import { type AtomicFile, createAtomicFile } from '../atomic-file.js';
import { type Command, EXIT_ERROR, UsageError } from '../context.js';
import { formatBytes } from '../output.js';

/** A transcript is its user's alone (like the handoff): owner-only, narrowed further by a stricter umask. */
const EXPORT_FILE_MODE = 0o600;
/** A report of a large session takes the daemon a few seconds to render: far above the 3 s default. */
const EXPORT_TIMEOUT_MS = 120_000;

interface ExportArgs {
  sessionId: string;
  format: ExportFormat;
  out: string | null;
  /** md/html: secrets redacted (the default). */
  redact: boolean;
}

function parseArgs(args: string[]): ExportArgs {
  let format: ExportFormat = 'md';
  let out: string | null = null;
  let redact = true;
  const positional: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--format') {
      const value = args[++index];
      if (value === undefined || !(EXPORT_FORMATS as readonly string[]).includes(value))
        throw new UsageError(`--format takes one of ${EXPORT_FORMATS.join(', ')}`);
      format = value as ExportFormat;
    } else if (arg === '--out' || arg === '-o') {
      const value = args[++index];
      if (value === undefined || value === '') throw new UsageError(`${arg} takes a file name`);
      out = resolve(value);
    } else if (arg === '--no-redact') redact = false;
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError('export takes one SESSION');
  return { sessionId: positional[0] as string, format, out, redact };
}

const bytesOf = (page: ExportPage): Buffer => Buffer.from(page.content, page.encoding === 'base64' ? 'base64' : 'utf8');

/** The reader of stdout went away (`memctl export X | head`): no more pages are asked for. */
class ReaderGone extends Error {}

/** Writes to stdout, waiting for it to drain, so that a slow reader does not make memctl hold every page. */
function writeStdout(bytes: Buffer): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    process.stdout.write(bytes, (error) => {
      if (!error) resolvePromise();
      else reject((error as NodeJS.ErrnoException).code === 'EPIPE' ? new ReaderGone() : error);
    });
  });
}

/** Every page in order, handed to `sink`; the first page's sessionId is the full id. */
async function exportPages(
  client: Client,
  args: ExportArgs,
  sink: (bytes: Buffer) => void | Promise<void>,
): Promise<{ sessionId: string; bytes: number; pages: number }> {
  let cursor: string | undefined;
  let bytes = 0;
  let pages = 0;
  let sessionId = args.sessionId;
  do {
    const page = await client.exportSession({
      sessionId,
      format: args.format,
      ...(args.redact ? {} : { redact: false }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    // Later pages name the full id: a prefix that another session comes to share meanwhile is no matter.
    sessionId = page.sessionId;
    const piece = bytesOf(page);
    await sink(piece);
    bytes += piece.length;
    pages++;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return { sessionId, bytes, pages };
}

export const exportCommand: Command = async (ctx) => {
  const args = parseArgs(ctx.args);
  if (ctx.json && args.out === null)
    throw new UsageError('--json goes with --out (without it the export itself is printed)');
  const client = ctx.client({ timeoutMs: EXPORT_TIMEOUT_MS });
  try {
    if (args.out === null) {
      await exportPages(client, args, writeStdout).catch((error: unknown) => {
        if (!(error instanceof ReaderGone)) throw error;
      });
      return 0;
    }
    let file: AtomicFile;
    try {
      file = createAtomicFile(args.out, EXPORT_FILE_MODE);
    } catch (error) {
      ctx.out.err(`memctl: cannot write ${args.out}: ${(error as Error).message}`);
      return EXIT_ERROR;
    }
    let done;
    try {
      done = await exportPages(client, args, (bytes) => file.write(bytes));
      file.commit();
    } catch (error) {
      file.abort();
      throw error;
    }
    const summary = {
      sessionId: done.sessionId,
      format: args.format,
      path: args.out,
      bytes: done.bytes,
      pages: done.pages,
    };
    if (ctx.json) ctx.out.out(JSON.stringify(summary));
    else ctx.out.out(`wrote ${args.out} (${args.format}, ${formatBytes(done.bytes)}) of session ${done.sessionId}`);
    return 0;
  } finally {
    client.close();
  }
};
