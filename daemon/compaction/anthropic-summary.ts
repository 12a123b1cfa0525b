/**
 * The compaction summarizer that asks a model: the conversation as it stands, then COMPACT_PROMPT
 * (with any custom instructions) as the last user turn, through @anthropic-ai/sdk
 * (anthropic-client.ts), as Claude Code's own compaction asks: a short system line, the
 * conversation unchanged, the prompt asking for `<analysis>` then `<summary>`. The conversation's
 * last block carries `cache_control`, so that a compaction retried, or asked again with other
 * instructions, reads the conversation from the cache. Timeouts, retries (429, 5xx, overloaded,
 * honouring retry-after) and aborts are the SDK's, set here.
 */
import type { ContentBlock, MessageParam } from '../../shared/protocol/messages.js';
import { lazyMessagesClient, replyText } from '../llm/anthropic-client.js';
import { type RecordCall, tokensOfUsage } from '../llm/spend.js';
import { toMessageParams } from '../transcripts/messages.js';
import { type CompactionSummarizer, compactPrompt } from './summary.js';

/** DESIGN.md §5: summarizer calls time out after 60 s. */
export const SUMMARY_TIMEOUT_MS = 60_000;
/** Retries of 429, 5xx and overloaded answers before the compaction counts as failed. */
export const SUMMARY_MAX_RETRIES = 2;
/** Room for the analysis and the nine sections. */
export const SUMMARY_MAX_TOKENS = 16_000;

/** Who the model is for this call; the task itself is in COMPACT_PROMPT. */
export const SUMMARY_SYSTEM =
  'You summarize a coding conversation so that the work can continue from the summary alone.';

/** Blocks the API takes a cache breakpoint on (thinking blocks and empty text take none). */
const CACHEABLE: ReadonlySet<string> = new Set(['text', 'tool_use', 'tool_result', 'image', 'document']);

const cacheable = (block: ContentBlock) =>
  CACHEABLE.has(block.type) && !(block.type === 'text' && (block as { text?: unknown }).text === '');

/** The conversation with `cache_control` on its last block that takes one: the prefix to cache. */
export function withCachedPrefix(messages: readonly MessageParam[]): MessageParam[] {
  const out = messages.map((message) => ({ ...message }));
  for (let at = out.length - 1; at >= 0; at--) {
    const message = out[at] as MessageParam;
    const content: ContentBlock[] =
      typeof message.content === 'string'
        ? message.content === ''
          ? []
          : [{ type: 'text', text: message.content }]
        : [...message.content];
    const last = content.findLastIndex(cacheable);
    if (last === -1) continue;
    content[last] = { ...(content[last] as ContentBlock), cache_control: { type: 'ephemeral' } } as ContentBlock;
    out[at] = { ...message, content };
    return out;
  }
  return out;
}

export interface AnthropicSummarizerOptions {
  apiKey: string;
  model: string;
  /** ANTHROPIC_BASE_URL: the tests' scripted server. */
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** The spend ledger (kind `compaction`): every reply is paid for, a summary refused later too. */
  record?: RecordCall;
}

/** The prompt as the last user turn; a conversation ending with a user message gets it appended. */
export function summaryRequestMessages(messages: MessageParam[], instructions?: string): MessageParam[] {
  const prompt = { type: 'text' as const, text: compactPrompt(instructions) };
  const last = messages.at(-1);
  if (last?.role !== 'user') return [...messages, { role: 'user', content: [prompt] }];
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: 'user', content: [...content, prompt] }];
}

export function createAnthropicCompactionSummarizer(options: AnthropicSummarizerOptions): CompactionSummarizer {
  const connect = lazyMessagesClient({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    timeoutMs: options.timeoutMs ?? SUMMARY_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? SUMMARY_MAX_RETRIES,
  });
  return {
    async summarize(input) {
      const sdk = await connect();
      const reply = await sdk.messages.create(
        {
          model: options.model,
          max_tokens: SUMMARY_MAX_TOKENS,
          system: SUMMARY_SYSTEM,
          messages: summaryRequestMessages(withCachedPrefix(toMessageParams(input.messages)), input.instructions),
        },
        input.signal === undefined ? {} : { signal: input.signal },
      );
      options.record?.({
        kind: 'compaction',
        sessionId: input.sessionId ?? null,
        model: options.model,
        tokens: tokensOfUsage(reply.usage),
      });
      // The reply comes from the network: unknown until it is a non-empty text.
      const text = replyText(reply.content).trim();
      if (text === '') throw new Error('the model returned no summary text');
      return text;
    },
  };
}
