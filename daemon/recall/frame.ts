/**
 * What recall injects, framed (issue 33): memd's heading, then the passages quoted as data
 * (shared/text/quote.ts: they are past transcripts, not instructions), each saying where it came
 * from (the session's title, project and date, and the `memctl search --context` reference that
 * shows it whole), redacted, and within the budget: a passage that does not fit is left out, never
 * half-sent. Pure.
 */
import { MEMD_RECALL_HEAD } from '../../shared/protocol/recall.js';
import { dataQuote } from '../../shared/text/quote.js';
import { redactSecrets } from '../../shared/text/redact.js';
import { CHARS_PER_TOKEN } from '../../shared/transcript/tokens.js';

/** One passage's text at most: a few lines say whether it bears on the prompt; the reference shows the rest. */
export const PASSAGE_CHARS = 600;
/** What the quote says it holds. */
const QUOTE_SOURCE = 'passages memd recalled from past sessions and project memory';

export interface FramedPassage {
  /** Where it came from, one line: title, project, date, reference. */
  where: string;
  text: string;
}

export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/** The text's lines with their spaces collapsed, blank ones dropped, cut to `max` characters. */
function clipLines(text: string, max: number): string {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  return lines.length <= max ? lines : `${lines.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

export const tokensOf = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

/**
 * The heading and as many passages as fit in `budgetTokens`, best first, redacted; null when not
 * even the first fits. `kept` is how many went in.
 */
export function frameRecall(
  heading: string,
  passages: readonly FramedPassage[],
  budgetTokens: number,
  nonce?: string,
): { text: string; kept: number } | null {
  const items = passages.map((passage, at) =>
    redactSecrets(`[${at + 1}] ${passage.where}\n${clipLines(passage.text, PASSAGE_CHARS)}`),
  );
  const quote = dataQuote(items, QUOTE_SOURCE, nonce);
  const head = `${MEMD_RECALL_HEAD} ${heading}`;
  const frame = (body: readonly string[]) => `${head}\n${quote.block(body.join('\n\n'))}`;
  const maxChars = budgetTokens * CHARS_PER_TOKEN;
  const kept: string[] = [];
  for (const item of items) {
    if (frame([...kept, item]).length > maxChars) break;
    kept.push(item);
  }
  return kept.length === 0 ? null : { text: frame(kept), kept: kept.length };
}

/** `"Title" · project · 2026-11-02 · prompt · memctl search --context 1a2b3c4d:uuid`. */
export function whereOf(parts: {
  title?: string | undefined;
  projectName: string;
  timestamp: string | null;
  field: string;
  ref: string | null;
}): string {
  const title = parts.title === undefined ? 'untitled session' : `"${clip(parts.title, 80)}"`;
  const date = parts.timestamp === null ? null : parts.timestamp.slice(0, 10);
  const ref = parts.ref === null ? null : `memctl search --context ${parts.ref}`;
  return [title, parts.projectName, date, parts.field, ref].filter((part) => part !== null).join(' · ');
}
