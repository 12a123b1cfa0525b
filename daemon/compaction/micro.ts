/**
 * Layer 1, micro-compaction (DESIGN.md §5). Pure: no clock, no disk. It rewrites tool_result
 * contents only, never drops or moves a block, so roles and tool pairing stay as they were. In
 * the order Claude Code applies them:
 *   1. MCP results over MAX_MCP_OUTPUT_TOKENS are cut, with a notice (Claude Code cuts them
 *      when the tool returns, before anything else sees them).
 *   2. Results over 50,000 chars are persisted: the model sees Claude Code's `<persisted-output>`
 *      preview and the file holds the full result. Results Claude Code already persisted stay as
 *      they are.
 *   3. Per user message, while its tool results exceed 200,000 chars, the largest go to disk.
 *   4. Old results of tools whose output can be had again are cleared, the 5 most recent kept,
 *      when that saves enough (or, time-based, when the prompt cache has gone cold).
 * The files to write come back in `persist`; tool-results.ts writes them. The texts a result
 * becomes (previews, `<persisted-output>`, the MCP notice) are tool-result-text.ts's.
 */
import { join } from 'node:path';
import type { CompactionAction } from '../../shared/protocol/compaction.js';
import type { ContentBlock, ToolResultBlock } from '../../shared/protocol/messages.js';
import { CHARS_PER_TOKEN, roughTokens } from '../../shared/transcript/tokens.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import type { ConversationMessage } from '../transcripts/messages.js';
import {
  claudePersisted,
  contentChars,
  contentText,
  persistedOutputText,
  previewOf,
  truncateContent,
  truncationNotice,
} from './tool-result-text.js';

export const DEFAULT_MAX_RESULT_CHARS = 50_000; // larger results go to disk
export const DEFAULT_MAX_MESSAGE_CHARS = 200_000; // one message's tool results together; beyond it the largest go to disk
export const DEFAULT_PREVIEW_CHARS = 2_000; // what the model still sees of a persisted result
export const DEFAULT_KEEP_RECENT = 5; // the latest results are the ones the model is still working from
export const DEFAULT_MIN_SAVINGS_TOKENS = 20_000; // clearing invalidates the cached prompt; smaller gains cost more than they save
/** Tools whose output the model can get again by calling them again. */
export const DEFAULT_CLEARABLE_TOOLS: readonly string[] = [
  'Read',
  'Bash',
  'Grep',
  'Glob',
  'WebFetch',
  'WebSearch',
  'Edit',
  'Write',
];
export const DEFAULT_IDLE_MINUTES = 60; // the longest prompt-cache TTL (1h): after it the cache is cold anyway
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000; // Claude Code's MAX_MCP_OUTPUT_TOKENS

/** What an old result becomes, as Claude Code writes it. */
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';
/**
 * Tools whose results are never persisted. Claude Code's Read bounds its own output (lines and
 * tokens), declares no result-size limit, and persisting it would send the model to Read a file
 * to see what Read returned. The big-outputs fixture shows it: the four Bash results over 50,000
 * chars were persisted, while three ~76,000-char Read results (~230,000 in one message) stayed inline.
 */
const PERSIST_EXEMPT_TOOLS = new Set(['Read']);
const MCP_PREFIX = 'mcp__';
/** Tool-use ids name files on disk: anything else could walk out of the tool-results dir. */
const SAFE_TOOL_USE_ID = /^[A-Za-z0-9_-]{1,200}$/;

export interface MicroOptions {
  maxResultChars: number;
  maxMessageChars: number;
  previewChars: number;
  keepRecent: number;
  minSavingsTokens: number;
  clearableTools: readonly string[];
  /** Clear when the conversation has been idle `idleMinutes`, instead of by savings. */
  timeBased: boolean;
  idleMinutes: number;
  /** Milliseconds since the epoch; the only clock the plan sees. */
  now: number;
  maxMcpOutputTokens: number;
  /** Where memd writes what it persists: toolResultsDir(projects, project, sessionId). */
  toolResultsDir: string;
}

export type MicroSettings = Partial<MicroOptions> & Pick<MicroOptions, 'now' | 'toolResultsDir'>;

/** A full result to write to `<toolResultsDir>/<toolUseId>.<ext>` before the messages are used. */
export interface PersistItem {
  toolUseId: string;
  ext: 'txt' | 'json';
  /** The file's content: the result's text, or its blocks as JSON. */
  text: string;
}

export interface MicroPlan {
  messages: ConversationMessage[];
  actions: CompactionAction[];
  persist: PersistItem[];
}

