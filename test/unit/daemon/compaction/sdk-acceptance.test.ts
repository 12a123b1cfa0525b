/**
 * Every compaction method's result is accepted by the real @anthropic-ai/sdk messages.create
 * against the scripted Messages API server, which checks the request body's shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCacheEdits } from '../../../../daemon/compaction/cache-edits.js';
import { planMicro } from '../../../../daemon/compaction/micro.js';
import { createOfflineCompactionSummarizer } from '../../../../daemon/compaction/offline-summary.js';
import { reactiveCompaction } from '../../../../daemon/compaction/reactive.js';
import { sessionMemoryCompaction } from '../../../../daemon/compaction/session-memory.js';
import { summaryCompaction } from '../../../../daemon/compaction/summary.js';
import type { SessionConversation } from '../../../../daemon/transcripts/conversation.js';
import {
  type ConversationMessage,
  estimateMessageTokens,
  toMessageParams,
} from '../../../../daemon/transcripts/messages.js';
import type { MessageParam } from '../../../../shared/protocol/messages.js';
import { ingestFixture } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';
import { type MessagesApi, startMessagesApi } from '../../../helpers/messages-api.js';

let api: MessagesApi;
let client: Anthropic;

beforeAll(async () => {
  api = await startMessagesApi();
  client = new Anthropic({ apiKey: 'test-key', baseURL: api.url, maxRetries: 0 });
});

afterAll(async () => {
  await api.close();
});

/** A request as a client would send the result: the compacted messages and a new prompt. */
async function send(messages: MessageParam[], extra: Record<string, unknown> = {}): Promise<void> {
  const body = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: nextTurn(messages), ...extra };
  await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
  const last = api.requests.at(-1);
  expect(last?.problems).toEqual([]);
  expect(last?.status).toBe(200);
}

/** The next user turn after the compacted messages (roles must alternate). */
function nextTurn(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (last?.role === 'user')
    return [
      ...messages.slice(0, -1),
      { role: 'user', content: [...asBlocks(last.content), { type: 'text', text: 'Go on.' }] },
    ];
  return [...messages, { role: 'user', content: 'Go on.' }];
}

function asBlocks(content: MessageParam['content']): Exclude<MessageParam['content'], string> {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

describe.each(SCENARIOS)('the SDK accepts every result for %s', (scenario) => {
  let messages: ConversationMessage[];
  let conversation: SessionConversation;
  let close: () => void;

  beforeAll(async () => {
    const fixture = await ingestFixture(scenario);
    conversation = fixture.conversation();
    messages = conversation.messages;
    close = () => fixture.close();
  });

  it('micro', async () => {
    const plan = planMicro(messages, conversation.loaded, {
      now: Date.parse('2026-12-01T00:00:00Z'),
      toolResultsDir: '/tmp/unused',
      maxResultChars: 1_000,
      keepRecent: 1,
      minSavingsTokens: 0,
    });
    await send(toMessageParams(plan.messages));
  });

  it('session memory', async () => {
    const result = sessionMemoryCompaction(messages, {
      memory: '# Session Title\n_t_\n\nWork\n',
      lastSummarizedUuid: null,
    });
    await send(toMessageParams(result?.messages ?? []));
  });

  it('summary', async () => {
    const result = await summaryCompaction(conversation, createOfflineCompactionSummarizer());
    await send(toMessageParams(result.messages));
  });

  afterAll(() => close());

  it('the active conversation as it is', async () => {
    await send(toMessageParams(messages));
  });

  it('reactive', async () => {
    const limit = Math.ceil(estimateMessageTokens(toMessageParams(messages)) * 0.6);
    let result;
    try {
      result = reactiveCompaction(messages, limit);
    } catch {
      result = reactiveCompaction(messages, Number.MAX_SAFE_INTEGER);
    }
    await send(toMessageParams(result.messages));
  });

  it('cache edits, with its context_management parameter', async () => {
    const plan = planCacheEdits(messages, { keep: 1, triggerTokens: 100_000, price: null });
    await send(toMessageParams(messages), { context_management: plan.contextManagement });
  });
});
