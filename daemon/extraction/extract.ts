/**
 * One extraction's summary, by the configured summarizer: offline in its worker thread (the
 * default), or the anthropic one, whose conversation is loaded here on the main thread (the wait
 * is the network's) and which falls back to the offline text when the model breaks the structure.
 */
import type { LastExtraction } from '../../shared/transcript/accounting.js';
import { activeConversation } from '../../shared/transcript/conversation.js';
import { attachmentTexts } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { readEntries } from '../transcripts/entries.js';
import { buildMessages, type ConversationMessage } from '../transcripts/messages.js';
import { createSlicer, nextTurn } from '../workers/slices.js';
import type { AnthropicMemorySummarizer, MemorySummary } from './anthropic-extractor.js';
import { createOfflineExtractor } from './offline-extractor.js';
import { offlineSessionMemory } from './offline-summary.js';
import { sessionTitle } from './title.js';
import { triggerState } from './triggers.js';

export interface ExtractRequest {
  sessionId: string;
  /** The daemon's database (the offline worker reads it on its own connection). */
  dbPath: string;
  /** The main transcript. */
  path: string;
  /** Every entry of it, in file order, for summarizers that run on the main thread (loaded in slices). */
  entries(): Promise<IndexedEntry[]>;
  lastExtraction: LastExtraction | null;
  /** The last message the previous extraction covered; null for the first. */
  sinceUuid: string | null;
  previous: string | null;
  template: string;
  prompt?: string;
  signal: AbortSignal;
}

export interface Extracted extends MemorySummary {
  /** The last entry the summary covers. */
  lastUuid: string | null;
  lastOffset: number | null;
  /** The session's context tokens now (the next extraction's baseline). */
  contextTokens: number;
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
        const { dbPath, sessionId, previous, template, lastExtraction } = request;
        const done = await offline.run({ dbPath, sessionId, previous, template, lastExtraction }, request.signal);
        return { ...done, summarizer: 'offline', usage: null, model: null, rejected: 0, untagged: 0 };
      }
      const entries = await request.entries();
      await nextTurn();
      const loaded = await readEntries(request.path, activeConversation(entries).entries, createSlicer(request.signal));
      // The whole conversation goes: its start is the prefix cached by the previous extraction.
      const messages = buildMessages(loaded, attachmentTexts);
      const covered = messages.length - messagesSince(messages, request.sinceUuid).length;
      const fallback = () =>
        offlineSessionMemory({
          loaded,
          previous: request.previous,
          template: request.template,
          title: sessionTitle(entries),
        });
      const result = await anthropic.summarize(
        {
          messages,
          covered,
          previous: request.previous,
          template: request.template,
          ...(request.prompt === undefined ? {} : { prompt: request.prompt }),
          signal: request.signal,
        },
        fallback,
      );
      const last = loaded.at(-1)?.entry ?? null;
      const { contextTokens } = triggerState(entries, request.lastExtraction);
      return { ...result, lastUuid: last?.uuid ?? null, lastOffset: last?.offset ?? null, contextTokens };
    },
    close: () => offline.close(),
  };
}
