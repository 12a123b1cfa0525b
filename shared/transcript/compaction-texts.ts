/**
 * Claude Code's texts around a compaction, as they appear in transcripts: the lines of the
 * message that carries a summary, and the sections of its summary prompt. Compaction writes
 * them; extraction and the offline summarizers recognize them in what they read. Pure.
 */

/** Claude Code's opening line of the message that carries a compaction summary. */
export const CONTINUATION_OPENING =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.';
export const TRANSCRIPT_POINTER =
  'If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: ';
export const RECENT_PRESERVED = 'Recent messages are preserved verbatim.';
/** Claude Code's closing line: the model picks the work up instead of asking what to do. */
export const CONTINUATION_CLOSING =
  'Continue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface with "I\'ll continue" or similar. Pick up the last task as if the break never happened.';

/** The sections of Claude Code's compaction summary, in order (numbered from 1 in a summary). */
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
