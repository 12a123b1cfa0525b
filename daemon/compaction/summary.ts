/**
 * Layer 3, full compaction: the conversation replaced by one summary in Claude Code's nine
 * sections, nothing else kept verbatim. Summarizers are behind an interface: a model is asked
 * COMPACT_PROMPT; the default, offline one (offline-compact.ts) needs no network. A summary far
 * too short for its conversation is refused (ImplausibleSummary): it would replace a whole
 * session with a fragment.
 */

import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import type { MessageParam } from '../../shared/protocol/messages.js';
import type { ActiveConversation } from '../../shared/transcript/conversation.js';
import { GENERATED_TAGS } from '../../shared/transcript/prompt-text.js';
import { estimateTokens } from '../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';
import { readEarlierCalls } from '../transcripts/earlier.js';
import type { LoadedEntry } from '../transcripts/entries.js';
import type { Call } from '../transcripts/facts.js';
import { type ConversationMessage, estimateMessageTokens, toMessageParams } from '../transcripts/messages.js';
import { continuationMessage } from './session-memory.js';

export interface CompactionSummaryInput {
  /** Whose conversation: a model summarizer's spend is recorded against it. */
  sessionId?: string;
  messages: ConversationMessage[];
  loaded: LoadedEntry[];
  instructions?: string;
  signal?: AbortSignal;
  /**
   * The file calls before `loaded`'s compact_boundary (transcripts/earlier.ts), read when asked:
   * the offline summarizer lists the files they changed; a model sees only the conversation.
   */
  earlier?: () => Promise<readonly Call[]>;
}

export interface CompactionSummarizer {
  /** The summary text; may hold `<analysis>` and `<summary>` tags (stripAnalysis removes them). */
  summarize(input: CompactionSummaryInput): Promise<string>;
}

/** What a model summarizer is asked, after the conversation itself. */
export const COMPACT_PROMPT = `Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions. The summary must capture the technical details, code patterns and decisions that are needed to continue the work without losing context.

Before the summary, write your analysis in <analysis> tags. Go through the conversation in order and, for each part, identify:
- the user's explicit requests and intents, and your approach to them;
- key decisions, technical concepts and code patterns;
- specific details: file names, full code snippets, function signatures, file edits;
- errors you ran into and how you fixed them;
- feedback from the user, especially where they told you to do something differently.
Then check the analysis for technical accuracy and completeness.

Then write the summary in <summary> tags, with these sections:
1. Primary Request and Intent: every explicit request and intent of the user, in detail.
2. Key Technical Concepts: the technologies, frameworks and concepts discussed.
3. Files and Code Sections: the files examined, modified or created, why each matters, a summary of the changes, and full code snippets where they matter.
4. Errors and fixes: every error you ran into and how you fixed it, with the user's feedback on it.
5. Problem Solving: the problems solved and any troubleshooting still going on.
6. All user messages: every user message that is not a tool result, verbatim. They show how the user's intent changed.
7. Pending Tasks: the tasks you were explicitly asked to do that are not done.
8. Current Work: precisely what was being worked on right before this summary, with file names and code snippets, paying special attention to the most recent messages.
9. Optional Next Step: the next step, only if it follows directly from the user's most recent explicit request and the work in progress. Quote the most recent messages verbatim to show where the work left off. Do not start on old or tangential requests without confirming them with the user.

Format:

<analysis>
[your analysis]
</analysis>

<summary>
1. Primary Request and Intent:
   [detailed description]

2. Key Technical Concepts:
   - [concept]

3. Files and Code Sections:
   - [file name]
      - [why it matters, what changed]
      - [code snippet]

4. Errors and fixes:
   - [error]:
      - [how it was fixed]

5. Problem Solving:
   [description]

6. All user messages:
   - [message]

7. Pending Tasks:
   - [task]

8. Current Work:
   [precise description]

9. Optional Next Step:
   [next step]
</summary>

Answer with text only: do not call any tools.`;

/** The prompt with the user's or a hook's compaction instructions, as Claude Code appends them. */
export function compactPrompt(instructions?: string): string {
  const extra = instructions?.trim() ?? '';
  return extra === '' ? COMPACT_PROMPT : `${COMPACT_PROMPT}\n\nAdditional Instructions:\n${extra}`;
}

/**
 * Where tags are quoted rather than the summarizer's own: Claude Code's generated blocks (a
 * `<task-notification>` holds a `<summary>` of its own), fenced code and inline code. Each is
 * blanked out with spaces, so that indices in the result are indices in the text.
 */
function maskQuoted(text: string): string {
  const generated = Object.keys(GENERATED_TAGS).join('|');
  const quoted = new RegExp(`\`\`\`[\\s\\S]*?\`\`\`|\`[^\`\\n]*\`|<(${generated})(?:\\s[^>]*)?>[\\s\\S]*?</\\1>`, 'g');
  return text.replace(quoted, (region) => ' '.repeat(region.length));
}

const SUMMARIZER_TAG = /<(\/?)(analysis|summary)>/g;

/**
 * The summary the summarizer wrote: the body of its last top-level `<summary>` outside its
 * `<analysis>` (a `<summary>` nested in it, or inside quoted content, is not one), or, without
 * one, the whole text less the analysis. An unclosed `<summary>` (output cut at its limit) runs
 * to the end.
 */
