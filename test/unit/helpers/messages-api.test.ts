/**
 * The scripted Messages API server, driven by the real @anthropic-ai/sdk: replies, the SDK's
 * retry policy against scripted failures, the errors it raises, and the request validation.
 */

import type { ClientOptions } from '@anthropic-ai/sdk';
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  InternalServerError,
  OverloadedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_REPLY_TEXT,
  type MessagesApi,
  startMessagesApi,
  validateMessagesRequest,
} from '../../helpers/messages-api.js';

const MODEL = 'claude-sonnet-4-5';
/** Short enough that retries take milliseconds (the SDK parses retry-after with parseFloat). */
const RETRY_AFTER_S = 0.01;

let api: MessagesApi;

beforeEach(async () => {
  api = await startMessagesApi();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await api.close();
});

function client(options: ClientOptions = {}): Anthropic {
  return new Anthropic({ apiKey: 'test-key', baseURL: api.url, maxRetries: 0, logLevel: 'off', ...options });
}

function params(
  messages: MessageParam[],
  extra: Partial<MessageCreateParamsNonStreaming> = {},
): MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 256, messages, ...extra };
}

const HELLO = params([{ role: 'user', content: 'Hello' }]);

/** The rejection of a promise that must reject (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** A valid conversation: a prompt, two parallel tool calls answered, another call answered, a final text. */
const TOOL_CONVERSATION: MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'Fix the failing test in src/app.ts' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Look at the file and the test first.', signature: 'sig_abc' },
      { type: 'text', text: 'Reading both files.' },
      { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: 'src/app.ts' } },
      { type: 'tool_use', id: 'toolu_02', name: 'Read', input: { file_path: 'test/app.test.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const x = 1;' },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_02',
        content: [{ type: 'text', text: 'expect(x).toBe(2)' }],
        is_error: false,
      },
      { type: 'text', text: 'Keep the change small.' },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_03', name: 'Edit', input: { old: 'x = 1', new: 'x = 2' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_03', content: 'ok' }] },
  { role: 'assistant', content: 'Changed x to 2.' },
  { role: 'user', content: 'Thanks' },
];

