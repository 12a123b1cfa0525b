/**
 * A scripted stand-in for the Anthropic Messages API (non-streaming `POST /v1/messages`) on
 * 127.0.0.1, for running the real `@anthropic-ai/sdk` against in tests: the network has no route
 * to the real API.
 *
 * Each `POST /v1/messages` that passes the auth and request checks consumes one scripted step
 * (text, tool_use, an HTTP error status, a dropped socket, a malformed body, a delayed one of
 * those, or no answer until the client gives up); with the script empty it answers a default text reply. Every request is recorded,
 * together with the problems `validateMessagesRequest` found in its body. In strict mode (the
 * default) a request with problems is answered 400 `invalid_request_error` naming them, and
 * consumes no step, as a real API would not have run the model on it.
 *
 * Auth: either `x-api-key` or `Authorization: Bearer <token>` is accepted (@anthropic-ai/sdk
 * 1.15.0 sends `Authorization: Bearer` for both its `apiKey` and `authToken` options). A request
 * with neither is answered 401 `authentication_error`, also without consuming a step.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPromptCache } from './messages-cache.js';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface TextStep {
  kind: 'text';
  text: string;
  /** Fields to report instead of the estimates (input: request bytes / 4, output: text chars / 4). */
  usage?: Partial<Usage>;
  /** Defaults to 'end_turn'. */
  stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal';
}

export interface ToolUseStep {
  kind: 'tool_use';
  name: string;
  input: Record<string, unknown>;
  /** Defaults to `toolu_test_<n>`. */
  id?: string;
  /** A text block to put before the tool_use block. */
  text?: string;
  usage?: Partial<Usage>;
}

export interface SlowStep {
  kind: 'slow';
  /** How long to wait before answering with `then`; cancelled if the client goes away first. */
  delayMs: number;
  then: Step;
}

export interface StatusStep {
  kind: 'status';
  status: number;
  /** Seconds, sent as the `retry-after` header (fractions allowed: the SDK parses it with parseFloat). */
  retryAfter?: number;
  /** The error message in the default error body. */
  message?: string;
  /** Replaces the whole body: a string is sent as is, anything else as JSON. */
  body?: unknown;
  /** Extra response headers, e.g. `{ 'x-should-retry': 'false' }`. */
  headers?: Record<string, string>;
}

export interface DropStep {
  kind: 'drop';
}

/** No answer at all: the request stays open until the client aborts it (or the server closes). */
export interface HangStep {
  kind: 'hang';
}

export interface MalformedStep {
  kind: 'malformed';
  /** Defaults to a truncated Message JSON. */
  body?: string;
  /** Defaults to 'application/json'. */
  contentType?: string;
}

export type Step = TextStep | ToolUseStep | SlowStep | StatusStep | DropStep | MalformedStep | HangStep;

export interface RecordedRequest {
  method: string;
  /** The URL's path, without the query (the SDK's beta calls add `?beta=true`). */
  path: string;
  /** The URL's query string, with its `?`, or ''. */
  search: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or null when the body is empty or not JSON. */
  body: unknown;
  raw: string;
  /** What `validateMessagesRequest` found; always empty for anything but `POST /v1/messages`. */
  problems: string[];
  /** The step this request consumed: null when it consumed none (401, 400, 404). */
  step: Step | null;
  /** The status answered; null while pending or when the socket was dropped. */
  status: number | null;
  /** The client closed the connection before an answer (an SDK call aborted by its signal). */
  aborted: boolean;
}

export interface MessagesApi {
  /** `http://127.0.0.1:<port>`, for the SDK's `baseURL` or `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues steps; each `POST /v1/messages` that gets through auth and validation takes the first. */
  script(...steps: Step[]): void;
  /** How many scripted steps are still queued. */
  pending(): number;
  close(): Promise<void>;
}

export interface MessagesApiOptions {
  /** Answer requests whose body has problems with 400 (default true); else only record them. */
  strict?: boolean;
  /** Account for prompt caching (messages-cache.ts): prefixes up to `cache_control` are written, then read. */
  cache?: boolean;
}

