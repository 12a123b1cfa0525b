/**
 * The answer shape the summarizers ask for, as Claude Code's compaction asks it: the model's
 * `<analysis>` first (thinking aloud improves the summary, and none of it is kept), then the
 * result in `<summary>`. Parsed tolerantly, because models drop or cut tags: without a
 * `<summary>` the whole text less any analysis is the result, and the caller counts it as untagged.
 * Pure.
 */

export interface SummaryReply {
  /** The body of `<summary>`, or the whole text less the analysis. */
  text: string;
  /** False when the reply had no `<summary>` tag: counted, since the prompt asked for one. */
  tagged: boolean;
}

const ANALYSIS = /<analysis>[\s\S]*?(?:<\/analysis>|$)/;
const OPEN = '<summary>';
const CLOSE = '</summary>';

/**
 * From the first `<summary>` after the analysis to the last `</summary>` (the notes may quote
 * the tag themselves), or to the end when the answer was cut at its token limit.
 */
export function parseSummaryReply(reply: string): SummaryReply {
  const rest = reply.replace(ANALYSIS, '');
  const open = rest.indexOf(OPEN);
  if (open === -1) return { text: rest.trim(), tagged: false };
  const close = rest.lastIndexOf(CLOSE);
  const end = close > open ? close : rest.length;
  return { text: rest.slice(open + OPEN.length, end).trim(), tagged: true };
}
