/** What the index keeps of one transcript line (one JSON object written by Claude Code). */

import type { TokenCounts } from '../protocol/tokens.js';

/** Token usage of one API response, as Claude Code records it on assistant entries: the name the transcript code reads a response's `usage` by. */
export type Usage = TokenCounts;

export interface ToolUse {
  id: string;
  name: string;
}

export interface ToolResult {
  id: string;
  isError: boolean;
}

/**
 * The messages a compaction kept verbatim (compactMetadata.preservedSegment). They stay where they
 * were in the file, before the boundary; Claude Code splices them back in after `anchorUuid` (the
 * summary) when it loads the transcript. Null when the compaction kept nothing.
 */
export interface PreservedSegment {
  headUuid: string;
  anchorUuid: string;
  tailUuid: string;
}

export interface CompactBoundary {
  trigger: 'manual' | 'auto' | string;
  preTokens: number | null;
  /** Not written by every Claude Code version; null when absent. */
  postTokens: number | null;
  preservedSegment: PreservedSegment | null;
}

export type TitleKind = 'custom' | 'ai' | 'summary' | 'prompt' | 'command';

export interface EntryTitle {
  kind: TitleKind;
  value: string;
  /** A `summary` title's leafUuid: the last message of the conversation it names. */
  leafUuid?: string;
}

/** One indexed line. Message content stays in the transcript; `offset`/`length` find it again. */
export interface IndexedEntry {
  /** Byte offset of the line's first byte in its file. */
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
  type: string;
  subtype: string | null;
  uuid: string | null;
  parentUuid: string | null;
  logicalParentUuid: string | null;
  /** Good and canonical (timestamp.ts), or null: missing or a bad value. */
  timestamp: string | null;
  /** The line's timestamp was a bad value (timestamp.ts): counted with the file's bad timestamps. */
  badTimestamp?: true;
  sessionId: string | null;
  /** Characters of the content that reaches the model (see tokens.ts); 0 for bookkeeping entries. */
  chars: number;
  /**
   * Claude Code's rough estimate of those characters: length / 4 rounded to nearest, per content
   * block, summed (tokens.ts). So it can differ from chars / 4 by the rounding of each block.
   */
  estTokens: number;
  messageId: string | null;
  requestId: string | null;
  model: string | null;
  usage: Usage | null;
  toolUses: ToolUse[];
  toolResults: ToolResult[];
  isSidechain: boolean;
  isMeta: boolean;
  isCompactSummary: boolean;
  /** Session facts some entries carry. */
  cwd: string | null;
  gitBranch: string | null;
  /**
   * What the entry says the session is called: custom-title / ai-title entries; a `summary`
   * entry (Claude Code 1.0.x: it names the session that holds `leafUuid`, often written at the
   * top of the next session's file); a user entry that is a typed prompt (prompt-text.ts).
   */
  title: EntryTitle | null;
  compact: CompactBoundary | null;
}