export const DEFAULT_REPLY_TEXT = 'OK (default reply of the scripted Messages API)';
const MALFORMED_BODY = '{"id":"msg_malformed","type":"message","role":"assistant","content":[{"type":"te';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export async function startMessagesApi(options: MessagesApiOptions = {}): Promise<MessagesApi> {
  const strict = options.strict ?? true;
  const cache = options.cache === true ? createPromptCache() : null;
  const requests: RecordedRequest[] = [];
  const queue: Step[] = [];
  const timers = new Set<NodeJS.Timeout>();
  /** Responses whose socket the server itself destroyed (a drop step): not the client's abort. */
  const dropped = new WeakSet<ServerResponse>();
  let closingServer = false;
  let counter = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  function send(
    res: ServerResponse,
    record: RecordedRequest,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ): void {
    if (res.destroyed || res.writableEnded) return;
    record.status = status;
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': `req_test_${++counter}`,
      ...headers,
    });
    res.end(body);
  }

  function sendError(
    res: ServerResponse,
    record: RecordedRequest,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    send(res, record, status, JSON.stringify({ type: 'error', error: { type: errorType(status), message } }), headers);
  }

  function usage(record: RecordedRequest, outputChars: number, given: Partial<Usage> | undefined): Usage {
    return {
      input_tokens: Math.max(1, Math.ceil(record.raw.length / 4)),
      output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...cache?.account(record.body, record.raw.length),
      ...given,
    };
  }

  function message(record: RecordedRequest, content: unknown[], stopReason: string, usageOut: Usage): string {
    const body = record.body as { model?: unknown } | null;
    return JSON.stringify({
      id: `msg_test_${++counter}`,
      type: 'message',
      role: 'assistant',
      model: typeof body?.model === 'string' ? body.model : 'unknown-model',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usageOut,
    });
  }

  function serve(step: Step, req: IncomingMessage, res: ServerResponse, record: RecordedRequest): void {
    switch (step.kind) {
      case 'text':
        send(
          res,
          record,
          200,
          message(
            record,
            [{ type: 'text', text: step.text }],
            step.stopReason ?? 'end_turn',
            usage(record, step.text.length, step.usage),
          ),
        );
        return;
      case 'tool_use': {
        const id = step.id ?? `toolu_test_${++counter}`;
        const content: unknown[] = step.text === undefined ? [] : [{ type: 'text', text: step.text }];
        content.push({ type: 'tool_use', id, name: step.name, input: step.input });
        const chars = (step.text?.length ?? 0) + step.name.length + JSON.stringify(step.input).length;
        send(res, record, 200, message(record, content, 'tool_use', usage(record, chars, step.usage)));
        return;
      }
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          serve(step.then, req, res, record);
        }, step.delayMs);
        timers.add(timer);
        res.once('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'status': {
        const headers: Record<string, string> = { ...step.headers };
        if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
        if (step.body !== undefined) {
          send(
            res,
            record,
            step.status,
            typeof step.body === 'string' ? step.body : JSON.stringify(step.body),
            headers,
          );
        } else {
          sendError(
            res,
            record,
            step.status,
            step.message ?? `scripted ${step.status} ${errorType(step.status)}`,
            headers,
          );
        }
        return;
      }
      case 'drop':
        dropped.add(res);
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'malformed':
        send(res, record, 200, step.body ?? MALFORMED_BODY, { 'content-type': step.contentType ?? 'application/json' });
        return;
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown = null;
    let parsed = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw) as unknown;
        parsed = true;
      } catch {
        body = null;
      }
    }
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      search: url.search,
      headers: req.headers,
      body,
      raw,
      problems: [],
      step: null,
      status: null,
      aborted: false,
    };
    requests.push(record);
    res.once('close', () => {
      if (!res.writableFinished && !dropped.has(res) && !closingServer) record.aborted = true;
    });

    if (url.pathname !== '/v1/messages') {
      sendError(
        res,
        record,
        404,
        `${record.method} ${url.pathname}: not found (this scripted server only has POST /v1/messages)`,
      );
      return;
    }
    if (record.method !== 'POST') {
      sendError(res, record, 405, `${record.method} /v1/messages: method not allowed`);
      return;
    }
    record.problems = parsed
      ? validateMessagesRequest(body)
      : [raw.length === 0 ? 'body: empty, expected a JSON object' : 'body: not valid JSON'];

    if (!authorized(req.headers)) {
      sendError(res, record, 401, 'x-api-key or "Authorization: Bearer <token>" header is required');
      return;
    }
    if (strict && record.problems.length > 0) {
      sendError(res, record, 400, record.problems.join('; '));
      return;
    }
    const step = queue.shift() ?? { kind: 'text', text: DEFAULT_REPLY_TEXT };
    record.step = step;
    serve(step, req, res, record);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...steps: Step[]): void {
      queue.push(...steps);
    },
    pending(): number {
      return queue.length;
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        closingServer = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function authorized(headers: IncomingHttpHeaders): boolean {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return true;
  const authorization = headers.authorization;
  return typeof authorization === 'string' && /^Bearer\s+\S+/i.test(authorization);
}

// ---------------------------------------------------------------------------------------------
// Request validation
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function isInteger(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const MESSAGE_BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
]);
const TOOL_RESULT_BLOCK_TYPES = new Set(['text', 'image', 'document', 'search_result']);

