/**
 * The Anthropic Messages API shapes that compaction results are made of (`MessageParam`), as far
 * as memd produces them. Declared here rather than imported from @anthropic-ai/sdk: thin clients
 * type results without loading the SDK. Blocks memd passes through unchanged (images,
 * documents, server tool results) keep their fields as Claude Code wrote them.
 */
import { arrayOf, looseObject, oneOf, type Schema, str, union } from './schema.js';

export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** image, document and other blocks, passed through as written. */
export interface OtherBlock {
  type: string;
  [field: string]: unknown;
}

export type ContentBlock =
  | TextBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | OtherBlock;

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/** A block is checked for its `type` only: OtherBlock makes any typed object a ContentBlock, and clients render by type. */
export const contentBlockSchema: Schema<ContentBlock> = looseObject({ type: str() });

export const messageParamSchema: Schema<MessageParam> = looseObject({
  role: oneOf('user', 'assistant'),
  content: union(str(), arrayOf(contentBlockSchema)),
});
