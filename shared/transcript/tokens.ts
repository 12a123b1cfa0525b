/**
 * Claude Code's rough token estimate of transcript content (DESIGN.md §5: "chars/4").
 *
 * The rule, as Claude Code 2.1.x applies it (services/tokenEstimation.ts) and as the fixtures
 * confirm: every piece of content that reaches the model is measured as the string length of its
 * text, never of the JSON that wraps it, and each piece costs Math.round(length / 4) tokens; an
 * entry's estimate is the sum over its pieces. The pieces:
 * - a user or assistant message whose content is a string: that string;
 * - each content block: `text` → its text; `thinking` → its thinking; `redacted_thinking` → its
 *   data; `tool_use` → name + JSON.stringify(input); `tool_result` → its content, recursively;
 *   `image` / `document` → a flat 2,000 tokens (the API charges about that, whatever the base64
 *   length); any other block → its JSON;
 * - an attachment entry: the user messages Claude Code turns it into before sending (see
 *   attachmentTexts).
 *
 * Checked against the `compactions` fixture, whose boundaries record Claude Code's own estimate
 * (`preTokens`): 189,469 (usage) + 14 for a 56-char prompt = 189,483, and 19,534 + 44 for a
 * SessionStart `hook_additional_context` rendered as a 177-char system reminder, with its empty
 * `hook_success` adding nothing = 19,578. JSON lengths or rounding up would give 15 and 58/45.
 */
import { isRecord } from '../values.js';

/** Claude Code's bytes-per-token default for prose and code (DESIGN.md §5's chars/4): the one figure every estimate uses. */
export const CHARS_PER_TOKEN = 4;
/** Images and documents are estimated flat: the API charges about this per block. */
const MEDIA_BLOCK_TOKENS = 2_000;

/** Claude Code's estimate of one piece of text: length / 4, rounded to nearest (half up). */
export function roughTokens(chars: number): number {
  return Math.round(chars / CHARS_PER_TOKEN);
}

/**
 * Length / 4 rounded up: the conservative estimate for checking that a result fits a limit
 * (DESIGN.md §5, reactive compaction's `limitTokens`). Not what Claude Code shows as context.
 */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * The least a limit check multiplies estimateTokens by. Measured on real sessions, JSON length / 4
 * covered only about 75 % of the input tokens the API counted (code, paths, JSON escapes and
 * non-English text take more tokens per char than prose), so 4/3 makes up for that; a session
 * whose recorded usage shows more uses its own ratio (daemon/compaction/calibration.ts).
 */
export const DEFAULT_ESTIMATE_MARGIN = 4 / 3;

/** estimateTokens of `chars` times `margin`, rounded up: what reactive compaction checks a limit with. */
export function marginTokens(chars: number, margin: number): number {
  return estimateTokens(Math.ceil(chars * margin));
}

/** What an entry puts in front of the model, measured. */
export interface ContentMeasure {
  /** String length of the content (media blocks count 4 × their flat token cost). */
  chars: number;
  /** Sum of roughTokens over the pieces (media blocks: their flat cost). */
  tokens: number;
}

const NOTHING: ContentMeasure = { chars: 0, tokens: 0 };

function text(length: number): ContentMeasure {
  return { chars: length, tokens: roughTokens(length) };
}

function add(a: ContentMeasure, b: ContentMeasure): ContentMeasure {
  return { chars: a.chars + b.chars, tokens: a.tokens + b.tokens };
}

function measureContent(content: unknown): ContentMeasure {
  if (typeof content === 'string') return text(content.length);
  if (!Array.isArray(content)) return NOTHING;
  let total = NOTHING;
  for (const block of content) total = add(total, measureBlock(block));
  return total;
}

function measureBlock(block: unknown): ContentMeasure {
  if (typeof block === 'string') return text(block.length);
  if (!isRecord(block)) return NOTHING;
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') return text(block.text.length);
      break;
    case 'image':
    case 'document':
      return { chars: MEDIA_BLOCK_TOKENS * CHARS_PER_TOKEN, tokens: MEDIA_BLOCK_TOKENS };
    case 'tool_result':
      return measureContent(block.content);
    case 'tool_use':
      return text(String(block.name ?? '').length + JSON.stringify(block.input ?? {}).length);
    case 'thinking':
      if (typeof block.thinking === 'string') return text(block.thinking.length);
      break;
    case 'redacted_thinking':
      if (typeof block.data === 'string') return text(block.data.length);
      break;
  }
  return text(JSON.stringify(block).length);
}

/** Claude Code wraps what it injects on the user's side in this tag. */
function systemReminder(body: string): string {
  return `<system-reminder>\n${body}\n</system-reminder>`;
}

/** Hook events whose successful output Claude Code shows the model (others stay local). */
const HOOK_SUCCESS_EVENTS_SENT = new Set(['SessionStart', 'UserPromptSubmit']);

/**
 * The texts of the user messages Claude Code makes of an attachment before sending it
 * (utils/messages.ts normalizeAttachmentForAPI). Only the hook kinds are rendered exactly; the
 * hook_additional_context form is confirmed by a fixture's preTokens. Every other kind (file,
 * skill_listing, agent_listing_delta, task_reminder, ...) is measured as its JSON: close for
 * listings and file bodies, an overestimate for kinds Claude Code does not send at all.
 */
export function attachmentTexts(attachment: Record<string, unknown>): string[] {
  const hookName = typeof attachment.hookName === 'string' ? attachment.hookName : '';
  switch (attachment.type) {
    case 'hook_additional_context': {
      const lines = Array.isArray(attachment.content)
        ? attachment.content.filter((line) => typeof line === 'string')
        : [];
      if (lines.length === 0) return [];
      return [systemReminder(`${hookName} hook additional context: ${lines.join('\n')}`)];
    }
    case 'hook_success': {
      const content = typeof attachment.content === 'string' ? attachment.content : '';
      const event = typeof attachment.hookEvent === 'string' ? attachment.hookEvent : '';
      if (content === '' || !HOOK_SUCCESS_EVENTS_SENT.has(event)) return [];
      return [systemReminder(`${hookName} hook success: ${content}`)];
    }
    case 'async_hook_response': {
      // Its stdout, stderr and exit code stay local; only these two fields reach the model.
      const response = isRecord(attachment.response) ? attachment.response : {};
      const specific = isRecord(response.hookSpecificOutput) ? response.hookSpecificOutput : {};
      const sent = [response.systemMessage, specific.additionalContext];
      return sent.filter((value): value is string => typeof value === 'string' && value !== '');
    }
    default:
      return [JSON.stringify(attachment)];
  }
}

/**
 * Measures what one transcript entry sends to the model: the message content of user and
 * assistant entries, the rendered attachment of attachment entries, nothing for anything else.
 */
export function measureEntry(entry: Record<string, unknown>): ContentMeasure {
  if (entry.type === 'attachment') {
    if (!isRecord(entry.attachment)) return NOTHING;
    let total = NOTHING;
    for (const piece of attachmentTexts(entry.attachment)) total = add(total, text(piece.length));
    return total;
  }
  if (entry.type !== 'user' && entry.type !== 'assistant') return NOTHING;
  const message = isRecord(entry.message) ? entry.message : null;
  return measureContent(message?.content);
}