function checkCacheControl(block: Json, at: string, problems: string[]): void {
  const cc = block.cache_control;
  if (cc === undefined || cc === null) return;
  if (!isObject(cc) || cc.type !== 'ephemeral') {
    problems.push(`${at}.cache_control: expected {type: "ephemeral", ttl?: "5m" | "1h"}, got ${show(cc)}`);
  } else if (cc.ttl !== undefined && cc.ttl !== '5m' && cc.ttl !== '1h') {
    problems.push(`${at}.cache_control.ttl: expected "5m" or "1h", got ${show(cc.ttl)}`);
  }
}

function checkText(block: Json, at: string, problems: string[]): void {
  if (typeof block.text !== 'string') {
    problems.push(`${at}: text block needs a string "text", got ${show(block.text)}`);
  } else if (block.text.length === 0) {
    problems.push(`${at}: text content blocks must be non-empty (empty "text")`);
  } else if (block.text.trim().length === 0) {
    problems.push(`${at}: text content blocks must contain non-whitespace text`);
  }
}

function checkSource(block: Json, at: string, problems: string[]): void {
  if (!isObject(block.source) || typeof block.source.type !== 'string') {
    problems.push(
      `${at}: ${String(block.type)} block needs a "source" object with a string "type", got ${show(block.source)}`,
    );
  }
}

/** Blocks allowed inside a tool_result's content array. */
function checkToolResultContentBlock(block: unknown, at: string, problems: string[]): void {
  if (!isObject(block) || typeof block.type !== 'string') {
    problems.push(`${at}: expected a content block object with a string "type", got ${show(block)}`);
    return;
  }
  if (!TOOL_RESULT_BLOCK_TYPES.has(block.type)) {
    problems.push(
      `${at}.type: ${show(block.type)} is not allowed in tool_result content (text, image, document, search_result)`,
    );
    return;
  }
  checkCacheControl(block, at, problems);
  if (block.type === 'text') checkText(block, at, problems);
  else if (block.type === 'image' || block.type === 'document') checkSource(block, at, problems);
}

interface ScannedMessage {
  role: 'user' | 'assistant' | null;
  toolUseIds: string[];
  toolResultIds: string[];
}