export function stripAnalysis(text: string): string {
  const masked = maskQuoted(text);
  const analyses: [number, number][] = [];
  let analysisFrom: number | null = null;
  let depth = 0;
  let open = 0;
  let last: [number, number] | null = null;
  for (const tag of masked.matchAll(SUMMARIZER_TAG)) {
    const closing = tag[1] === '/';
    const at = tag.index;
    if (analysisFrom !== null) {
      // Inside the analysis only its end counts: it may talk about the tags.
      if (closing && tag[2] === 'analysis') {
        analyses.push([analysisFrom, at + tag[0].length]);
        analysisFrom = null;
      }
    } else if (tag[2] === 'analysis') {
      if (!closing && depth === 0) analysisFrom = at;
    } else if (!closing) {
      if (depth === 0) open = at + tag[0].length;
      depth += 1;
    } else if (depth > 0) {
      depth -= 1;
      if (depth === 0) last = [open, at];
    }
  }
  if (depth > 0) last = [open, text.length];
  if (last !== null) return text.slice(last[0], last[1]).trim();
  let rest = '';
  let from = 0;
  for (const [start, end] of analyses) {
    rest += text.slice(from, start);
    from = end;
  }
  return (rest + text.slice(from)).trim();
}

/** Below this share of what it summarizes, a summary is a fragment (issue 12). */
export const MIN_SUMMARY_SHARE = 0.01;
/** A conversation of this many tokens holds more than MIN_SUMMARY_TOKENS can say. */
export const SUBSTANTIAL_CONVERSATION_TOKENS = 20_000;
/** The nine section headings alone take about 60 tokens; a real summary of a long session, hundreds. */
export const MIN_SUMMARY_TOKENS = 300;
/**
 * A summary restates a tool's output in a line or two: past this, a result adds nothing the
 * summary must account for (a session of big reads would otherwise need a summary of thousands).
 */
export const SUMMARIZED_TOOL_RESULT_CHARS = 2_000;

/** The conversation's tokens as a summary must account for them: each tool result up to SUMMARIZED_TOOL_RESULT_CHARS. */
export function summarizableTokens(messages: readonly MessageParam[]): number {
  let excess = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_result')
        excess += Math.max(0, JSON.stringify(block.content ?? '').length - SUMMARIZED_TOOL_RESULT_CHARS);
    }
  }
  return estimateTokens(JSON.stringify(messages).length - excess);
}

/**
 * Why a summary of `summaryTokens` is implausible for a conversation of `preTokens` (of which a
 * summary must account for `summarizable`), or null when it is plausible.
 */
export function implausibleSummary(summaryTokens: number, preTokens: number, summarizable = preTokens): string | null {
  if (summaryTokens < summarizable * MIN_SUMMARY_SHARE)
    return `under ${MIN_SUMMARY_SHARE * 100} % of the ${summarizable} tokens it summarizes, tool results counted up to ${SUMMARIZED_TOOL_RESULT_CHARS} characters`;
  if (preTokens >= SUBSTANTIAL_CONVERSATION_TOKENS && summaryTokens < MIN_SUMMARY_TOKENS) {
    return `under ${MIN_SUMMARY_TOKENS} tokens for a conversation of ${SUBSTANTIAL_CONVERSATION_TOKENS.toLocaleString('en')} or more`;
  }
  return null;
}

/** The tokens a summary counts for in the compacted conversation, as the result's postTokens counts them. */
export function summaryTokens(summary: string): number {
  return estimateMessageTokens([{ role: 'user', content: summary }]);
}

/**
 * Full compaction: one user message carrying the summary, worded as Claude Code words it. The
 * summary is what the summarizer wrote, analysis stripped.
 */
export async function summaryCompaction(
  conversation: {
    sessionId?: string;
    messages: ConversationMessage[];
    loaded: LoadedEntry[];
    file?: { path: string };
    /** The main transcript's entries and their active conversation: where the calls before it are. */
    entries?: readonly IndexedEntry[];
    active?: ActiveConversation;
  },
  summarizer: CompactionSummarizer,
  instructions?: string,
  signal?: AbortSignal,
): Promise<{ messages: ConversationMessage[]; summary: string }> {
  const { file, entries, active } = conversation;
  const earlier =
    file === undefined || entries === undefined || active === undefined
      ? undefined
      : () => readEarlierCalls(file.path, entries, active, signal);
  const raw = await summarizer.summarize({
    ...(conversation.sessionId === undefined ? {} : { sessionId: conversation.sessionId }),
    messages: conversation.messages,
    loaded: conversation.loaded,
    ...(instructions === undefined ? {} : { instructions }),
    ...(signal === undefined ? {} : { signal }),
    ...(earlier === undefined ? {} : { earlier }),
  });
  const summary = stripAnalysis(raw);
  if (summary === '') throw new Error('the summarizer returned an empty summary');
  const params = toMessageParams(conversation.messages);
  const before = estimateMessageTokens(params);
  const tokens = summaryTokens(summary);
  const why = implausibleSummary(tokens, before, summarizableTokens(params));
  if (why !== null) {
    throw new RpcError(
      ErrorCode.JobFailed,
      'ImplausibleSummary',
      `the summary is implausibly short: ${tokens} tokens for a ${before}-token conversation (${why})`,
      {
        summaryTokens: tokens,
        preTokens: before,
      },
    );
  }
  const path = conversation.file?.path;
  return {
    messages: [continuationMessage(`Summary:\n${summary}`, path === undefined ? {} : { transcriptPath: path })],
    summary,
  };
}
