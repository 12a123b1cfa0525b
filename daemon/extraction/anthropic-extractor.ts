/**
 * The anthropic session-memory summarizer: asks `MEMD_MODEL` (default claude-haiku-4-5) to update
 * the notes with the messages since the last extraction. The prompt and template are a fixed
 * prefix marked for prompt caching; big tool results are cut as micro-compaction cuts them. A reply
 * that lost a heading or its italic description line is rejected and asked for once more, then
 * the offline summary is used. API failures (after the SDK's retries) are thrown: the job is
 * retried later.
 */
import type { ContentBlock } from '../../shared/protocol/messages.js';
import { lazyMessagesClient, replyText } from '../llm/anthropic-client.js';
import type { ConversationMessage } from '../transcripts/messages.js';

/** DESIGN.md §5 / issue 5: a summarizer call gives up after 60 s. */
export const MEMORY_TIMEOUT_MS = 60_000;
/** Retries of 429, 5xx and overloaded answers (the SDK honours retry-after). */
export const MEMORY_MAX_RETRIES = 3;
/** The notes are at most 12,000 tokens; room for them and a little more. */
export const MEMORY_MAX_TOKENS = 16_000;
/** What the model sees of one tool result, as micro-compaction's preview. */
export const TOOL_RESULT_PREVIEW_CHARS = 2_000;
/** Replies that lost the template's structure are asked for once more. */
const STRUCTURE_ATTEMPTS = 2;

export const MEMORY_PROMPT = `You maintain the session memory notes of a coding session: a markdown file that lets the work continue after the conversation is compacted.

Update the notes in <current_notes> with what happened in <new_messages>. Rules:
- Keep every heading and the italic description line under it exactly as they are, in the same order. Write content only below the description lines.
- Keep facts that still matter: the task and its changes, files and functions, commands, errors and their fixes, user corrections and rules (quote them verbatim), results, and a worklog with one line per turn.
- Stay within about 2,000 tokens per section and 12,000 in all; shorten the oldest worklog lines first.
- Reply with the complete updated notes and nothing else.

The template the notes follow:
`;

export interface MemoryUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface MemorySummaryInput {
  /** Messages since the last extraction (all of them for the first). */
  messages: readonly ConversationMessage[];
  /** summary.md as it is now, or null for the first extraction. */
  previous: string | null;
  template: string;
  /** The prompt override (`<claude root>/session-memory/config/prompt.md`), else MEMORY_PROMPT. */
  prompt?: string;
  signal?: AbortSignal;
}

export interface MemorySummary {
  text: string;
  summarizer: 'offline' | 'anthropic';
  /** Tokens the model call used (null for offline). */
  usage: MemoryUsage | null;
  /** The model that was asked (null for offline): extraction is priced at its rates. */
  model: string | null;
  /** Replies rejected for a broken structure before this one. */
  rejected: number;
}

export interface AnthropicMemoryOptions {
  apiKey: string;
  model: string;
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** hasAllSections: the reply kept every heading of the template, in order. */
  validate(text: string, template: string): boolean;
}

function blockText(block: ContentBlock): string {
  const record = block as Record<string, unknown>;
  if (block.type === 'text' && typeof record.text === 'string') return record.text;
  if (block.type === 'tool_use') return `[tool_use ${String(record.name)}] ${JSON.stringify(record.input ?? {})}`;
  if (block.type === 'tool_result') {
    const content = record.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content
              .map((inner) =>
                typeof (inner as { text?: unknown }).text === 'string' ? (inner as { text: string }).text : '',
              )
              .join('\n')
          : '';
    const cut =
      text.length > TOOL_RESULT_PREVIEW_CHARS
        ? `${text.slice(0, TOOL_RESULT_PREVIEW_CHARS)}\n[... ${text.length - TOOL_RESULT_PREVIEW_CHARS} more chars]`
        : text;
    return `[tool_result${record.is_error === true ? ' error' : ''}] ${cut}`;
  }
  return '';
}

/** The new messages as plain text, one block per message. */
export function renderMessages(messages: readonly ConversationMessage[]): string {
  return messages
    .map(
      (message) =>
        `${message.role.toUpperCase()}:\n${message.content
          .map(blockText)
          .filter((text) => text !== '')
          .join('\n')}`,
    )
    .join('\n\n');
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export interface AnthropicMemorySummarizer {
  /** `offline` gives the offline summary, used when the model twice breaks the structure. */
  summarize(input: MemorySummaryInput, offline: () => string): Promise<MemorySummary>;
}

export function createAnthropicMemorySummarizer(options: AnthropicMemoryOptions): AnthropicMemorySummarizer {
  const connect = lazyMessagesClient({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    timeoutMs: options.timeoutMs ?? MEMORY_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? MEMORY_MAX_RETRIES,
  });
  return {
    async summarize(input, offline) {
      const sdk = await connect();
      const usage: MemoryUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
      const body = {
        model: options.model,
        max_tokens: MEMORY_MAX_TOKENS,
        // The fixed prefix: the same for every extraction of every session, so it stays cached.
        system: [
          {
            type: 'text',
            text: `${input.prompt ?? MEMORY_PROMPT}${input.template}`,
            cache_control: { type: 'ephemeral' },
          },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `<current_notes>\n${input.previous ?? input.template}\n</current_notes>` },
              { type: 'text', text: `<new_messages>\n${renderMessages(input.messages) || '(none)'}\n</new_messages>` },
            ],
          },
        ],
      };
      for (let attempt = 0; attempt < STRUCTURE_ATTEMPTS; attempt++) {
        const reply = await sdk.messages.create(body, input.signal === undefined ? {} : { signal: input.signal });
        // From the network: unknown until checked.
        const text = replyText(reply.content).trim();
        const used = reply.usage ?? {};
        usage.input += count(used.input_tokens);
        usage.output += count(used.output_tokens);
        usage.cacheRead += count(used.cache_read_input_tokens);
        usage.cacheWrite += count(used.cache_creation_input_tokens);
        if (text !== '' && options.validate(text, input.template))
          return { text: `${text}\n`, summarizer: 'anthropic', usage, model: options.model, rejected: attempt };
      }
      return { text: offline(), summarizer: 'offline', usage, model: options.model, rejected: STRUCTURE_ATTEMPTS };
    },
  };
}
