/**
 * Failures as the model reads them: a tool result with `isError: true` and one or two sentences it
 * can act on (call another tool, change a parameter, tell the user what to run). Never a stack.
 */
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { ClientError } from '../../errors.js';
import { oneLine } from './budget.js';

/** A daemon's message is quoted, not trusted: one line, and short. */
const MESSAGE_CHARS = 600;

/** What the tool that failed tells the model to do next, by case. */
export interface ErrorAdvice {
  /** A session id or a memory name that does not exist. */
  notFound?: string;
  /** The daemon refused the params (for search: the FTS5 query syntax). */
  invalidParams?: string;
  /** A write whose etag does not match what is there (or that would replace a memory without naming its etag). */
  conflict?: string | undefined;
}

/** A tool's own refusal of its arguments, before memd is asked. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function describeRpcError(error: RpcError, advice: ErrorAdvice): string {
  const said = oneLine(error.message, MESSAGE_CHARS);
  switch (error.code) {
    case ErrorCode.NotFound:
      return `Not found: ${said}.${advice.notFound ? ` ${advice.notFound}` : ''}`;
    case ErrorCode.InvalidParams:
      if (error.kind === 'AmbiguousSessionId')
        return `${said}. Pass more characters of the session id (or the full id).`;
      return `memd refused the parameters: ${said}.${advice.invalidParams ? ` ${advice.invalidParams}` : ''}`;
    case ErrorCode.PathRejected: {
      // The message says what is wrong in words; the reason is the rule's short name.
      const reason = oneLine(error.data.reason, 100);
      return `memd refused the memory name: ${said}${reason && !said.includes(reason) ? ` (${reason})` : ''}. Use a relative name without '..', '.md', backslashes or a leading '/', nested with '/' if needed (testing/flaky-tests).`;
    }
    case ErrorCode.Conflict: {
      const etag = oneLine(error.data.etag, 100);
      const next =
        advice.conflict ?? 'Read it again, merge your change into what it holds now, and write with its current etag.';
      return `Not written: ${said}${etag ? ` (its etag is now ${etag})` : ''}. ${next}`;
    }
    case ErrorCode.MethodNotFound:
      return `The memd daemon running does not serve this yet (${said}): it is older than this memctl. The user can restart it with: memctl stop && memctl start.`;
    case ErrorCode.ShuttingDown:
    case ErrorCode.NotReady:
      return `memd is restarting or still starting (${said}); try again in a few seconds.`;
    case ErrorCode.TooLarge:
      return `The answer would be too large (${said}); ask for less: a lower limit or a narrower query.`;
    default:
      return `memd answered ${oneLine(error.kind, 60)} (${error.code}): ${said}.`;
  }
}

function describeClientError(error: ClientError): string {
  const said = oneLine(error.message, MESSAGE_CHARS);
  switch (error.kind) {
    case 'NoDaemon':
      return `memd (the session-memory daemon these tools read from) is not running: ${said}. The memd tools cannot answer until it runs; tell the user, who can start it with: memctl start (and check it with: memctl doctor).`;
    case 'Timeout':
      return `memd did not answer in time (${said}). Try once more; if it fails again, tell the user to run: memctl doctor.`;
    case 'VersionMismatch':
      return `${said}.`;
    default:
      return `Could not talk to memd: ${said}. Try once more; if it fails again, tell the user to run: memctl doctor.`;
  }
}

/** The sentence for any failure of a tool call. */
export function describeToolFailure(error: unknown, advice: ErrorAdvice = {}): string {
  if (error instanceof ToolInputError) return error.message;
  if (error instanceof RpcError) return describeRpcError(error, advice);
  if (error instanceof ClientError) return describeClientError(error);
  const said = oneLine(error instanceof Error ? error.message : String(error), MESSAGE_CHARS);
  return `memctl mcp failed on this call (${said}). This is a bug in memd's MCP server; the other tools still work.`;
}
