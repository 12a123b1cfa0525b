/**
 * MCP over stdio, one JSON-RPC message a line, where a bad line costs only itself. The SDK's
 * StdioServerTransport closes for good when a line outgrows its buffer (and the server then exits
 * 0 with nothing said: memd's tools are gone for the rest of the Claude Code session), and drops a
 * line that is not JSON or not a message without an answer. Here a line over the limit is skipped
 * to its newline without being held, and each bad line gets a JSON-RPC error on stdout and one
 * line on stderr; the lines after it are read as usual.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../../../shared/protocol/envelope.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;
/**
 * The end of a skipped line kept to find its id: the MCP SDK writes a request as
 * `{"method":…,"params":…,"jsonrpc":"2.0","id":…}`, so the id is in the last few dozen bytes.
 */
const TAIL_BYTES = 256;
/**
 * The top-level id at the very end of a line the SDK wrote: `"jsonrpc":"2.0","id":N}`. A nested
 * object ending so would be followed by the outer `}`, so this matches only the message's own id.
 */
const TRAILING_ID = /"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,100}")\s*\}\s*$/;

type RequestId = string | number | null;

export interface LineTransportOptions {
  /** The longest line read; a longer one is answered with an error and skipped. */
  maxLineBytes: number;
  /** Where a skipped line is reported, one line each (stderr: stdout carries the protocol alone). */
  log(line: string): void;
}

/** A bad line's error: the id when one could be read, else null (JSON-RPC 2.0 §5). */
function errorAnswer(id: RequestId, code: number, message: string, data?: Record<string, unknown>): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  } as unknown as JSONRPCMessage;
}

function idOf(value: unknown): RequestId {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function trailingId(tail: string): RequestId {
  const match = TRAILING_ID.exec(tail);
  if (match?.[1] === undefined) return null;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return null;
  }
}

/** What one complete line holds: a message for the server, an error to answer with, or nothing. */
type Reading = { message: JSONRPCMessage } | { answer: JSONRPCMessage; reason: string } | null;

export function readLine(text: string): Reading {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  // A blank line carries nothing to answer; some clients end a message with an extra newline.
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const reason = `not JSON (${(error as Error).message})`;
    return { answer: errorAnswer(null, PARSE_ERROR, `Parse error: the line is ${reason}`), reason };
  }
  const id = idOf(value);
  if (Array.isArray(value)) {
    // MCP has no batches since 2025-06-18; answering each element would let one line queue many calls.
    return {
      answer: errorAnswer(null, INVALID_REQUEST, 'Invalid Request: batches are not supported; send one message a line'),
      reason: 'a batch',
    };
  }
  if (typeof value !== 'object' || value === null) {
    return {
      answer: errorAnswer(null, INVALID_REQUEST, 'Invalid Request: a message is a JSON object'),
      reason: `a JSON ${value === null ? 'null' : typeof value}, not an object`,
    };
  }
  if (exceedsDepth(value, MAX_JSON_DEPTH)) {
    return {
      answer: errorAnswer(
        id,
        INVALID_REQUEST,
        `Invalid Request: the message nests deeper than ${MAX_JSON_DEPTH} levels`,
      ),
      reason: `nested deeper than ${MAX_JSON_DEPTH} levels`,
    };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    return {
      answer: errorAnswer(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response'),
      reason: 'not a JSON-RPC 2.0 message',
    };
  }
  return { message: parsed.data };
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** The bytes of the line being read, while it is within the limit. */
  private pieces: Buffer[] = [];
  private pending = 0;
  /** Set while the rest of a line over the limit is being passed over; holds its last bytes. */
  private skipping: { tail: Buffer; bytes: number } | null = null;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly options: LineTransportOptions,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private readonly onError = (error: Error) => {
    this.onerror?.(error);
  };

  /** A piece of the current line: kept while the line is within the limit, else only its end. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping === null && this.pending + piece.length <= this.options.maxLineBytes) {
      this.pieces.push(piece);
      this.pending += piece.length;
      return;
    }
    if (this.skipping === null) {
      // The id may begin in what was kept so far, when the line ends just past the limit.
      const kept = Buffer.concat(this.pieces);
      this.skipping = { tail: kept.subarray(Math.max(0, kept.length - TAIL_BYTES)), bytes: this.pending };
      this.pieces = [];
      this.pending = 0;
    }
    this.skipping.bytes += piece.length;
    const joined = Buffer.concat([this.skipping.tail, piece.subarray(Math.max(0, piece.length - TAIL_BYTES))]);
    this.skipping.tail = joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
  }

  private endLine(): void {
    if (this.skipping !== null) {
      const { tail, bytes } = this.skipping;
      this.skipping = null;
      const limit = this.options.maxLineBytes;
      const id = trailingId(tail.toString('utf8'));
      this.options.log(
        `memctl mcp: skipped a stdin message over the limit of ${limit} bytes (${bytes} bytes, id ${JSON.stringify(id)}); answered with an error and read on`,
      );
      this.answer(
        errorAnswer(
          id,
          INVALID_REQUEST,
          `Invalid Request: the message is ${bytes} bytes, over memctl mcp's limit of ${limit} bytes; it was skipped`,
          { limit, bytes },
        ),
      );
      return;
    }
    const text = Buffer.concat(this.pieces).toString('utf8');
    this.pieces = [];
    this.pending = 0;
    const reading = readLine(text);
    if (reading === null) return;
    if ('answer' in reading) {
      this.options.log(`memctl mcp: answered a stdin line with an error: ${reading.reason}`);
      this.answer(reading.answer);
      return;
    }
    try {
      this.onmessage?.(reading.message);
    } catch (error) {
      // The server's handler is the SDK's; whatever it throws, the next line is still read.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private answer(message: JSONRPCMessage): void {
    this.send(message).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pieces = [];
    this.skipping = null;
    this.onclose?.();
  }
}
