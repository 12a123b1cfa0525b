/**
 * A hit's conversation (search.context) as compact text: one paragraph per message, tool calls and
 * results on lines of their own, every block cut. Messages nearest the hit are kept first when the
 * whole does not fit the budget.
 */
import type { ContentBlock, MessageParam } from '../../../../shared/protocol/messages.js';
import { describeSegment, type SearchContextResult } from '../../../../shared/protocol/search.js';
import { stripAnsi } from '../../../../shared/text/ansi.js';
import { excerptAround, firstMatch } from '../../../../shared/text/excerpt.js';
import { quoteAsData, quoteFrameChars } from '../../../../shared/text/quote.js';
import { clip, OUTPUT_BUDGET_CHARS, oneLine } from '../budget.js';
import { list, plural } from './context.js';

/** Text blocks of the messages around the hit: enough for the gist of each. */
const TEXT_CHARS = 1_500;
/** The hit's own message is what was searched for: it gets more room. */
const HIT_TEXT_CHARS = 6_000;
/** A tool call's input (a command, a path, an edit): its first line says what it did. */
const TOOL_INPUT_CHARS = 400;
/** A tool's output: its start says whether it worked. */
const TOOL_RESULT_CHARS = 800;
const HIT_TOOL_RESULT_CHARS = 3_000;
/** Room under the budget for the header and the line that counts what was left out. */
const FRAME_CHARS = 600;
const ID_CHARS = 100;
/** Line breaks around the quote. */
const QUOTE_SLACK_CHARS = 10;

interface Caps {
  text: number;
  toolResult: number;
  /** The hit's: the words searched for, which its long texts are shown around (issue 28); null for the others. */
  terms: readonly string[] | null;
}

/** A text cut to `max`: the hit's around the first of its terms it holds, the others (and the hit's blocks without one) by their head. */
function cutText(value: unknown, max: number, terms: readonly string[] | null): string {
  const text = typeof value === 'string' ? stripAnsi(value) : '';
  return terms === null || firstMatch(text, terms) === -1 ? clip(text, max) : excerptAround(text, terms, max);
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list<{ type?: unknown; text?: unknown }>(content)
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : `[${oneLine(block.type, 30) || 'block'}]`,
    )
    .join('\n');
}

function renderBlock(block: ContentBlock, caps: Caps): string {
  switch (block.type) {
    case 'text':
      return cutText((block as { text?: unknown }).text, caps.text, caps.terms);
    case 'tool_use': {
      const use = block as { name?: unknown; input?: unknown };
      const input = JSON.stringify(use.input ?? null);
      // The hit's call can be a file written, found by words deep in it (issue 28): shown around them.
      const shown =
        caps.terms !== null && firstMatch(input, caps.terms) !== -1
          ? cutText(input, caps.toolResult, caps.terms)
          : oneLine(input, TOOL_INPUT_CHARS);
      return `→ ${oneLine(use.name, 60)}: ${shown}`;
    }
    case 'tool_result': {
      const result = block as { content?: unknown; is_error?: unknown };
      return `← ${result.is_error === true ? 'error' : 'result'}: ${cutText(toolResultText(result.content), caps.toolResult, caps.terms)}`;
    }
    case 'thinking': {
      // Left out unless it is what was found (a thinking hit, issue 28): it is long and rarely the point.
      const thinking = (block as { thinking?: unknown }).thinking;
      const found = caps.terms !== null && typeof thinking === 'string' && firstMatch(thinking, caps.terms) !== -1;
      return found ? `(thinking) ${cutText(thinking, caps.text, caps.terms)}` : '(thinking left out)';
    }
    case 'redacted_thinking':
      return '(thinking left out)';
    default:
      return `[${oneLine(block.type, 30)}]`;
  }
}

function renderMessage(message: MessageParam, isHit: boolean, terms: readonly string[]): string {
  const caps: Caps = isHit
    ? { text: HIT_TEXT_CHARS, toolResult: HIT_TOOL_RESULT_CHARS, terms }
    : { text: TEXT_CHARS, toolResult: TOOL_RESULT_CHARS, terms: null };
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  const blocks =
    typeof message.content === 'string'
      ? [cutText(message.content, caps.text, caps.terms)]
      : list<ContentBlock>(message.content).map((block) => renderBlock(block, caps));
  return `${isHit ? '▶ ' : ''}[${role}]\n${blocks.join('\n')}`;
}

/** Indices from the hit outwards, alternating after and before: the nearest context first. */
function byDistance(length: number, hitIndex: number): number[] {
  const order = [hitIndex];
  for (let step = 1; order.length < length; step++) {
    if (hitIndex + step < length) order.push(hitIndex + step);
    if (hitIndex - step >= 0) order.push(hitIndex - step);
  }
  return order;
}

/** `terms`: the words searched for (queryTerms), which the hit's long texts are shown around. */
export function renderContext(result: SearchContextResult, terms: readonly string[] = []): string {
  const messages = list<MessageParam>(result.messages);
  const session = oneLine(result.sessionId, ID_CHARS);
  const uuid = oneLine(result.uuid, ID_CHARS);
  if (messages.length === 0) return `Session ${session} has no messages around ${uuid} (its transcript may be gone).`;
  const hitIndex =
    Number.isInteger(result.hitIndex) && result.hitIndex >= 0 && result.hitIndex < messages.length
      ? result.hitIndex
      : 0;
  const rendered = messages.map((message, index) => renderMessage(message, index === hitIndex, terms));
  const what = `messages and tool results of session ${session}`;
  const kept = new Set<number>();
  let used = 0;
  for (const index of byDistance(messages.length, hitIndex)) {
    const size = (rendered[index] ?? '').length + 2;
    // The hit itself is always shown (the last guard cuts it if it alone is too long).
    if (index !== hitIndex && used + size > OUTPUT_BUDGET_CHARS - FRAME_CHARS - quoteFrameChars(what)) break;
    kept.add(index);
    used += size;
  }
  const shown = rendered.filter((_, index) => kept.has(index));
  const left = messages.length - kept.size;
  const where = describeSegment(result.segment);
  const head = `Session ${session}, ${plural(kept.size, 'message')} around ${uuid}${where === null ? '' : ` (${where})`}, oldest first (▶ the hit):`;
  const note =
    left > 0
      ? `\n\n(${plural(left, 'message')} farthest from the hit left out to fit the output budget: ask with a smaller before or after.)`
      : '';
  // Issue 27: the messages are quoted as data, in a block nothing in them can close; cut inside
  // it when the hit alone is too long, so that the budget's last guard never cuts its end off.
  const body = clip(
    shown.join('\n\n'),
    OUTPUT_BUDGET_CHARS - head.length - note.length - quoteFrameChars(what) - QUOTE_SLACK_CHARS,
  );
  return `${head}\n\n${quoteAsData(body, what)}${note}`;
}
