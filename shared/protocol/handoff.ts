/**
 * Results of handoff.* (issue 7): `<cwd>/docs/handoff-context.md`, written through Claude Code's
 * PreCompact hook (or on demand) so that the turn after a compaction continues with nothing lost.
 */
import type { Survival } from './compaction.js';
import { arrayOf, bool, looseObject, nullable, num, oneOf, optional, type Schema, str } from './schema.js';

export type HandoffSummarizer = 'offline' | 'anthropic';

export const HANDOFF_FILE_STATUSES = ['created', 'modified', 'deleted', 'renamed', 'untracked', 'read'] as const;
export type HandoffFileStatus = (typeof HANDOFF_FILE_STATUSES)[number];

export interface HandoffFileTouched {
  /** As the tools named it (absolute), or relative to cwd for git's entries. */
  path: string;
  /** From git where cwd is a repo, else from the tool calls. */
  status: HandoffFileStatus;
  /** One line: what was done to it (the tools and how often). */
  summary: string;
}

export interface HandoffCommand {
  command: string;
  /** Null when the result does not say. */
  exitCode: number | null;
  isError: boolean;
}

export interface HandoffFacts {
  git: { branch: string | null; porcelain: string[]; diffStat: string | null } | null;
  /** Set when git did not answer in time (then `git` is null though cwd may be a repository). */
  gitProblem?: string;
  filesTouched: HandoffFileTouched[];
  /** The last commands run, oldest first. */
  commands: HandoffCommand[];
  /** Commands whose last run failed (not fixed by a later passing run of the same command). */
  failing: HandoffCommand[];
  todos: { content: string; status: string }[];
  /** The user's rules, verbatim. */
  constraints: string[];
  /** Approaches the user ruled out, verbatim. */
  ruledOut: string[];
}

export interface HandoffResult {
  sessionId: string | null;
  cwd: string;
  path: string;
  /** True when the narrative could not be made (timeout, failure): the file holds the transcript's tail. */
  partial: boolean;
  summarizer: HandoffSummarizer | null;
  generatedAt: string;
  /** What PreCompact prints for the compaction instructions: the constraints and ruled-out approaches. */
  pinned: string;
  facts: HandoffFacts;
  /**
   * False when the call asked `writeFile: false`: the caller writes `text` at `path` (memd has
   * recorded it as its own already); true when memd wrote it. An addition to DESIGN.md (issue 29).
   */
  written: boolean;
  /** True when this call added docs/handoff-context.md to <cwd>/.gitignore. */
  gitignoreUpdated: boolean;
  /** Files of the working tree left alone, and why (a .gitignore that is a symlink, say). */
  skipped: { path: string; reason: string }[];
  text: string;
}

export interface HandoffReadResult {
  cwd: string;
  path: string;
  /** Null when there is no handoff file, or when it was refused or is untrusted. */
  text: string | null;
  partial: boolean;
  /** Why the file was not read (a symlink, not a regular file); null otherwise. */
  refused: string | null;
  /**
   * Why a file that is there is not used (issue 27): memd did not write it, it changed since, or
   * it was written for another session than the one asking; null otherwise. An addition to DESIGN.md.
   */
  untrusted: string | null;
  /** The session memd wrote the handoff for (null when `text` is null or the writer knew none). An addition to DESIGN.md. */
  sessionId: string | null;
}

/** `handoff.sessionStart`: what the SessionStart hook prints for the model's context. */
export interface SessionStartResult {
  /** Null when there is nothing to add (then the hook prints nothing). */
  additionalContext: string | null;
  /** Its estimated tokens (chars / 4), at most 10,000. */
  tokens: number;
  /** What went in: the handoff file and the feedback memories' names. */
  sources: string[];
  /** Why a handoff file in the cwd was left out (not memd's, changed, another session's); null otherwise. An addition (issue 27). */
  untrusted: string | null;
}

/** Whether the context a SessionStart hook gave was found in the transcript afterwards. */
export interface HandoffInjection {
  source: string;
  expectedAt: string;
  /** Null while not yet known (no entry after the SessionStart yet). */
  injected: boolean | null;
  checkedAt: string | null;
}

export interface CompactRecord {
  trigger: string;
  recordedAt: string;
  summaryChars: number;
  /** What the compaction summary dropped of the conversation before it; null when unknown. */
  lost: { userMessages: string[]; filePaths: string[]; identifiers: string[]; errors: string[] } | null;
  /** Which of the session's facts the summary kept (issue 32, docs/survival.md); null when unknown or recorded before. */
  survival: Survival | null;
}

const handoffCommandSchema = looseObject({ command: str(), exitCode: nullable(num()), isError: bool() });

export const handoffResultSchema: Schema<HandoffResult> = looseObject({
  sessionId: nullable(str()),
  cwd: str(),
  path: str(),
  partial: bool(),
  summarizer: nullable(oneOf('offline', 'anthropic')),
  generatedAt: str(),
  pinned: str(),
  facts: looseObject({
    git: nullable(looseObject({ branch: nullable(str()), porcelain: arrayOf(str()), diffStat: nullable(str()) })),
    gitProblem: optional(str()),
    filesTouched: arrayOf(looseObject({ path: str(), status: oneOf(...HANDOFF_FILE_STATUSES), summary: str() })),
    commands: arrayOf(handoffCommandSchema),
    failing: arrayOf(handoffCommandSchema),
    todos: arrayOf(looseObject({ content: str(), status: str() })),
    constraints: arrayOf(str()),
    ruledOut: arrayOf(str()),
  }),
  written: bool(),
  gitignoreUpdated: bool(),
  skipped: arrayOf(looseObject({ path: str(), reason: str() })),
  text: str(),
});

/** A turn Claude Code ended on an API error (its StopFailure hook, issue 31). */
export interface TurnFailure {
  at: string;
  /** Claude Code's error kind: `rate_limit`, `invalid_request` (a 413), `overloaded`, … */
  error: string;
  details: string | null;
}

/** The instruction files (CLAUDE.md, rules) Claude Code reported in context (its InstructionsLoaded hook, issue 31). */
export interface InstructionsState {
  /** Each file once, in the order last loaded. */
  loaded: { path: string; memoryType: string; loadReason: string; at: string }[];
  /** When Claude Code last loaded files again after a compaction; null before any. */
  compactedAt: string | null;
  /** Files in context before that compaction that have not been loaded since. */
  notBack: string[];
}

/** `handoff.status`: a session's hook records. */
export interface HandoffStatusResult {
  sessionId: string;
  injection: HandoffInjection | null;
  /** Newest first. */
  compactions: CompactRecord[];
  /** Issue 31, kept in memory while the daemon runs (absent from an older memd): newest first. */
  turnFailures?: TurnFailure[];
  instructions?: InstructionsState;
}
