/**
 * Turns one parsed transcript line into its index row. Every field is read defensively: lines
 * come from files that other programs write, so nothing about their shape is trusted.
 */

import { redactSecrets } from '../text/redact.js';
import { isRecord } from '../values.js';
import { commandTitle, promptTitle } from './prompt-text.js';
import { isBadTimestamp, normalTimestamp } from './timestamp.js';
import { measureEntry } from './tokens.js';
import type { CompactBoundary, IndexedEntry, PreservedSegment, ToolResult, ToolUse, Usage } from './types.js';

type Json = Record<string, unknown>;

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function numOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * A response's usage. Cache writes: when the response splits them (`cache_creation`'s
 * `ephemeral_5m_input_tokens` + `ephemeral_1h_input_tokens`), the split is the figure, whatever
 * `cache_creation_input_tokens` says. Claude Code before 2.1.152 wrote some lines with that total 0
 * and the value only in the split; ccusage 20.0.24 counts the split's sum whenever the object is there
 * (measured on such lines, and on lines where the two disagree), and memd's usage must equal it. The
 * total stands only when there is no split.
 */
export function parseUsage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const split = isRecord(value.cache_creation) ? value.cache_creation : null;
  const cache5m = num(split?.ephemeral_5m_input_tokens);
  const cache1h = num(split?.ephemeral_1h_input_tokens);
  return {
    input: num(value.input_tokens),
    output: num(value.output_tokens),
    cacheCreation: split === null ? num(value.cache_creation_input_tokens) : cache5m + cache1h,
    cacheRead: num(value.cache_read_input_tokens),
    cache5m,
    cache1h,
  };
}

