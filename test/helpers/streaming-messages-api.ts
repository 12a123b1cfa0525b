/**
 * A scripted stand-in for the Anthropic Messages API that streams (`stream: true`, server-sent
 * events), on 127.0.0.1, for running the real Claude Code against in tests: it must never reach the
 * real API, so it runs with `ANTHROPIC_BASE_URL` pointing here (and, by hand, in a network namespace
 * with loopback only).
 *
 * Claude Code sends the main agent's requests and, beside them, small side requests (a title, a
 * quota probe, a haiku call). Which requests are the agent's is decided by `isScripted` (by
 * default: the request offers tools); each of those takes the next scripted step, or a default
 * text reply once the script is used up. Every other `POST /v1/messages` gets a short text reply.
 * `count_tokens`, the models list and `HEAD /` (Claude Code's reachability probe at start) are
 * answered; any other path gets a 404 and is listed by `unknown()`, so a test sees what it did not
 * expect. Every request, with its parsed body and what was answered (message id, usage), is recorded.
 *
 * Bounded: after `maxRequests` requests every further one is answered 400 (not retried by clients),
 * so a client stuck in a loop ends instead of running until the test's timeout.
 *
 * The stream is what the API sends: message_start (usage with a placeholder `output_tokens`), a
 * ping, per content block content_block_start / deltas (`text_delta`, `input_json_delta`) /
 * content_block_stop, message_delta (stop_reason and the final usage), message_stop.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorType } from './messages-api.js';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface StreamTextStep {
  kind: 'text';
  text: string;
  /** Fields to report instead of the defaults (input: request bytes / 4, output: text chars / 4, no cache). */
  usage?: Partial<Usage>;
  /** Defaults to 'end_turn'. */
  stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence';
}

export interface StreamToolUseStep {
  kind: 'tool_use';
  name: string;
  input: Record<string, unknown>;
  /** Defaults to `toolu_stream_<n>`. */
  id?: string;
  /** A text block to stream before the tool_use block. */
  text?: string;
  usage?: Partial<Usage>;
}

export type StreamStep = StreamTextStep | StreamToolUseStep;

/** What a `POST /v1/messages` was answered with. */
export interface Reply {
  /** The scripted step it took; null for side requests and for agent requests past the script. */
  step: StreamStep | null;
  messageId: string;
  requestId: string;
  model: string;
  /** The usage the reply reported in full (message_delta's, or the non-streaming body's). */
  usage: Usage;
  streamed: boolean;
}

export interface RecordedRequest {
  method: string;
  /** The URL's path, without the query (Claude Code's beta calls add `?beta=true`). */
  path: string;
  search: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or null when it is empty or not JSON. */
  body: unknown;
  /** Bytes of the body. */
  bytes: number;
  /** Whether `isScripted` took it for the agent's (only for `POST /v1/messages`). */
  scripted: boolean;
  status: number | null;
  reply: Reply | null;
}

export interface StreamingMessagesApi {
  /** `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues steps for the agent's requests. */
  script(...steps: StreamStep[]): void;
  /** Scripted steps not yet taken. */
  pending(): number;
  /** `METHOD path` of every request answered 404, in order. */
  unknown(): string[];
  close(): Promise<void>;
}

export interface StreamingMessagesApiOptions {
  /** Which `POST /v1/messages` bodies are the agent's and take a step (default: those offering tools). */
  isScripted?: (body: unknown) => boolean;
  /** Awaited before a scripted request is answered: a test can look at the world while the client waits. */
  beforeReply?: (request: RecordedRequest, step: StreamStep | null) => Promise<void>;
  /** Text of every reply that is not scripted. */
  sideReplyText?: string;
  /** The `x-api-key` to require; requests without it get a 401 (default: any key). */
  apiKey?: string;
  /** Requests answered before every further one gets a 400 (default 200). */
  maxRequests?: number;
  /**
   * Headers added to every `POST /v1/messages` reply, scripted or not: the API's
   * `anthropic-ratelimit-unified-*` headers, which Claude Code reads its plan limits from.
   */
  replyHeaders?: () => Record<string, string>;
}

export const SIDE_REPLY_TEXT = 'OK';
export const DEFAULT_STREAM_REPLY_TEXT = 'Done (default reply of the scripted streaming API).';
/** Bigger than any request a test makes: a loop that keeps asking is cut off instead of running to the timeout. */
const DEFAULT_MAX_REQUESTS = 200;
/** A streamed text arrives in pieces of this many characters, as a model's does. */
const TEXT_CHUNK_CHARS = 16;
/** message_start reports this many output tokens, as the API does before any is generated. */
const PLACEHOLDER_OUTPUT_TOKENS = 1;