describe('scripted replies through client.messages.create', () => {
  it('returns a scripted text reply, and records the request as sent', async () => {
    api.script({ kind: 'text', text: 'Hi there', usage: { input_tokens: 12, cache_read_input_tokens: 3 } });
    const message = await client().messages.create(HELLO);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 3 },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(api.requests).toHaveLength(1);
    const request = api.requests[0];
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      body: HELLO,
      problems: [],
      status: 200,
      step: { kind: 'text' },
    });
    expect(JSON.parse(request?.raw ?? '')).toEqual(HELLO);
    expect(request?.headers['content-type']).toMatch(/application\/json/);
  });

  it('returns a scripted tool_use reply', async () => {
    api.script({ kind: 'tool_use', name: 'Bash', input: { command: 'ls' } });
    const message = await client().messages.create(
      params(TOOL_CONVERSATION, { tools: [{ name: 'Bash', input_schema: { type: 'object' } }] }),
    );
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(1);
    const block = message.content[0];
    expect(block).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'ls' } });
    expect(block?.type === 'tool_use' ? block.id : '').toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(api.requests[0]?.body).toMatchObject({ messages: TOOL_CONVERSATION });
  });

  it('answers the default text reply once the script is used up', async () => {
    api.script({ kind: 'text', text: 'first' });
    const anthropic = client();
    expect((await anthropic.messages.create(HELLO)).content).toEqual([{ type: 'text', text: 'first' }]);
    expect((await anthropic.messages.create(HELLO)).content).toEqual([{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
    expect(api.pending()).toBe(0);
  });

  it('is reachable through ANTHROPIC_BASE_URL', async () => {
    vi.stubEnv('ANTHROPIC_BASE_URL', api.url);
    api.script({ kind: 'text', text: 'via env' });
    const anthropic = new Anthropic({ apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });
    expect((await anthropic.messages.create(HELLO)).content).toEqual([{ type: 'text', text: 'via env' }]);
  });

  it('sends a delayed reply that arrives within the timeout', async () => {
    api.script({ kind: 'slow', delayMs: 30, then: { kind: 'text', text: 'late but fine' } });
    const message = await client().messages.create(HELLO, { timeout: 5_000 });
    expect(message.content).toEqual([{ type: 'text', text: 'late but fine' }]);
  });
});

describe('the SDK against scripted failures', () => {
  it('retries a 429 after retry-after and succeeds on the next step', async () => {
    api.script(
      { kind: 'status', status: 429, retryAfter: RETRY_AFTER_S },
      { kind: 'text', text: 'after the rate limit' },
    );
    const message = await client({ maxRetries: 1 }).messages.create(HELLO);
    expect(message.content).toEqual([{ type: 'text', text: 'after the rate limit' }]);
    expect(api.requests.map((request) => request.status)).toEqual([429, 200]);
    expect(api.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('raises RateLimitError once its retries are used up', async () => {
    api.script(
      { kind: 'status', status: 429, retryAfter: RETRY_AFTER_S },
      { kind: 'status', status: 429, retryAfter: RETRY_AFTER_S, message: 'slow down' },
    );
    const error = await rejection(client({ maxRetries: 1 }).messages.create(HELLO));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', apiMessage: 'slow down' });
    expect((error as RateLimitError).headers?.get('retry-after')).toBe(String(RETRY_AFTER_S));
    expect(api.requests).toHaveLength(2);
  });

  it.each([
    [500, 'api_error', InternalServerError],
    [529, 'overloaded_error', OverloadedError],
  ] as const)('retries a %i (%s) and succeeds on the next step', async (status, type, ErrorClass) => {
    api.script({ kind: 'status', status, retryAfter: RETRY_AFTER_S }, { kind: 'text', text: 'recovered' });
    const message = await client({ maxRetries: 1 }).messages.create(HELLO);
    expect(message.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(api.requests.map((request) => request.status)).toEqual([status, 200]);

    // Without retries left the same status surfaces as its error class.
    api.script({ kind: 'status', status });
    const error = await rejection(client({ maxRetries: 0 }).messages.create(HELLO));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status, type });
    expect(api.requests).toHaveLength(3);
  });

  it('does not retry a 413: ContentTooLargeError on the first answer', async () => {
    api.script({ kind: 'status', status: 413, retryAfter: RETRY_AFTER_S }, { kind: 'text', text: 'never reached' });
    const error = await rejection(client({ maxRetries: 2 }).messages.create(HELLO));
    expect(error).toBeInstanceOf(ContentTooLargeError);
    expect(error).toMatchObject({ status: 413, type: 'request_too_large' });
    expect(api.requests).toHaveLength(1);
    expect(api.pending()).toBe(1);
  });

  it('retries any status the server marks x-should-retry: true, even a 413', async () => {
    api.script(
      { kind: 'status', status: 413, retryAfter: RETRY_AFTER_S, headers: { 'x-should-retry': 'true' } },
      { kind: 'text', text: 'retried' },
    );
    expect((await client({ maxRetries: 1 }).messages.create(HELLO)).content).toEqual([
      { type: 'text', text: 'retried' },
    ]);
    expect(api.requests.map((request) => request.status)).toEqual([413, 200]);
  });

  it('raises APIConnectionError when the socket is dropped and no retries are left', async () => {
    api.script({ kind: 'drop' });
    const error = await rejection(client({ maxRetries: 0 }).messages.create(HELLO));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionError).status).toBeUndefined();
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]?.status).toBeNull();
  });

  it('records a request the SDK aborts (its signal) as aborted, one the server drops as not', async () => {
    api.script({ kind: 'hang' }, { kind: 'drop' });
    const abort = new AbortController();
    const hanging = rejection(client().messages.create(HELLO, { signal: abort.signal }));
    await vi.waitFor(() => expect(api.requests).toHaveLength(1));
    abort.abort();
    await hanging;
    await vi.waitFor(() => expect(api.requests[0]?.aborted).toBe(true));
    expect(api.requests[0]?.status).toBeNull();
    await rejection(client().messages.create(HELLO));
    expect(api.requests[1]).toMatchObject({ status: null, aborted: false });
  });

  it('retries a dropped connection (default backoff, no retry-after) and succeeds', async () => {
    api.script({ kind: 'drop' }, { kind: 'text', text: 'second try' });
    expect((await client({ maxRetries: 1 }).messages.create(HELLO)).content).toEqual([
      { type: 'text', text: 'second try' },
    ]);
    expect(api.requests.map((request) => request.status)).toEqual([null, 200]);
  });

  it('raises a plain SyntaxError (not an SDK error, not retried) for a 200 whose JSON body is malformed', async () => {
    api.script({ kind: 'malformed' }, { kind: 'text', text: 'never reached' });
    const error = await rejection(client({ maxRetries: 2 }).messages.create(HELLO));
    expect(error).toBeInstanceOf(SyntaxError);
    expect(error).not.toBeInstanceOf(Anthropic.AnthropicError);
    expect(api.requests).toHaveLength(1);
  });

  it('resolves to the raw text, raising nothing, for a 200 non-JSON body labelled text/plain', async () => {
    api.script({ kind: 'malformed', body: 'upstream said hi', contentType: 'text/plain' });
    const result: unknown = await client().messages.create(HELLO);
    expect(result).toBe('upstream said hi');
  });

  it('raises APIConnectionTimeoutError when the reply is slower than the timeout option', async () => {
    api.script({ kind: 'slow', delayMs: 10_000, then: { kind: 'text', text: 'too late' } });
    const started = Date.now();
    const error = await rejection(client({ maxRetries: 0 }).messages.create(HELLO, { timeout: 100 }));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(api.requests).toHaveLength(1);
  });
});