function blocksOf(message: Json | null): Json[] {
  const content = message?.content;
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function toolUsesOf(blocks: Json[]): ToolUse[] {
  const uses: ToolUse[] = [];
  for (const block of blocks) {
    if (block.type !== 'tool_use') continue;
    const id = str(block.id);
    if (id !== null) uses.push({ id, name: str(block.name) ?? '' });
  }
  return uses;
}

function toolResultsOf(blocks: Json[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (const block of blocks) {
    if (block.type !== 'tool_result') continue;
    const id = str(block.tool_use_id);
    if (id !== null) results.push({ id, isError: block.is_error === true });
  }
  return results;
}

function preservedSegmentOf(value: unknown): PreservedSegment | null {
  if (!isRecord(value)) return null;
  const headUuid = str(value.headUuid);
  const anchorUuid = str(value.anchorUuid);
  const tailUuid = str(value.tailUuid);
  return headUuid === null || anchorUuid === null || tailUuid === null ? null : { headUuid, anchorUuid, tailUuid };
}

function compactOf(entry: Json): CompactBoundary | null {
  if (entry.type !== 'system' || entry.subtype !== 'compact_boundary') return null;
  const meta = isRecord(entry.compactMetadata) ? entry.compactMetadata : {};
  return {
    trigger: str(meta.trigger) ?? 'unknown',
    preTokens: numOrNull(meta.preTokens),
    postTokens: numOrNull(meta.postTokens),
    preservedSegment: preservedSegmentOf(meta.preservedSegment),
  };
}

function titleOf(entry: Json, message: Json | null): IndexedEntry['title'] {
  switch (entry.type) {
    case 'custom-title': {
      const value = str(entry.customTitle) ?? str(entry.title);
      return value === null ? null : { kind: 'custom', value };
    }
    case 'ai-title': {
      const value = str(entry.aiTitle) ?? str(entry.title);
      return value === null ? null : { kind: 'ai', value };
    }
    case 'summary': {
      const value = str(entry.summary);
      const leafUuid = str(entry.leafUuid);
      return value === null || leafUuid === null ? null : { kind: 'summary', value, leafUuid };
    }
    case 'user': {
      if (entry.isMeta === true || entry.isCompactSummary === true || entry.isSidechain === true) return null;
      const value = promptTitle(message?.content);
      if (value !== null) return { kind: 'prompt', value };
      const command = commandTitle(message?.content);
      return command === null ? null : { kind: 'command', value: command };
    }
    default:
      return null;
  }
}

/** Titles name the session wherever it is listed: stored redacted (issue 27), as the prompt's already is. */
function redactedTitle(title: IndexedEntry['title']): IndexedEntry['title'] {
  return title === null ? null : { ...title, value: redactSecrets(title.value) };
}

/** A sub-agent's API response as its `agent_progress` entry in the main transcript carries it. */
interface NestedResponse {
  messageId: string | null;
  requestId: string | null;
  model: string | null;
  usage: Usage | null;
  timestamp: string | null;
}

/**
 * Claude Code 2.1.3x-2.1.4x also writes each entry of a sub-agent into the main transcript, as a
 * `progress` entry whose `data.message` is the sub-agent's entry (`{type, requestId, timestamp,
 * message: {id, model, usage}}`). When the sub-agent's own file is gone (a tool that checkpoints
 * only the main transcript, a copy) these are the only record of its spend; ccusage's daily view
 * counts them, so the index keeps their ids, model, usage and the nested entry's own time (the day
 * ccusage counts them on). Null for any other entry.
 */
function nestedResponseOf(entry: Json): NestedResponse | null {
  if (entry.type !== 'progress' || !isRecord(entry.data) || entry.data.type !== 'agent_progress') return null;
  const nested = entry.data.message;
  if (!isRecord(nested) || nested.type !== 'assistant' || !isRecord(nested.message)) return null;
  const usage = parseUsage(nested.message.usage);
  if (usage === null) return null;
  return {
    messageId: str(nested.message.id),
    requestId: str(nested.requestId),
    model: str(nested.message.model),
    usage,
    timestamp: normalTimestamp(nested.timestamp),
  };
}

/** Returns null when the line is valid JSON but not an object (such lines are counted as bad). */
export function parseEntry(value: unknown, offset: number, length: number): IndexedEntry | null {
  if (!isRecord(value)) return null;
  const type = str(value.type) ?? 'unknown';
  const message = isRecord(value.message) ? value.message : null;
  const blocks = blocksOf(message);
  // Only user, assistant and attachment entries reach the model; the rest measure 0 (DESIGN.md §5).
  const measure = measureEntry(value);
  // Validated once, here: every reader of the index gets a good, canonical timestamp or null (timestamp.ts).
  const nested = nestedResponseOf(value);
  // A nested response's time is its own (ccusage's day); null without one, so that it is not counted.
  const own = normalTimestamp(value.timestamp);
  const timestamp = nested === null ? own : nested.timestamp;
  return {
    offset,
    length,
    type,
    subtype: str(value.subtype),
    uuid: str(value.uuid),
    parentUuid: str(value.parentUuid),
    logicalParentUuid: str(value.logicalParentUuid),
    timestamp,
    ...(isBadTimestamp(type, value.timestamp, own) ? { badTimestamp: true } : {}),
    sessionId: str(value.sessionId),
    chars: measure.chars,
    estTokens: measure.tokens,
    messageId: nested !== null ? nested.messageId : type === 'assistant' ? str(message?.id) : null,
    requestId: nested !== null ? nested.requestId : str(value.requestId),
    model: nested !== null ? nested.model : str(message?.model),
    usage: nested !== null ? nested.usage : type === 'assistant' ? parseUsage(message?.usage) : null,
    toolUses: toolUsesOf(blocks),
    toolResults: toolResultsOf(blocks),
    isSidechain: value.isSidechain === true,
    isMeta: value.isMeta === true,
    isCompactSummary: value.isCompactSummary === true,
    cwd: str(value.cwd),
    gitBranch: str(value.gitBranch),
    title: redactedTitle(titleOf(value, message)),
    compact: compactOf(value),
  };
}