/** One tool_result of the plan's copy of the messages, with what was done to it so far. */
interface ResultState {
  id: string;
  tool: string;
  messageIndex: number;
  /** The copy in the output messages; its content is replaced as the plan goes. */
  block: ToolResultBlock;
  original: string | ContentBlock[];
  /** Claude Code already persisted it (its path, when it says). */
  persistedBefore: { path: string | undefined } | null;
  persist: PersistItem | null;
  actions: CompactionAction[];
}

export function toolResultFile(dir: string, toolUseId: string, ext: 'txt' | 'json'): string {
  return join(dir, `${toolUseId}.${ext}`);
}

export function isSafeToolUseId(toolUseId: string): boolean {
  return SAFE_TOOL_USE_ID.test(toolUseId);
}

function tokensOf(content: string | readonly ContentBlock[] | undefined): number {
  return roughTokens(contentChars(content));
}

function withDefaults(settings: MicroSettings): MicroOptions {
  return {
    maxResultChars: settings.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
    maxMessageChars: settings.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS,
    previewChars: settings.previewChars ?? DEFAULT_PREVIEW_CHARS,
    keepRecent: settings.keepRecent ?? DEFAULT_KEEP_RECENT,
    minSavingsTokens: settings.minSavingsTokens ?? DEFAULT_MIN_SAVINGS_TOKENS,
    clearableTools: settings.clearableTools ?? DEFAULT_CLEARABLE_TOOLS,
    timeBased: settings.timeBased ?? false,
    idleMinutes: settings.idleMinutes ?? DEFAULT_IDLE_MINUTES,
    now: settings.now,
    maxMcpOutputTokens: settings.maxMcpOutputTokens ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS,
    toolResultsDir: settings.toolResultsDir,
  };
}

/** A copy whose tool_result blocks can be rewritten without touching the caller's messages. */
function copyMessages(messages: readonly ConversationMessage[]): ConversationMessage[] {
  return messages.map((message) => ({
    ...message,
    uuids: [...message.uuids],
    content: message.content.map((block) => (block.type === 'tool_result' ? { ...(block as ToolResultBlock) } : block)),
  }));
}

/** Every tool_result of the copy, in conversation order, with its tool and transcript line. */
function collectResults(messages: readonly ConversationMessage[], loaded: readonly LoadedEntry[]): ResultState[] {
  const tools = new Map<string, string>();
  for (const message of messages)
    for (const block of message.content)
      if (block.type === 'tool_use') tools.set((block as { id: string }).id, (block as { name: string }).name);
  const lines = new Map<string, LoadedEntry>();
  // Claude Code writes one tool result a line; a line with several has no single toolUseResult.
  for (const line of loaded)
    if (line.entry.toolResults.length === 1) lines.set((line.entry.toolResults[0] as { id: string }).id, line);
  const results: ResultState[] = [];
  messages.forEach((message, messageIndex) => {
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const result = block as ToolResultBlock;
      const original = result.content ?? '';
      results.push({
        id: result.tool_use_id,
        tool: tools.get(result.tool_use_id) ?? '',
        messageIndex,
        block: result,
        original,
        persistedBefore: claudePersisted(lines.get(result.tool_use_id)?.raw, original),
        persist: null,
        actions: [],
      });
    }
  });
  return results;
}

function canPersist(result: ResultState): boolean {
  if (PERSIST_EXEMPT_TOOLS.has(result.tool) || result.persistedBefore !== null || result.persist !== null) return false;
  // A preview is text: a result with images or documents would lose them.
  const textOnly = typeof result.original === 'string' || result.original.every((block) => block.type === 'text');
  return textOnly && isSafeToolUseId(result.id);
}

/** Replaces the result by its preview; the file gets the full original (even of a cut MCP result). */
function persistResult(result: ResultState, options: MicroOptions): void {
  const { original } = result;
  const ext = typeof original === 'string' ? 'txt' : 'json';
  const path = toolResultFile(options.toolResultsDir, result.id, ext);
  const { preview, hasMore } = previewOf(contentText(original), options.previewChars);
  const tokensBefore = tokensOf(result.block.content);
  result.block.content = persistedOutputText(path, contentChars(original), preview, hasMore, options.previewChars);
  result.persist = {
    toolUseId: result.id,
    ext,
    text: typeof original === 'string' ? original : JSON.stringify(original, null, 2),
  };
  result.actions.push({
    kind: 'persisted',
    id: result.id,
    tool: result.tool,
    tokensBefore,
    tokensAfter: tokensOf(result.block.content),
    path,
  });
}

