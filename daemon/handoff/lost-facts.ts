/**
 * What SessionStart(compact) re-injects of the facts Claude Code's compaction summary lost
 * (issue 32, item 2): the lost items of the compaction's survival score, rules and todos first,
 * quoted as data (their text is the transcript's), within a share of the context's budget. Pure.
 */
import type { Survival, SurvivalKind } from '../../shared/protocol/compaction.js';
import { quoteAsData, quoteFrameChars } from '../../shared/text/quote.js';

/** What the quote of the lost facts says it holds. */
export const LOST_FACTS_SOURCE = "the facts of this session that Claude Code's compaction summary left out";
/** The order lost facts are re-injected in: standing rules and open work matter most to the next turn. */
const KIND_PRIORITY: readonly SurvivalKind[] = ['rule', 'todo', 'error', 'file', 'decision'];
const LABEL: Record<SurvivalKind, string> = {
  rule: 'User rule, verbatim',
  todo: 'Still to do',
  error: 'Error',
  file: 'File changed',
  decision: 'Decided',
};
/** One fact's line at most: a fact is one sentence or one key line. */
const MAX_FACT_CHARS = 300;

/** `## Facts the compaction summary lost` and the quoted list, at most `maxChars`; '' when nothing was lost or nothing fits. */
export function lostFactsBlock(survival: Survival | null, maxChars: number): string {
  const lost = (survival?.items ?? []).filter((item) => !item.kept);
  if (lost.length === 0) return '';
  const heading = `## Facts the compaction summary lost (${lost.length} of ${(survival?.kept ?? 0) + lost.length})`;
  const room = maxChars - heading.length - 1 - quoteFrameChars(LOST_FACTS_SOURCE);
  const lines: string[] = [];
  let used = 0;
  const ranked = [...lost].sort((a, b) => KIND_PRIORITY.indexOf(a.kind) - KIND_PRIORITY.indexOf(b.kind));
  for (const item of ranked) {
    const text = item.text.replace(/\s+/g, ' ');
    const line = `- ${LABEL[item.kind]}: ${text.length > MAX_FACT_CHARS ? `${text.slice(0, MAX_FACT_CHARS - 1)}…` : text}`;
    if (used + line.length + 1 > room) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines.length === 0 ? '' : `${heading}\n${quoteAsData(lines.join('\n'), LOST_FACTS_SOURCE)}`;
}