function checkMessage(
  message: unknown,
  index: number,
  isLast: boolean,
  seenToolUseIds: Set<string>,
  problems: string[],
): ScannedMessage {
  const at = `messages[${index}]`;
  const scanned: ScannedMessage = { role: null, toolUseIds: [], toolResultIds: [] };
  if (!isObject(message)) {
    problems.push(`${at}: expected a message object, got ${show(message)}`);
    return scanned;
  }
  if (message.role === 'user' || message.role === 'assistant') scanned.role = message.role;
  else problems.push(`${at}.role: expected "user" or "assistant", got ${show(message.role)}`);
  const role = scanned.role;
  const finalAssistant = isLast && role === 'assistant';

  const content = message.content;
  if (typeof content === 'string') {
    if (content.length === 0 && !finalAssistant) {
      problems.push(
        `${at}.content: all messages must have non-empty content except for the optional final assistant message`,
      );
    } else if (finalAssistant && content.length > 0 && /\s$/.test(content)) {
      problems.push(`${at}.content: final assistant content cannot end with trailing whitespace`);
    }
    return scanned;
  }
  if (!Array.isArray(content)) {
    problems.push(`${at}.content: expected a string or an array of content blocks, got ${show(content)}`);
    return scanned;
  }
  if (content.length === 0) {
    problems.push(`${at}.content: expected a non-empty array of content blocks (or a string)`);
    return scanned;
  }

  let sawOtherBlock = false;
  content.forEach((block: unknown, j) => {
    const bat = `${at}.content[${j}]`;
    if (!isObject(block) || typeof block.type !== 'string') {
      problems.push(`${bat}: expected a content block object with a string "type", got ${show(block)}`);
      sawOtherBlock = true;
      return;
    }
    if (!MESSAGE_BLOCK_TYPES.has(block.type)) {
      problems.push(
        `${bat}.type: unknown block type ${show(block.type)} (expected one of ${[...MESSAGE_BLOCK_TYPES].join(', ')})`,
      );
      sawOtherBlock = true;
      return;
    }
    checkCacheControl(block, bat, problems);
    switch (block.type) {
      case 'text':
        checkText(block, bat, problems);
        if (
          finalAssistant &&
          j === content.length - 1 &&
          typeof block.text === 'string' &&
          block.text.trim().length > 0 &&
          /\s$/.test(block.text)
        ) {
          problems.push(`${bat}: final assistant content cannot end with trailing whitespace`);
        }
        break;
      case 'image':
      case 'document':
        checkSource(block, bat, problems);
        break;
      case 'tool_use': {
        if (role === 'user')
          problems.push(`${bat}: tool_use blocks are only allowed in assistant messages, not in a user message`);
        if (typeof block.id !== 'string') {
          problems.push(`${bat}.id: tool_use needs a string "id", got ${show(block.id)}`);
        } else {
          if (!TOOL_USE_ID.test(block.id))
            problems.push(`${bat}.id: tool_use id ${show(block.id)} must match ${TOOL_USE_ID.source}`);
          if (seenToolUseIds.has(block.id))
            problems.push(`${bat}.id: tool_use ids must be unique, ${show(block.id)} is used twice`);
          seenToolUseIds.add(block.id);
          scanned.toolUseIds.push(block.id);
        }
        if (typeof block.name !== 'string' || block.name.length === 0)
          problems.push(`${bat}.name: tool_use needs a non-empty string "name", got ${show(block.name)}`);
        if (!isObject(block.input))
          problems.push(`${bat}.input: tool_use "input" must be an object, got ${show(block.input)}`);
        break;
      }
      case 'tool_result': {
        if (role === 'assistant')
          problems.push(`${bat}: tool_result blocks are only allowed in user messages, not in an assistant message`);
        if (sawOtherBlock)
          problems.push(`${bat}: tool_result blocks must come first in their message, before any other block`);
        if (typeof block.tool_use_id !== 'string') {
          problems.push(`${bat}.tool_use_id: tool_result needs a string "tool_use_id", got ${show(block.tool_use_id)}`);
        } else {
          if (scanned.toolResultIds.includes(block.tool_use_id))
            problems.push(`${bat}: duplicate tool_result for tool_use id ${show(block.tool_use_id)}`);
          scanned.toolResultIds.push(block.tool_use_id);
        }
        const result = block.content;
        if (Array.isArray(result)) {
          result.forEach((inner: unknown, k) => checkToolResultContentBlock(inner, `${bat}.content[${k}]`, problems));
        } else if (result !== undefined && typeof result !== 'string') {
          problems.push(
            `${bat}.content: tool_result content must be a string or an array of blocks, got ${show(result)}`,
          );
        }
        if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
          problems.push(`${bat}.is_error: expected a boolean, got ${show(block.is_error)}`);
        }
        break;
      }
      case 'thinking':
        if (role === 'user') problems.push(`${bat}: thinking blocks are only allowed in assistant messages`);
        if (typeof block.thinking !== 'string')
          problems.push(`${bat}.thinking: thinking block needs a string "thinking", got ${show(block.thinking)}`);
        if (typeof block.signature !== 'string')
          problems.push(`${bat}.signature: thinking block needs a string "signature", got ${show(block.signature)}`);
        break;
      case 'redacted_thinking':
        if (role === 'user') problems.push(`${bat}: redacted_thinking blocks are only allowed in assistant messages`);
        if (typeof block.data !== 'string')
          problems.push(`${bat}.data: redacted_thinking block needs a string "data", got ${show(block.data)}`);
        break;
    }
    if (block.type !== 'tool_result') sawOtherBlock = true;
  });
  return scanned;
}