/** Steps 1 and 2: one result on its own. */
function capResult(result: ResultState, options: MicroOptions): void {
  if (result.persistedBefore !== null) {
    const line = result.persistedBefore;
    const action: CompactionAction = {
      kind: 'persisted',
      id: result.id,
      tool: result.tool,
      tokensBefore: tokensOf(result.original),
      tokensAfter: tokensOf(result.original),
    };
    if (line.path !== undefined) action.path = line.path;
    result.actions.push(action);
    return;
  }
  const chars = contentChars(result.original);
  if (result.tool.startsWith(MCP_PREFIX) && chars > options.maxMcpOutputTokens * CHARS_PER_TOKEN) {
    result.block.content = truncateContent(
      result.original,
      options.maxMcpOutputTokens * CHARS_PER_TOKEN,
      truncationNotice(options.maxMcpOutputTokens, chars),
    );
    result.actions.push({
      kind: 'truncated-mcp',
      id: result.id,
      tool: result.tool,
      tokensBefore: roughTokens(chars),
      tokensAfter: tokensOf(result.block.content),
    });
  }
  if (canPersist(result) && contentChars(result.block.content) > options.maxResultChars) persistResult(result, options);
}

/** Step 3: the largest results of one message go to disk until the message is within budget. */
function enforceMessageBudget(results: readonly ResultState[], options: MicroOptions): void {
  let total = results.reduce((sum, result) => sum + contentChars(result.block.content), 0);
  while (total > options.maxMessageChars) {
    let largest: ResultState | undefined;
    for (const result of results) {
      // A result smaller than its preview would only grow.
      if (!canPersist(result) || contentChars(result.block.content) <= options.previewChars) continue;
      if (largest === undefined || contentChars(result.block.content) > contentChars(largest.block.content))
        largest = result;
    }
    if (largest === undefined) return;
    const before = contentChars(largest.block.content);
    persistResult(largest, options);
    total += contentChars(largest.block.content) - before;
  }
}

/** The newest assistant entry is older than the idle time: the prompt cache has expired. */
function isIdle(loaded: readonly LoadedEntry[], options: MicroOptions): boolean {
  let last = Number.NEGATIVE_INFINITY;
  for (const { entry } of loaded) {
    if (entry.type !== 'assistant' || entry.timestamp === null) continue;
    const at = Date.parse(entry.timestamp);
    if (!Number.isNaN(at) && at > last) last = at;
  }
  return Number.isFinite(last) && options.now - last > options.idleMinutes * 60_000;
}

/**
 * Step 4. Savings are counted on the results as steps 1–3 left them, so a result just persisted
 * counts as its preview. Time-based clearing needs no minimum: once the cache is cold, clearing
 * costs no cache write that the savings would have to pay for.
 */
function clearOld(results: readonly ResultState[], loaded: readonly LoadedEntry[], options: MicroOptions): void {
  const clearable = new Set(options.clearableTools);
  const candidates = results.filter((result) => clearable.has(result.tool));
  const old = candidates
    .slice(0, Math.max(0, candidates.length - options.keepRecent))
    .filter((result) => result.block.content !== CLEARED_TOOL_RESULT);
  if (old.length === 0) return;
  const clearedTokens = roughTokens(CLEARED_TOOL_RESULT.length);
  const savings = old.reduce((sum, result) => sum + tokensOf(result.block.content) - clearedTokens, 0);
  const allowed = options.timeBased ? isIdle(loaded, options) : savings >= options.minSavingsTokens;
  if (!allowed) return;
  for (const result of old) {
    result.block.content = CLEARED_TOOL_RESULT;
    // The model no longer sees a path, so there is nothing to write; the transcript keeps the result.
    result.persist = null;
    result.actions = [
      {
        kind: 'cleared',
        id: result.id,
        tool: result.tool,
        tokensBefore: tokensOf(result.original),
        tokensAfter: clearedTokens,
      },
    ];
  }
}

/**
 * The micro-compacted copy of `messages` (the active conversation, with its `loaded` entries for
 * Claude Code's persisted paths and timestamps). The same input always gives the same plan.
 */
export function planMicro(
  messages: readonly ConversationMessage[],
  loaded: readonly LoadedEntry[],
  settings: MicroSettings,
): MicroPlan {
  const options = withDefaults(settings);
  const out = copyMessages(messages);
  const results = collectResults(out, loaded);
  for (const result of results) capResult(result, options);
  const byMessage = new Map<number, ResultState[]>();
  for (const result of results)
    byMessage.set(result.messageIndex, [...(byMessage.get(result.messageIndex) ?? []), result]);
  for (const group of byMessage.values()) enforceMessageBudget(group, options);
  clearOld(results, loaded, options);
  return {
    messages: out,
    actions: results.flatMap((result) => result.actions),
    persist: results.flatMap((result) => (result.persist === null ? [] : [result.persist])),
  };
}