function offersTools(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const tools = (body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0;
}

function modelOf(body: unknown): string {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' && model.length > 0 ? model : 'claude-sonnet-4-5';
}

function wantsStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces.length > 0 ? pieces : [''];
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export async function startStreamingMessagesApi(
  options: StreamingMessagesApiOptions = {},
): Promise<StreamingMessagesApi> {
  const isScripted = options.isScripted ?? offersTools;
  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS;
  const sideReplyText = options.sideReplyText ?? SIDE_REPLY_TEXT;
  const requests: RecordedRequest[] = [];
  const queue: StreamStep[] = [];
  const notFound: string[] = [];
  /** Scripted replies are numbered apart from side requests, whose number and order Claude Code varies. */
  const numbers = { scripted: 0, side: 0, tool: 0, other: 0 };

  function writeJson(res: ServerResponse, record: RecordedRequest, status: number, value: unknown): void {
    if (res.destroyed || res.writableEnded) return;
    record.status = status;
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_other_${++numbers.other}` });
    res.end(JSON.stringify(value));
  }

  function writeError(res: ServerResponse, record: RecordedRequest, status: number, message: string): void {
    writeJson(res, record, status, { type: 'error', error: { type: errorType(status), message } });
  }

  function blocksOf(step: StreamStep | null, scripted: boolean): Block[] {
    if (step === null) return [{ type: 'text', text: scripted ? DEFAULT_STREAM_REPLY_TEXT : sideReplyText }];
    if (step.kind === 'text') return [{ type: 'text', text: step.text }];
    const tool: Block = {
      type: 'tool_use',
      id: step.id ?? `toolu_stream_${String(++numbers.tool).padStart(4, '0')}`,
      name: step.name,
      input: step.input,
    };
    return step.text === undefined ? [tool] : [{ type: 'text', text: step.text }, tool];
  }

  function usageOf(record: RecordedRequest, blocks: Block[], given: Partial<Usage> | undefined): Usage {
    const outputChars = blocks.reduce(
      (sum, block) => sum + (block.type === 'text' ? block.text.length : JSON.stringify(block.input).length),
      0,
    );
    return {
      input_tokens: Math.max(1, Math.ceil(record.bytes / 4)),
      output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...given,
    };
  }

  /** The usage object as the API sends it, with the cache creation split by TTL (all 5-minute here). */
  function wireUsage(usage: Usage): Record<string, unknown> {
    return {
      ...usage,
      cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
      service_tier: 'standard',
    };
  }

  function event(res: ServerResponse, type: string, data: Record<string, unknown>): void {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  }

  function stream(res: ServerResponse, reply: Reply, blocks: Block[], stopReason: string): void {
    res.writeHead(200, {
      ...options.replyHeaders?.(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': reply.requestId,
    });
    event(res, 'message_start', {
      message: {
        id: reply.messageId,
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: wireUsage({ ...reply.usage, output_tokens: PLACEHOLDER_OUTPUT_TOKENS }),
      },
    });
    event(res, 'ping', {});
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        event(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of chunks(block.text, TEXT_CHUNK_CHARS))
          event(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        event(res, 'content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const json = JSON.stringify(block.input);
        const half = Math.ceil(json.length / 2);
        for (const piece of [json.slice(0, half), json.slice(half)])
          event(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      event(res, 'content_block_stop', { index });
    });
    event(res, 'message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: wireUsage(reply.usage),
    });
    event(res, 'message_stop', {});
    res.end();
  }

  async function answerMessages(res: ServerResponse, record: RecordedRequest): Promise<void> {
    record.scripted = isScripted(record.body);
    const step = record.scripted ? (queue.shift() ?? null) : null;
    if (record.scripted && options.beforeReply !== undefined) await options.beforeReply(record, step);
    const blocks = blocksOf(step, record.scripted);
    const stopReason =
      step?.kind === 'tool_use' ? 'tool_use' : step?.kind === 'text' ? (step.stopReason ?? 'end_turn') : 'end_turn';
    const kind = record.scripted ? 'scripted' : 'side';
    const number = String(++numbers[kind]).padStart(4, '0');
    const reply: Reply = {
      step,
      messageId: `msg_${kind}_${number}`,
      requestId: `req_${kind}_${number}`,
      model: modelOf(record.body),
      usage: usageOf(record, blocks, step?.usage),
      streamed: wantsStream(record.body),
    };
    record.reply = reply;
    if (res.destroyed) return;
    record.status = 200;
    if (reply.streamed) {
      stream(res, reply, blocks, stopReason);
      return;
    }
    res.writeHead(200, {
      ...options.replyHeaders?.(),
      'content-type': 'application/json',
      'request-id': reply.requestId,
    });
    res.end(
      JSON.stringify({
        id: reply.messageId,
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: wireUsage(reply.usage),
      }),
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      search: url.search,
      headers: req.headers,
      body,
      bytes: Buffer.byteLength(raw),
      scripted: false,
      status: null,
      reply: null,
    };
    requests.push(record);
    if (requests.length > maxRequests)
      return writeError(res, record, 400, `the scripted API answers at most ${maxRequests} requests`);
    const route = `${record.method} ${record.path}`;
    // Claude Code's reachability probe of ANTHROPIC_BASE_URL at start, sent without a key.
    if (route === 'HEAD /') return writeJson(res, record, 200, {});
    const key = req.headers['x-api-key'];
    if (
      options.apiKey !== undefined &&
      key !== options.apiKey &&
      req.headers.authorization !== `Bearer ${options.apiKey}`
    ) {
      return writeError(res, record, 401, 'invalid x-api-key');
    }
    if (route === 'POST /v1/messages') return answerMessages(res, record);
    if (route === 'POST /v1/messages/count_tokens')
      return writeJson(res, record, 200, { input_tokens: Math.max(1, Math.ceil(record.bytes / 4)) });
    if (record.method === 'GET' && record.path === '/v1/models') {
      const model = {
        type: 'model',
        id: 'claude-sonnet-4-5',
        display_name: 'Claude Sonnet 4.5',
        created_at: '2025-09-29T00:00:00Z',
      };
      return writeJson(res, record, 200, { data: [model], has_more: false, first_id: model.id, last_id: model.id });
    }
    notFound.push(route);
    writeError(res, record, 404, `the scripted API has no ${route}`);
  }

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('error', () => {});
    req.on('end', () => {
      handle(req, res, Buffer.concat(parts).toString('utf8')).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    unknown: () => [...notFound],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