function checkSystem(system: unknown, problems: string[]): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system)) {
    problems.push(`system: expected a string or an array of text blocks, got ${show(system)}`);
    return;
  }
  system.forEach((block: unknown, j) => {
    const at = `system[${j}]`;
    if (!isObject(block) || block.type !== 'text') {
      problems.push(
        `${at}: system blocks must be text blocks, got ${isObject(block) ? `type ${show(block.type)}` : show(block)}`,
      );
      return;
    }
    checkCacheControl(block, at, problems);
    checkText(block, at, problems);
  });
}

function checkCounter(value: unknown, at: string, types: readonly string[], min: number, problems: string[]): void {
  if (value === undefined || value === null) return;
  if (
    !isObject(value) ||
    typeof value.type !== 'string' ||
    !types.includes(value.type) ||
    !isInteger(value.value, min)
  ) {
    const shape = types.map((type) => `{type: "${type}", value: integer >= ${min}}`).join(' or ');
    problems.push(`${at}: expected ${shape}, got ${isObject(value) ? JSON.stringify(value) : show(value)}`);
    return;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'type' && key !== 'value') problems.push(`${at}.${key}: unknown field`);
  }
}

const EDIT_KEYS = new Set(['type', 'trigger', 'keep', 'clear_at_least', 'exclude_tools', 'clear_tool_inputs']);

