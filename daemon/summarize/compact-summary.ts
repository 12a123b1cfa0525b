/**
 * Layer 3, full compaction: the conversation replaced by one summary in Claude Code's nine
 * sections, nothing else kept verbatim. Summarizers are behind an interface: a model is asked
 * COMPACT_PROMPT; the default, offline one (offline-compact.ts) needs no network.
 */
import type { LoadedEntry } from '../compact/content.js';
import type { ConversationMessage } from '../compact/messages.js';
import { continuationMessage } from '../compact/session-memory.js';

export interface CompactionSummaryInput {
  messages: ConversationMessage[];
  loaded: LoadedEntry[];
  instructions?: string;
  signal?: AbortSignal;
}

export interface CompactionSummarizer {
  /** The summary text; may hold `<analysis>` and `<summary>` tags (stripAnalysis removes them). */
  summarize(input: CompactionSummaryInput): Promise<string>;
}

export const SUMMARY_SECTIONS = [
  'Primary Request and Intent',
  'Key Technical Concepts',
  'Files and Code Sections',
  'Errors and fixes',
  'Problem Solving',
  'All user messages',
  'Pending Tasks',
  'Current Work',
  'Optional Next Step',
] as const;

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

/** The summary without the model's `<analysis>` and without its `<summary>` wrapper. */
export function stripAnalysis(text: string): string {
  const withoutAnalysis = text.replace(/<analysis>[\s\S]*?<\/analysis>/g, '');
  const open = withoutAnalysis.indexOf('<summary>');
  if (open === -1) return withoutAnalysis.trim();
  // An unclosed <summary> (output cut at its limit) still holds the summary.
  const body = withoutAnalysis.slice(open + '<summary>'.length);
  const close = body.indexOf('</summary>');
  return (close === -1 ? body : body.slice(0, close)).trim();
}

/**
 * Full compaction: one user message carrying the summary, worded as Claude Code words it. The
 * summary is what the summarizer wrote, analysis stripped.
 */
export async function summaryCompaction(
  conversation: { messages: ConversationMessage[]; loaded: LoadedEntry[]; file?: { path: string } },
  summarizer: CompactionSummarizer,
  instructions?: string,
  signal?: AbortSignal,
): Promise<{ messages: ConversationMessage[]; summary: string }> {
  const raw = await summarizer.summarize({
    messages: conversation.messages,
    loaded: conversation.loaded,
    ...(instructions === undefined ? {} : { instructions }),
    ...(signal === undefined ? {} : { signal }),
  });
  const summary = stripAnalysis(raw);
  if (summary === '') throw new Error('the summarizer returned an empty summary');
  const path = conversation.file?.path;
  return { messages: [continuationMessage(`Summary:\n${summary}`, path === undefined ? {} : { transcriptPath: path })], summary };
}
