/**
 * What a session report shows, as plain data: the daemon reads it off the transcript and the index
 * (daemon/export/), and the renderers here turn it into markdown, HTML and an SVG chart without any
 * I/O. Every string in it comes from the transcript and is untrusted: renderers escape it.
 */

export interface ReportSession {
  sessionId: string;
  title: string | null;
  /** The project folder (`-home-user-src-app`). */
  project: string;
  cwd: string | null;
  gitBranch: string | null;
  model: string | null;
  firstActivity: string | null;
  lastActivity: string | null;
}

/** A text the report cut to stay bounded: `cutChars` characters were left out at its end. */
export interface CutText {
  text: string;
  cutChars: number;
}

export interface ToolOutput extends CutText {
  /** is_error, or a non-zero exit code. */
  failed: boolean;
  exit: number | null;
}

export interface ToolCall {
  id: string;
  name: string;
  /** One line saying what the call did: a command, a path, a pattern; '' when its input names none. */
  label: string;
  /** The input as indented JSON, cut. */
  input: CutText;
  /** Null while no result was written (an interrupted call). */
  result: ToolOutput | null;
}

export type ConversationItem =
  | ({ kind: 'prompt'; at: string | null } & CutText)
  | ({ kind: 'assistant'; at: string | null } & CutText)
  | ({ kind: 'thinking'; at: string | null } & CutText)
  | { kind: 'tool'; at: string | null; call: ToolCall }
  | { kind: 'compaction'; at: string | null; trigger: string; preTokens: number | null }
  /** The summary Claude Code wrote after a compaction boundary. */
  | ({ kind: 'summary'; at: string | null } & CutText);

export interface ReportConversation {
  items: ConversationItem[];
  /** Items left out at the end because the report reached its size budget. */
  omittedItems: number;
  /** Messages of the main thread on no segment of the conversation (rewound branches): not shown, and said. */
  offBranchMessages: number;
  /** Texts and tool outputs that were cut (each says how much). */
  cutTexts: number;
  /** The cuts the report was made with, so that it can say them. */
  limits: { toolOutputChars: number; textChars: number; totalChars: number };
}

/** The context one assistant response was sent with, and when. */
export interface ContextPoint {
  at: string | null;
  tokens: number;
}

export interface CompactionMark {
  /** How many points (responses) came before the compaction. */
  after: number;
  at: string | null;
  trigger: string;
  preTokens: number | null;
  /** The survival score recorded for this compaction (issue 32, docs/survival.md); absent when none was. */
  kept?: { kept: number; total: number };
}

export interface ContextChart {
  points: ContextPoint[];
  compactions: CompactionMark[];
  /** The auto-compact threshold now (the window in reactive mode); null when auto-compaction is off. */
  autoCompactAt: number | null;
  /** The context window the threshold is computed from. */
  window: number;
  /** ThresholdResult.autoCompactMode: `reactive` compacts only when the API refuses, at the window. */
  autoCompactMode: 'threshold' | 'reactive';
}

export interface CostRow {
  model: string;
  /** API responses, each counted once. */
  responses: number;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  /** Null when the model has no price. */
  costUsd: number | null;
}

export interface ReportCosts {
  rows: CostRow[];
  total: CostRow;
  /** Cache reads over all prompt tokens (input + cache writes + cache reads); null without any. */
  cacheHitRate: number | null;
}

export interface FileTouch {
  path: string;
  reads: number;
  edits: number;
  writes: number;
}

export interface ErrorLine {
  at: string | null;
  tool: string;
  label: string;
  /** The line of the output that says what failed. */
  line: string;
}

export interface ReportModel {
  session: ReportSession;
  conversation: ReportConversation;
  chart: ContextChart;
  costs: ReportCosts;
  files: FileTouch[];
  errors: ErrorLine[];
  /** Errors beyond the ones listed. */
  omittedErrors: number;
}
