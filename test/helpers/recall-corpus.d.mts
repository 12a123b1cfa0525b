/** A fact of a recall-benchmark session (recall-facts.mjs): what its transcript says, and the fields questions name. */
export interface RecallFact {
  kind: 'fix' | 'edit' | 'library' | 'secret' | 'command';
  /** Unique in the corpus: the project and the fields that tell this fact from another of its kind. */
  key: string;
  /** The project's slug (`billing-api`). */
  project: string;
  /** A fix's family (`timeout`, `flaky`, `refused`, `undefinedProp`, `missingModule`, `duplicateKey`, `throttled`). */
  family?: string;
  fields: Record<string, string | number>;
  request: string;
  /** A fix's error line, as the failed tool call printed it. */
  error?: string;
  edit?: { file: string; code: string };
  command?: string;
  /** The outcome in the assistant's words. */
  summary: string;
}

export interface RecallSession {
  sessionId: string;
  index: number;
  project: string;
  cwd: string;
  startMs: number;
  commonTask: string;
  facts: RecallFact[];
}

export interface RecallProject {
  area: string;
  kind: string;
  slug: string;
  cwd: string;
  nouns: string[];
  vendor: string;
  ext: string;
  test: string;
  lang: string;
}

export const RECALL_SESSIONS: number;
export const RECALL_SEED: number;
export const PROJECTS: RecallProject[];
export function projectFolder(cwd: string): string;
export function recallSessions(options?: { sessions?: number; seed?: number }): RecallSession[];
/** The session's transcript lines (JSON objects), in the order Claude Code writes them. */
export function sessionLines(session: RecallSession): Record<string, unknown>[];
export function writeRecallCorpus(projectsDir: string, sessions: RecallSession[]): { files: string[]; bytes: number };
