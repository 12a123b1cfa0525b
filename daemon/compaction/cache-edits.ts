/**
 * Cache-preserving tool-result clearing (Claude Code's CACHED_MICROCOMPACT), as the public API
 * offers it: `context_management.edits` with `clear_tool_uses_20250919` clears old tool results
 * on the server side, so the cached prompt prefix stays valid. Pure. The plan names the tool uses
 * to clear (all but the `keep` most recent), the tokens that frees, and what it saves beside a
 * plain clearing that rewrites the messages (which breaks the cache from the first cleared
 * result on, so everything after it is written to the cache again).
 */
import type { ContentBlock } from '../../shared/protocol/messages.js';
import type { ModelPrice } from '../../shared/transcript/models.js';
import { roughTokens } from '../../shared/transcript/tokens.js';
import { type ConversationMessage, estimateMessageTokens, toMessageParams } from '../transcripts/messages.js';

/** Claude Code keeps the 5 most recent tool results when it clears (DESIGN.md §5). */
export const DEFAULT_KEEP_TOOL_USES = 5;
/** The API's edit type for clearing tool results. */
export const CLEAR_TOOL_USES = 'clear_tool_uses_20250919';

export interface ClearToolUsesEdit {
  type: typeof CLEAR_TOOL_USES;
  trigger: { type: 'input_tokens'; value: number };
  keep: { type: 'tool_uses'; value: number };
  clear_at_least: { type: 'input_tokens'; value: number };
  exclude_tools?: string[];
}

export interface CacheEconomics {
  /** Prompt tokens that stay cached (read at the cache-read price) on the next request. */
  cachedTokens: number;
  /** Prompt tokens written to the cache again on the next request. */
  rewrittenTokens: number;
}

export interface CacheEditsPlan {
  clear: { toolUseId: string; tool: string; tokens: number }[];
  freedTokens: number;
  /** With the API edit: the prefix stays cached whole. */
  withCacheEdits: CacheEconomics;
  /** Rewriting the messages instead: the cache holds only up to the first cleared result. */
  withPlainClearing: CacheEconomics;
  /** USD the edit saves on the next request, by cache TTL; null when the model has no price. */
  savedUsd: { ttl5m: number; ttl1h: number } | null;
  contextManagement: { edits: ClearToolUsesEdit[] };
}

export interface CacheEditsOptions {
  keep?: number | undefined;
  /** Tools whose results are never cleared. */
  excludeTools?: string[];
  /** Input tokens at which the API should start clearing (the session's auto-compact threshold). */
  triggerTokens: number;
  price: ModelPrice | null;
}

function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce(
    (sum: number, block: unknown) =>
      sum + (typeof (block as { text?: unknown }).text === 'string' ? (block as { text: string }).text.length : 0),
    0,
  );
}

export function planCacheEdits(messages: readonly ConversationMessage[], options: CacheEditsOptions): CacheEditsPlan {
  const keep = options.keep ?? DEFAULT_KEEP_TOOL_USES;
  const excluded = new Set(options.excludeTools ?? []);
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content)
      if (block.type === 'tool_use') toolNames.set((block as { id: string }).id, (block as { name: string }).name);
  }
  // Tool results in conversation order, with the index of the message holding each.
  const results: { toolUseId: string; tool: string; tokens: number; messageIndex: number }[] = [];
  messages.forEach((message, messageIndex) => {
    for (const block of message.content as ContentBlock[]) {
      if (block.type !== 'tool_result') continue;
      const toolUseId = (block as { tool_use_id: string }).tool_use_id;
      const tool = toolNames.get(toolUseId) ?? '';
      if (excluded.has(tool)) continue;
      results.push({
        toolUseId,
        tool,
        tokens: roughTokens(textLength((block as { content?: unknown }).content)),
        messageIndex,
      });
    }
  });
  const cleared = results.slice(0, Math.max(0, results.length - keep));
  const freedTokens = cleared.reduce((sum, result) => sum + result.tokens, 0);
  const total = estimateMessageTokens(toMessageParams(messages));
  const after = Math.max(0, total - freedTokens);
  const firstCleared = cleared[0];
  const prefix =
    firstCleared === undefined
      ? after
      : estimateMessageTokens(toMessageParams(messages.slice(0, firstCleared.messageIndex)));
  const withPlainClearing = { cachedTokens: Math.min(prefix, after), rewrittenTokens: Math.max(0, after - prefix) };
  const withCacheEdits = { cachedTokens: after, rewrittenTokens: 0 };
  const { price } = options;
  const perToken = (usdPerMillion: number) => usdPerMillion / 1_000_000;
  const savedUsd =
    price === null
      ? null
      : {
          ttl5m: withPlainClearing.rewrittenTokens * perToken(price.cacheWrite5m - price.cacheRead),
          ttl1h: withPlainClearing.rewrittenTokens * perToken(price.cacheWrite1h - price.cacheRead),
        };
  const edit: ClearToolUsesEdit = {
    type: CLEAR_TOOL_USES,
    trigger: { type: 'input_tokens', value: options.triggerTokens },
    keep: { type: 'tool_uses', value: keep },
    clear_at_least: { type: 'input_tokens', value: freedTokens },
  };
  if (excluded.size > 0) edit.exclude_tools = [...excluded].sort();
  return {
    clear: cleared.map(({ toolUseId, tool, tokens }) => ({ toolUseId, tool, tokens })),
    freedTokens,
    withCacheEdits,
    withPlainClearing,
    savedUsd,
    contextManagement: { edits: [edit] },
  };
}
