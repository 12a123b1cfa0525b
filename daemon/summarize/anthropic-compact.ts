/**
 * The compaction summarizer that asks a model: the conversation as it stands, then COMPACT_PROMPT
 * (with any custom instructions) as the last user turn, through @anthropic-ai/sdk. The SDK is
 * loaded on first use, so a daemon on the offline summarizer never loads it. Timeouts, retries
 * (429, 5xx, overloaded, honouring retry-after) and aborts are the SDK's, set here.
 */
import type { MessageParam } from '../../shared/protocol/messages.js';
import { toMessageParams } from '../compact/messages.js';
import { compactPrompt, type CompactionSummarizer } from './compact-summary.js';

/** DESIGN.md §5: summarizer calls time out after 60 s. */
export const SUMMARY_TIMEOUT_MS = 60_000;
/** Retries of 429, 5xx and overloaded answers before the compaction counts as failed. */
export const SUMMARY_MAX_RETRIES = 2;
/** Room for the analysis and the nine sections. */
export const SUMMARY_MAX_TOKENS = 16_000;

export interface AnthropicSummarizerOptions {
  apiKey: string;
  model: string;
  /** ANTHROPIC_BASE_URL: the tests' scripted server. */
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

/** The prompt as the last user turn; a conversation ending with a user message gets it appended. */
export function summaryRequestMessages(messages: MessageParam[], instructions?: string): MessageParam[] {
  const prompt = { type: 'text' as const, text: compactPrompt(instructions) };
  const last = messages.at(-1);
  if (last?.role !== 'user') return [...messages, { role: 'user', content: [prompt] }];
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: 'user', content: [...content, prompt] }];
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((block) => (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text ?? '') : '')).join('');
}

export function createAnthropicCompactionSummarizer(options: AnthropicSummarizerOptions): CompactionSummarizer {
  let client: Promise<{ messages: { create(body: unknown, request: { signal?: AbortSignal }): Promise<{ content: unknown }> } }> | null = null;
  const connect = () =>
    (client ??= import('@anthropic-ai/sdk').then(
      ({ default: Anthropic }) =>
        new Anthropic({
          apiKey: options.apiKey,
          ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
          timeout: options.timeoutMs ?? SUMMARY_TIMEOUT_MS,
          maxRetries: options.maxRetries ?? SUMMARY_MAX_RETRIES,
        }) as unknown as { messages: { create(body: unknown, request: { signal?: AbortSignal }): Promise<{ content: unknown }> } },
    ));
  return {
    async summarize(input) {
      const sdk = await connect();
      const reply = await sdk.messages.create(
        { model: options.model, max_tokens: SUMMARY_MAX_TOKENS, messages: summaryRequestMessages(toMessageParams(input.messages), input.instructions) },
        input.signal === undefined ? {} : { signal: input.signal },
      );
      // The reply comes from the network: unknown until it is a non-empty text.
      const text = textOf(reply.content).trim();
      if (text === '') throw new Error('the model returned no summary text');
      return text;
    },
  };
}