function checkContextManagement(cm: unknown, problems: string[]): void {
  if (cm === undefined) return;
  if (!isObject(cm)) {
    problems.push(`context_management: expected {edits: [...]}, got ${show(cm)}`);
    return;
  }
  for (const key of Object.keys(cm)) {
    if (key !== 'edits') problems.push(`context_management.${key}: unknown field`);
  }
  if (!Array.isArray(cm.edits)) {
    problems.push(`context_management.edits: expected an array, got ${show(cm.edits)}`);
    return;
  }
  cm.edits.forEach((edit: unknown, j) => {
    const at = `context_management.edits[${j}]`;
    if (!isObject(edit)) {
      problems.push(`${at}: expected an edit object, got ${show(edit)}`);
      return;
    }
    if (edit.type !== 'clear_tool_uses_20250919') {
      problems.push(`${at}.type: expected "clear_tool_uses_20250919", got ${show(edit.type)}`);
      return;
    }
    for (const key of Object.keys(edit)) {
      if (!EDIT_KEYS.has(key)) problems.push(`${at}.${key}: unknown field of clear_tool_uses_20250919`);
    }
    // The SDK's types also allow a tool_uses trigger; the brief's input_tokens is the common one.
    checkCounter(edit.trigger, `${at}.trigger`, ['input_tokens', 'tool_uses'], 1, problems);
    checkCounter(edit.keep, `${at}.keep`, ['tool_uses'], 0, problems);
    checkCounter(edit.clear_at_least, `${at}.clear_at_least`, ['input_tokens'], 0, problems);
    const exclude = edit.exclude_tools;
    if (
      exclude !== undefined &&
      exclude !== null &&
      (!Array.isArray(exclude) || !exclude.every((name) => typeof name === 'string'))
    ) {
      problems.push(`${at}.exclude_tools: expected an array of tool names, got ${show(exclude)}`);
    }
    const inputs = edit.clear_tool_inputs;
    if (
      inputs !== undefined &&
      inputs !== null &&
      typeof inputs !== 'boolean' &&
      (!Array.isArray(inputs) || !inputs.every((name) => typeof name === 'string'))
    ) {
      problems.push(`${at}.clear_tool_inputs: expected a boolean or an array of tool names, got ${show(inputs)}`);
    }
  });
}

/**
 * The problems a real Messages API would reject this request body for (as far as this checks),
 * each naming where it is: `messages[3].content[0]: ...`. Empty when the body is acceptable.
 */
export function validateMessagesRequest(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return [`body: expected a JSON object, got ${show(body)}`];

  if (typeof body.model !== 'string' || body.model.length === 0)
    problems.push(`model: expected a non-empty string, got ${show(body.model)}`);
  if (!isInteger(body.max_tokens, 1))
    problems.push(`max_tokens: expected a positive integer, got ${show(body.max_tokens)}`);
  if (body.stream === true)
    problems.push('stream: this scripted server does not stream; send stream: false or leave it out');
  checkSystem(body.system, problems);
  checkContextManagement(body.context_management, problems);

  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    problems.push(
      `messages: expected a non-empty array, got ${Array.isArray(messages) ? 'an empty array' : show(messages)}`,
    );
    return problems;
  }

  const seenToolUseIds = new Set<string>();
  const scanned = messages.map((message: unknown, i) =>
    checkMessage(message, i, i === messages.length - 1, seenToolUseIds, problems),
  );

  scanned.forEach((message, i) => {
    const previous = i > 0 ? scanned[i - 1] : undefined;
    if (message.role === null) return;
    if (i === 0 && message.role !== 'user') {
      problems.push(`messages[0].role: the first message must use the "user" role, got "${message.role}"`);
    }
    if (previous !== undefined && previous.role === message.role) {
      problems.push(
        `messages[${i}].role: roles must alternate between "user" and "assistant", but messages[${i - 1}] and messages[${i}] are both "${message.role}"`,
      );
    }
    // Every tool_result answers a tool_use of the immediately preceding assistant message.
    if (message.role === 'user') {
      const offered = previous?.role === 'assistant' ? previous.toolUseIds : [];
      for (const id of message.toolResultIds) {
        if (!offered.includes(id)) {
          problems.push(
            `messages[${i}]: unexpected tool_result for tool_use id "${id}": each tool_result must answer a tool_use in the immediately preceding assistant message (orphan tool_result)`,
          );
        }
      }
    }
    // Every tool_use is answered in the next message.
    if (message.role === 'assistant' && message.toolUseIds.length > 0) {
      const next = scanned[i + 1];
      const answered = next?.role === 'user' ? next.toolResultIds : [];
      const missing = message.toolUseIds.filter((id) => !answered.includes(id));
      if (missing.length > 0) {
        const where =
          next === undefined
            ? 'the conversation ends after this message'
            : `messages[${i + 1}] does not begin with a tool_result for each`;
        problems.push(
          `messages[${i}]: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')} (unanswered tool_use; ${where})`,
        );
      }
    }
  });
  return problems;
}
