/**
 * One extraction's summary, by the configured summarizer: offline in its worker thread (the
 * default), or the anthropic one, whose conversation is loaded here on the main thread (the wait
 * is the network's) and which falls back to the offline text when the model breaks the structure.
 */
import { activeConversation } from '../../shared/transcript/conversation.js';
import { attachmentTexts } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { loadEntries } from '../compact/content.js';
import { buildMessages, type ConversationMessage } from '../compact/messages.js';
import type { AnthropicMemorySummarizer, MemorySummary } from '../summarize/anthropic-memory.js';
import { offlineSessionMemory } from '../summarize/offline-memory.js';
import { createOfflineExtractor } from './offline-extractor.js';

export interface ExtractRequest {
  /** The main transcript. */
  path: string;
  /** Every entry of it, in file order. */
  entries: IndexedEntry[];
  /** The last message the previous extraction covered; null for the first. */
  sinceUuid: string | null;
  previous: string | null;
  template: string;
  prompt?: string;
  title: string | null;
  signal: AbortSignal;
}

export interface Extracted extends MemorySummary {
  /** The last entry the summary covers. */
  lastUuid: string | null;
  lastOffset: number | null;
}

export interface Extractor {
  run(request: ExtractRequest): Promise<Extracted>;
  close(): Promise<void>;
}

/** The messages after the one holding `uuid` (all when it is not found). */
export function messagesSince(messages: readonly ConversationMessage[], uuid: string | null): ConversationMessage[] {
  if (uuid === null) return [...messages];
  const at = messages.findIndex((message) => message.uuids.includes(uuid));
  return at === -1 ? [...messages] : messages.slice(at + 1);
}

export function createExtractor(anthropic: AnthropicMemorySummarizer | null): Extractor {
  const offline = createOfflineExtractor();
  return {
    async run(request) {
      if (anthropic === null) {
        const { path, entries, previous, template, title } = request;
        const done = await offline.run({ path, entries, previous, template, title }, request.signal);
        return { ...done, summarizer: 'offline', usage: null, model: null, rejected: 0 };
      }
      const loaded = loadEntries(request.path, activeConversation(request.entries).entries);
      const messages = messagesSince(buildMessages(loaded, attachmentTexts), request.sinceUuid);
      const fallback = () => offlineSessionMemory({ loaded, previous: request.previous, template: request.template, title: request.title });
      const result = await anthropic.summarize(
        { messages, previous: request.previous, template: request.template, ...(request.prompt === undefined ? {} : { prompt: request.prompt }), signal: request.signal },
        fallback,
      );
      const last = loaded.at(-1)?.entry ?? null;
      return { ...result, lastUuid: last?.uuid ?? null, lastOffset: last?.offset ?? null };
    },
    close: () => offline.close(),
  };
}
