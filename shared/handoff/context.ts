/**
 * The handoff as SessionStart puts it in the model's context, from the daemon (daemon/handoff/hooks.ts)
 * and from the hook's fallback without one (client/memctl/commands/hook.ts): under memd's heading,
 * its text quoted as data (issue 27, item 6), since its prose is derived from transcripts.
 */
import { quoteAsData, quoteFrameChars } from '../text/quote.js';

/** What the quote of a handoff says it holds. */
export const HANDOFF_QUOTE_SOURCE = "memd's handoff, written from the earlier conversation's transcript";

/**
 * `## Handoff (path)` and the quoted handoff, at most `maxChars` in all: a longer handoff is cut
 * inside the quote (ending with `cutNote`), so that the closing delimiter always stays.
 */
export function handoffContextBlock(handoff: string, path: string, maxChars: number, cutNote: string): string {
  const heading = `## Handoff (${path})`;
  const room = Math.max(0, maxChars - heading.length - 1 - quoteFrameChars(HANDOFF_QUOTE_SOURCE));
  const text = handoff.trim();
  const body = text.length <= room ? text : `${text.slice(0, Math.max(0, room - cutNote.length - 2))}\n\n${cutNote}`;
  return `${heading}\n${quoteAsData(body, HANDOFF_QUOTE_SOURCE)}`;
}