describe('request validation', () => {
  async function rejected(body: MessageCreateParamsNonStreaming, pattern: RegExp): Promise<void> {
    api.script({ kind: 'text', text: 'must not be consumed' });
    const error = await rejection(client({ maxRetries: 2 }).messages.create(body));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect((error as BadRequestError).apiMessage).toMatch(pattern);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]?.problems.some((problem) => pattern.test(problem))).toBe(true);
    expect(api.requests[0]?.step).toBeNull();
    expect(api.pending()).toBe(1);
  }

  it('rejects roles that do not alternate', async () => {
    await rejected(
      params([
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
      ]),
      /messages\[1\]\.role: roles must alternate/,
    );
  });

  it('rejects a conversation that starts with the assistant', async () => {
    await rejected(
      params([{ role: 'assistant', content: 'hi' }]),
      /messages\[0\]\.role: the first message must use the "user" role/,
    );
  });

  it('rejects an orphan tool_result', async () => {
    await rejected(
      params([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_ghost', content: 'x' }] },
      ]),
      /messages\[2\]: unexpected tool_result for tool_use id "toolu_ghost".*orphan tool_result/,
    );
  });

  it('rejects an unanswered tool_use', async () => {
    await rejected(
      params([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: {} }] },
        { role: 'user', content: 'never mind' },
      ]),
      /messages\[1\]: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a \(unanswered tool_use/,
    );
  });

  it('rejects a tool_use left unanswered at the end of the conversation', async () => {
    await rejected(
      params([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_end', name: 'Bash', input: {} }] },
      ]),
      /toolu_end \(unanswered tool_use; the conversation ends after this message\)/,
    );
  });

  it('rejects an empty text block', async () => {
    await rejected(
      params([{ role: 'user', content: [{ type: 'text', text: '' }] }]),
      /messages\[0\]\.content\[0\]: text content blocks must be non-empty/,
    );
  });

  it('passes a valid multi-turn tool conversation', async () => {
    expect(validateMessagesRequest(params(TOOL_CONVERSATION))).toEqual([]);
    api.script({ kind: 'text', text: 'You are welcome.' });
    const message = await client().messages.create(
      params(TOOL_CONVERSATION, {
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        tools: [
          { name: 'Read', input_schema: { type: 'object' } },
          { name: 'Edit', input_schema: { type: 'object' } },
        ],
      }),
    );
    expect(message.content).toEqual([{ type: 'text', text: 'You are welcome.' }]);
    expect(api.requests[0]?.problems).toEqual([]);
  });

  it('answers a non-JSON body 400 and reports it', async () => {
    const response = await fetch(`${api.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'body: not valid JSON' },
    });
    expect(api.requests[0]).toMatchObject({ body: null, raw: '{nope', problems: ['body: not valid JSON'] });
  });

  it('with strict: false, records the problems but answers the scripted step', async () => {
    await api.close();
    api = await startMessagesApi({ strict: false });
    api.script({ kind: 'text', text: 'lenient' });
    const message = await client().messages.create(params([{ role: 'user', content: [{ type: 'text', text: ' ' }] }]));
    expect(message.content).toEqual([{ type: 'text', text: 'lenient' }]);
    expect(api.requests[0]?.problems).toEqual([
      'messages[0].content[0]: text content blocks must contain non-whitespace text',
    ]);
  });
});

describe('auth', () => {
  it('accepts x-api-key', async () => {
    // This SDK sends even apiKey as "Authorization: Bearer"; send x-api-key alone via headers.
    const anthropic = client({ defaultHeaders: { 'x-api-key': 'key-in-header', Authorization: null } });
    expect((await anthropic.messages.create(HELLO)).content).toEqual([{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
    expect(api.requests[0]?.headers['x-api-key']).toBe('key-in-header');
    expect(api.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts Authorization: Bearer from the authToken option', async () => {
    const anthropic = new Anthropic({ authToken: 'token-abc', baseURL: api.url, maxRetries: 0, logLevel: 'off' });
    expect((await anthropic.messages.create(HELLO)).content).toEqual([{ type: 'text', text: DEFAULT_REPLY_TEXT }]);
    expect(api.requests[0]?.headers.authorization).toBe('Bearer token-abc');
    expect(api.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('sees the apiKey option as Authorization: Bearer too (SDK 1.15.0)', async () => {
    await client({ apiKey: 'key-opt' }).messages.create(HELLO);
    expect(api.requests[0]?.headers.authorization).toBe('Bearer key-opt');
    expect(api.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('answers 401 authentication_error without either header, not retried and consuming no step', async () => {
    api.script({ kind: 'text', text: 'must not be consumed' });
    const error = await rejection(
      client({ maxRetries: 2, defaultHeaders: { Authorization: null } }).messages.create(HELLO),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' });
    expect(api.requests).toHaveLength(1);
    expect(api.pending()).toBe(1);
  });
});

describe('validateMessagesRequest', () => {
  it('checks the top-level fields', () => {
    expect(validateMessagesRequest(null)).toEqual(['body: expected a JSON object, got null']);
    const problems = validateMessagesRequest({ model: 3, max_tokens: 0, messages: [] });
    expect(problems).toEqual([
      'model: expected a non-empty string, got number 3',
      'max_tokens: expected a positive integer, got number 0',
      'messages: expected a non-empty array, got an empty array',
    ]);
    expect(validateMessagesRequest({ ...HELLO, max_tokens: 1.5 })).toEqual([
      'max_tokens: expected a positive integer, got number 1.5',
    ]);
    expect(validateMessagesRequest({ ...HELLO, system: [{ type: 'image', source: {} }] })).toEqual([
      'system[0]: system blocks must be text blocks, got type "image"',
    ]);
    expect(validateMessagesRequest({ ...HELLO, system: 'Be brief.' })).toEqual([]);
  });

  it('checks message and block shapes', () => {
    const check = (messages: unknown[]): string[] =>
      validateMessagesRequest({ model: MODEL, max_tokens: 10, messages });
    expect(check([{ role: 'system', content: 'x' }])).toEqual([
      'messages[0].role: expected "user" or "assistant", got "system"',
    ]);
    expect(check([{ role: 'user', content: [] }])).toEqual([
      'messages[0].content: expected a non-empty array of content blocks (or a string)',
    ]);
    expect(check([{ role: 'user', content: [{ type: 'video' }] }])[0]).toMatch(
      /^messages\[0\]\.content\[0\]\.type: unknown block type "video"/,
    );
    expect(check([{ role: 'user', content: [{ type: 'image' }] }])[0]).toMatch(
      /^messages\[0\]\.content\[0\]: image block needs a "source" object/,
    );
    expect(
      check([
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }],
        },
      ]),
    ).toEqual([]);
    expect(
      check([{ role: 'user', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] }]),
    ).toContain(
      'messages[0].content[0]: tool_use blocks are only allowed in assistant messages, not in a user message',
    );
    expect(
      check([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'bad id', name: '', input: [] }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'bad id' }] },
      ]),
    ).toEqual([
      'messages[1].content[0].id: tool_use id "bad id" must match ^[a-zA-Z0-9_-]+$',
      'messages[1].content[0].name: tool_use needs a non-empty string "name", got ""',
      'messages[1].content[0].input: tool_use "input" must be an object, got an array',
    ]);
    expect(
      check([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_use' }], is_error: 'yes' },
          ],
        },
      ]),
    ).toEqual([
      'messages[2].content[1]: tool_result blocks must come first in their message, before any other block',
      'messages[2].content[1].content[0].type: "tool_use" is not allowed in tool_result content (text, image, document, search_result)',
      'messages[2].content[1].is_error: expected a boolean, got "yes"',
    ]);
    expect(check([{ role: 'user', content: [{ type: 'thinking', thinking: 'x' }] }])).toEqual([
      'messages[0].content[0]: thinking blocks are only allowed in assistant messages',
      'messages[0].content[0].signature: thinking block needs a string "signature", got nothing',
    ]);
    expect(
      check([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'abc' },
            { type: 'tool_result', tool_use_id: 'toolu_x' },
          ],
        },
      ]),
    ).toEqual([
      'messages[1].content[1]: tool_result blocks are only allowed in user messages, not in an assistant message',
      'messages[1].content[1]: tool_result blocks must come first in their message, before any other block',
    ]);
    expect(check([{ role: 'user', content: '' }])).toEqual([
      'messages[0].content: all messages must have non-empty content except for the optional final assistant message',
    ]);
    expect(
      check([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Sure ' },
      ]),
    ).toEqual(['messages[1].content: final assistant content cannot end with trailing whitespace']);
  });

  it('checks tool_use ids across the conversation', () => {
    const use = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] });
    const result = (...ids: string[]) => ({
      role: 'user',
      content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })),
    });
    const check = (messages: unknown[]): string[] =>
      validateMessagesRequest({ model: MODEL, max_tokens: 10, messages });
    expect(
      check([{ role: 'user', content: 'go' }, use('toolu_1'), result('toolu_1'), use('toolu_1'), result('toolu_1')]),
    ).toEqual(['messages[3].content[0].id: tool_use ids must be unique, "toolu_1" is used twice']);
    expect(check([{ role: 'user', content: 'go' }, use('toolu_1'), result('toolu_1', 'toolu_1')])).toEqual([
      'messages[2].content[1]: duplicate tool_result for tool_use id "toolu_1"',
    ]);
    // A result answering a tool_use two messages back is an orphan, and that tool_use is unanswered.
    const stale = check([
      { role: 'user', content: 'go' },
      use('toolu_1'),
      { role: 'user', content: 'wait' },
      { role: 'assistant', content: 'ok' },
      result('toolu_1'),
    ]);
    expect(stale).toHaveLength(2);
    expect(stale[0]).toMatch(
      /^messages\[1\]: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
    );
    expect(stale[1]).toMatch(/^messages\[4\]: unexpected tool_result for tool_use id "toolu_1"/);
  });

  it('checks context_management', () => {
    const check = (cm: unknown): string[] => validateMessagesRequest({ ...HELLO, context_management: cm });
    expect(
      check({
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 150_000 },
            keep: { type: 'tool_uses', value: 5 },
            clear_at_least: { type: 'input_tokens', value: 14_000 },
            exclude_tools: ['Read'],
          },
        ],
      }),
    ).toEqual([]);
    expect(check({ edits: [{ type: 'clear_tool_uses_20250919' }] })).toEqual([]);
    expect(check({ edits: [{ type: 'clear_everything' }] })).toEqual([
      'context_management.edits[0].type: expected "clear_tool_uses_20250919", got "clear_everything"',
    ]);
    expect(
      check({
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            keep: { type: 'input_tokens', value: 5 },
            exclude_tools: 'Read',
            keep_tool_uses: 3,
          },
        ],
      }),
    ).toEqual([
      'context_management.edits[0].keep_tool_uses: unknown field of clear_tool_uses_20250919',
      'context_management.edits[0].keep: expected {type: "tool_uses", value: integer >= 0}, got {"type":"input_tokens","value":5}',
      'context_management.edits[0].exclude_tools: expected an array of tool names, got "Read"',
    ]);
    expect(
      check({ edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1.5 } }] })[0],
    ).toMatch(/^context_management\.edits\[0\]\.trigger: expected/);
    expect(check([])).toEqual(['context_management: expected {edits: [...]}, got an array']);
    expect(check({ edits: {} })).toEqual(['context_management.edits: expected an array, got an object']);
  });
});
