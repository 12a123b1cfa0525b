/**
 * `recall.forPrompt` and `recall.forFailure` (issue 33, items 3 and 4): what memd recalls from past
 * sessions for the hooks Claude Code runs on each prompt (UserPromptSubmit, `memctl hook turn-start`)
 * and after a failed tool call (PostToolUseFailure, `memctl hook tool-failed`). The daemon does the
 * work in one exchange, within the deadline the hook gives it, and answers the context to inject
 * (quoted as data, redacted, within the configured budget) or null with the reason it has none.
 */
import { arrayOf, looseObject, nullable, num, oneOf, type Schema, str } from './schema.js';

export { RECALL_DAEMON_DEADLINE_MS, RECALL_HOOK_DEADLINE_MS } from './recall-hook.js';

/** A caller may give the daemon at most this long (`memctl` and tests; the hooks give the default). */
export const MAX_RECALL_DEADLINE_MS = 5_000;

/** How a recalled line opens what it injects: memd's own traffic, never indexed as the user's (shared/search/own-traffic.ts). */
export const MEMD_RECALL_HEAD = 'memd recall:';

/**
 * Why nothing was injected: recall is off (its budget is 0), the prompt or error has too few words
 * that mean something, nothing passed the relevance threshold, what passed was injected already in
 * this session, or the deadline came first.
 */
export const RECALL_SKIPS = ['off', 'too-short', 'below-threshold', 'already-injected', 'deadline'] as const;
export type RecallSkip = (typeof RECALL_SKIPS)[number];

/** Where an injected passage came from: another session's line, or a memory file of the project. */
export interface RecallSource {
  /** The session's id, or `memory:<scope>:<name>` for a project memory. */
  sessionId: string;
  /** The line's uuid (`memctl search --context SESSION:UUID`); null for a memory. */
  uuid: string | null;
  /** What kind of text matched: a search kind (prompt, error, tool…) or `memory`. */
  field: string;
  /** The part of the question's weight the passage holds, 0-1: what the threshold is checked on. */
  coverage: number;
}

export interface RecallResult {
  /** The text for Claude Code's `additionalContext`; null when there is nothing good to say. */
  additionalContext: string | null;
  /** Its estimated tokens (characters / 4), within the configured budget. */
  tokens: number;
  sources: RecallSource[];
  /** Why nothing was injected; null when something was. */
  skipped: RecallSkip | null;
}

export const recallResultSchema: Schema<RecallResult> = looseObject({
  additionalContext: nullable(str()),
  tokens: num(),
  sources: arrayOf(looseObject({ sessionId: str(), uuid: nullable(str()), field: str(), coverage: num() })),
  skipped: nullable(oneOf(...RECALL_SKIPS)),
});
