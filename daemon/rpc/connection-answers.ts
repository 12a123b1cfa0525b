/**
 * The answers a connection writes without asking the dispatcher (a request cancelled, one sent
 * during shutdown, an id already in flight), and the frame every message goes out in: never over
 * the client's MAX_FRAME_BYTES (an answer too large becomes AnswerTooLarge, so that the client
 * learns why instead of rejecting the frame and never seeing its answer). Pure apart from the log
 * line: connection.ts keeps the socket, this file what is written on it.
 */
import { type ErrorEnvelope, errorEnvelope, type RequestId } from '../../shared/protocol/envelope.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import type { Logger } from '../log/logger.js';

/**
 * The frame for a message (without its newline), never over the client's MAX_FRAME_BYTES: an answer that would be is
 * replaced by an AnswerTooLarge error (a client would reject the frame and never see its answer;
 * one too big to serialize at all threw out of here unanswered). An event that large is dropped.
 */
export function serializeWithin(message: object, log: Logger, connection: number): string | null {
  let text: string | null;
  // RangeError is either a string past V8's limit or a value nested too deep for the stack.
  let tooDeep = false;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    text = null;
    tooDeep = error.message.includes('call stack');
  }
  const bytes = text === null ? null : Buffer.byteLength(text) + 1;
  if (text !== null && bytes !== null && bytes <= MAX_FRAME_BYTES) return text;
  const id = (message as { id?: unknown }).id;
  if (id === undefined) {
    log.warn('an event too large for one frame was not sent', { connection, bytes });
    return null;
  }
  log.warn('an answer too large for one frame was replaced by AnswerTooLarge', { connection, bytes });
  const size = bytes === null ? 'more than a string can hold' : `${bytes} bytes`;
  const problem = tooDeep
    ? 'the answer nests too deep to serialize'
    : `the answer is ${size}, over the ${MAX_FRAME_BYTES}-byte frame limit`;
  const envelope = errorEnvelope(
    id as RequestId,
    ErrorCode.TooLarge,
    'AnswerTooLarge',
    `${problem}; ask for less (toolResults.get takes offset and length, sessions.list limit and cursor)`,
  );
  return JSON.stringify({
    ...envelope,
    error: { ...envelope.error, data: { ...envelope.error.data, bytes, limit: MAX_FRAME_BYTES } },
  });
}

export function cancelled(id: RequestId): ErrorEnvelope {
  return errorEnvelope(id, ErrorCode.Cancelled, 'Cancelled', 'the request was cancelled');
}

/** Sent instead of running a request once shutdown began. */
export function shuttingDown(id: RequestId): ErrorEnvelope {
  return errorEnvelope(id, ErrorCode.ShuttingDown, 'ShuttingDown', 'memd is shutting down; retry after it restarts');
}

/** The answer to a request whose id is already in flight on its connection. */
export function duplicateId(id: RequestId | null): ErrorEnvelope {
  return errorEnvelope(
    id,
    ErrorCode.InvalidRequest,
    'DuplicateId',
    `request id ${JSON.stringify(id)} is already in flight on this connection`,
  );
}
