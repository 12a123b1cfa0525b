/**
 * `search.context`'s messages cut to a size known before they are serialized (issue 27, item 9):
 * each block to `maxBlockChars`, and the whole answer to ANSWER_JSON_CHARS, the blocks nearest the
 * hit first. A block that was cut says so (`cutChars`), and a cut text ends with a mark saying how
 * much is missing; blocks past the answer's size are left out with a text block that counts them.
 */
import type { ContentBlock, MessageParam } from '../../shared/protocol/messages.js';

/**
 * The answer's blocks, as JSON characters. JSON escapes what would take more, so a character
 * is at most 3 bytes of UTF-8: 12 MB, under the 16 MiB frame with room for the envelope.
 */
export const ANSWER_JSON_CHARS = 4_000_000;
/** A block with less room than this is left out rather than cut to nothing. */
const MIN_BLOCK_CHARS = 200;
/** A block's `type` up to this long is kept whole (the API's are at most ~25). */
const MAX_TYPE_CHARS = 64;
/** What a number, boolean or null costs in JSON, near enough. */
const SCALAR_CHARS = 8;

/** A block of the answer, with the characters memd cut out of it. */
export type CutBlock = ContentBlock & { cutChars?: number };

interface Budget {
  left: number;
  cut: number;
}

const cutMark = (chars: number) => ` … [memd cut ${chars.toLocaleString('en-US')} characters]`;

/** The characters of what is dropped (its strings and keys; without building its JSON): what `cutChars` counts. */
function jsonChars(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + jsonChars(item) + 1, 2);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).reduce((sum, [key, item]) => sum + key.length + 3 + jsonChars(item), 2);
  return SCALAR_CHARS;
}

/** The value with its strings cut and its arrays' and objects' tails dropped once the budget is spent. */
function cutValue(value: unknown, budget: Budget): unknown {
  if (typeof value === 'string') {
    // Two quotes: a string costs its JSON length, near enough (escapes are rare and bounded by ×6).
    if (value.length + 2 <= budget.left) {
      budget.left -= value.length + 2;
      return value;
    }
    const keep = Math.max(0, budget.left - 2);
    budget.cut += value.length - keep;
    budget.left = 0;
    return `${value.slice(0, keep)}${cutMark(value.length - keep)}`;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      if (budget.left <= 0) budget.cut += jsonChars(item);
      else out.push(cutValue(item, budget));
    }
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // A block's type is what a reader needs to read the rest: never cut (when it is one).
      if (key === 'type' && typeof item === 'string' && item.length <= MAX_TYPE_CHARS) {
        budget.left -= item.length + 9;
        out[key] = item;
        continue;
      }
      if (budget.left <= 0) {
        budget.cut += jsonChars(item);
        continue;
      }
      budget.left -= key.length + 3;
      out[key] = cutValue(item, budget);
    }
    return out;
  }
  budget.left -= SCALAR_CHARS;
  return value;
}

/** One block cut to `max` JSON characters (about), and what it cost the answer. */
function cutBlock(block: ContentBlock, max: number): { block: CutBlock; chars: number } {
  const budget: Budget = { left: max, cut: 0 };
  const cut = cutValue(block, budget) as CutBlock;
  if (budget.cut > 0) cut.cutChars = budget.cut;
  return { block: cut, chars: max - budget.left };
}

/** The messages with every block cut to `maxBlockChars`, and to the answer's size, nearest the hit first. */
export function cutMessages(
  messages: readonly MessageParam[],
  hitIndex: number,
  maxBlockChars: number,
  answerChars = ANSWER_JSON_CHARS,
): MessageParam[] {
  let left = answerChars;
  const out: MessageParam[] = messages.map((message) => ({ ...message }));
  // The hit, then the messages after and before it in turn, nearest first.
  const order = [...out.keys()].sort((a, b) => Math.abs(a - hitIndex) - Math.abs(b - hitIndex) || b - a);
  for (const index of order) {
    const message = out[index] as MessageParam;
    const blocks: ContentBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const kept: CutBlock[] = [];
    let dropped = 0;
    let droppedChars = 0;
    for (const block of blocks) {
      const room = Math.min(maxBlockChars, left);
      if (room < MIN_BLOCK_CHARS) {
        dropped++;
        droppedChars += jsonChars(block);
        continue;
      }
      const { block: cut, chars } = cutBlock(block, room);
      left -= chars;
      kept.push(cut);
    }
    if (dropped > 0) {
      const text = `[memd left out ${dropped === 1 ? 'a block' : `${dropped} blocks`} here: the answer reached its size limit; ask for fewer messages]`;
      kept.push({ type: 'text', text, cutChars: droppedChars });
    }
    // A string content stays a string when it was not cut.
    message.content =
      typeof message.content === 'string' && kept.length === 1 && kept[0]?.cutChars === undefined
        ? message.content
        : kept;
  }
  return out;
}
