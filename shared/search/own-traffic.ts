/**
 * memd's own traffic in a transcript (issue 28, item 6): what memd put there rather than the user or
 * the model's work. Its MCP tools' calls (`mcp__memd__*`) and their results, Reads of the files memd
 * writes for the model (the handoff, a session's memory), and the context its SessionStart hook
 * injects. Indexed as kind `memd`, which searches leave out unless asked for it: a search for a word
 * would otherwise find first the calls that searched for it and the hits they returned. A Bash call
 * running `memctl` is the user's own tooling use and stays theirs. Pure.
 *
 * A tool result names only its call's id, and the call is on an earlier line: the caller keeps the
 * ids of memd's calls per file (OwnCallBook) and says which results are memd's.
 */
import { MEMD_RECALL_HEAD } from '../protocol/recall.js';
import type { SearchKind } from '../protocol/search.js';
import { redactSecrets } from '../text/redact.js';
import { resultText, SEARCH_OUTPUT_CHARS, type SearchText, searchTexts } from './text.js';

/** Claude Code names an MCP tool `mcp__<server>__<tool>`; memd's server is registered as `memd`. */
export const MEMD_TOOL_PREFIX = 'mcp__memd__';
/** How memd's SessionStart context opens (daemon/handoff/hooks.ts, and the hook's fallback). */
export const MEMD_CONTEXT_HEAD = 'memd: context for this session after';
/** Files memd writes for the model to read: the handoff (shared/handoff) and a session's memory. */
const MEMD_FILES = /(?:^|\/)docs\/handoff-context\.md$|\/session-memory\/[^/]+$/;
/** memd's text of one line: its calls' inputs and results, or its context, at most this much. */
const OWN_TEXT_CHARS = SEARCH_OUTPUT_CHARS * 2;
export const OWN_KIND: SearchKind = 'memd';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function blocksOf(value: unknown): Json[] | null {
  if (!isRecord(value) || !isRecord(value.message) || !Array.isArray(value.message.content)) return null;
  return value.message.content.filter(isRecord);
}

function isOwnCall(block: Json): boolean {
  if (block.type !== 'tool_use' || typeof block.name !== 'string') return false;
  if (block.name.startsWith(MEMD_TOOL_PREFIX)) return true;
  const input = isRecord(block.input) ? block.input : {};
  return block.name === 'Read' && typeof input.file_path === 'string' && MEMD_FILES.test(input.file_path);
}

/** The ids of memd's calls an assistant line makes (its results come on later lines). */
export function ownCallIds(value: unknown): string[] {
  if (!isRecord(value) || value.type !== 'assistant') return [];
  const blocks = blocksOf(value);
  if (blocks === null) return [];
  return blocks.filter((block) => isOwnCall(block) && typeof block.id === 'string').map((block) => block.id as string);
}

/** memd's context: its SessionStart hook's, or what its prompt and failure hooks recalled (issue 33). */
const isOwnContext = (text: string) => text.includes(MEMD_CONTEXT_HEAD) || text.includes(MEMD_RECALL_HEAD);

/** The context memd's hooks gave, as Claude Code recorded it (an attachment, or an older meta line). */
function ownContext(value: Json): string | null {
  if (value.type === 'attachment' && isRecord(value.attachment)) {
    const { attachment } = value;
    if (attachment.type !== 'hook_additional_context' || !Array.isArray(attachment.content)) return null;
    const text = attachment.content.filter((line): line is string => typeof line === 'string').join('\n');
    return isOwnContext(text) ? text : null;
  }
  if (value.type !== 'user' || value.isMeta !== true || !isRecord(value.message)) return null;
  const { content } = value.message;
  const text =
    typeof content === 'string'
      ? content
      : (blocksOf(value) ?? []).map((block) => (typeof block.text === 'string' ? block.text : '')).join('\n');
  return isOwnContext(text) ? text : null;
}

function callText(block: Json): string {
  const input = isRecord(block.input) ? block.input : {};
  const fields = Object.values(input).filter((field): field is string => typeof field === 'string' && field !== '');
  return [block.name as string, ...fields].join(' ');
}

/** The line with memd's blocks taken out of its message. */
function without(value: Json, blocks: Json[], own: ReadonlySet<Json>): Json {
  return { ...value, message: { ...(value.message as Json), content: blocks.filter((block) => !own.has(block)) } };
}

/**
 * The texts the index holds for one line: shared/search/text.ts's, with memd's traffic as one
 * `memd` text instead. `isOwnResult` says whether a tool_use_id is one of memd's calls.
 */
export function indexTexts(value: unknown, isOwnResult: (toolUseId: string) => boolean): SearchText[] {
  if (!isRecord(value)) return [];
  const context = ownContext(value);
  if (context !== null) return ownText([context]);
  const blocks = blocksOf(value);
  if (blocks === null) return searchTexts(value);
  const own = new Set<Json>();
  const texts: string[] = [];
  for (const block of blocks) {
    if (value.type === 'assistant' && isOwnCall(block)) texts.push(callText(block));
    else if (
      value.type === 'user' &&
      block.type === 'tool_result' &&
      typeof block.tool_use_id === 'string' &&
      isOwnResult(block.tool_use_id)
    )
      texts.push(resultText(block.content));
    else continue;
    own.add(block);
  }
  if (own.size === 0) return searchTexts(value);
  return [...searchTexts(without(value, blocks, own)), ...ownText(texts)];
}

function ownText(texts: string[]): SearchText[] {
  const text = texts.join('\n').trim().slice(0, OWN_TEXT_CHARS);
  return text === '' ? [] : [{ kind: OWN_KIND, text: redactSecrets(text) }];
}

/** Ids of memd's calls kept per file: results follow their call within a few lines. */
const OWN_CALLS_PER_FILE = 64;
/** Files whose ids are kept (the most recently used): the files being written to. */
const OWN_CALL_FILES = 256;

/**
 * The ids of memd's calls seen in each file, so that a result on a later line, read in a later
 * pass, is known for memd's. Bounded: a file's newest OWN_CALLS_PER_FILE ids, OWN_CALL_FILES files.
 * It lives as long as its parser: a result read after a daemon restart whose call was read before
 * it is indexed as an ordinary output.
 */
export class OwnCallBook {
  private readonly files = new Map<string, Set<string>>();

  /** Notes the line's calls and gives the line's texts. */
  texts(path: string, value: unknown): SearchText[] {
    const ids = ownCallIds(value);
    let calls = this.files.get(path);
    if (ids.length > 0) {
      if (calls === undefined) calls = new Set();
      for (const id of ids) calls.add(id);
      for (const id of calls) {
        if (calls.size <= OWN_CALLS_PER_FILE) break;
        calls.delete(id);
      }
      // Most recently used last, so that the first is the one to drop.
      this.files.delete(path);
      this.files.set(path, calls);
      for (const file of this.files.keys()) {
        if (this.files.size <= OWN_CALL_FILES) break;
        this.files.delete(file);
      }
    }
    const known = calls;
    return indexTexts(value, known === undefined ? () => false : (id) => known.has(id));
  }

  forget(path: string): void {
    this.files.delete(path);
  }
}
