/**
 * Which files under the projects dir are transcripts (DESIGN.md §2):
 *   <project>/<sessionId>.jsonl                       the session's main transcript
 *   <project>/<sessionId>/subagents/<agent>.jsonl     a sub-agent's sidechain of that session
 *   <project>/agent-<agentId>.jsonl                   Claude Code 2.0.x's sub-agent files: the
 *                                                     session is the sessionId their entries carry
 * Everything else there (tool-results/, memory/, session-memory/, *.meta.json) is not ingested.
 * Pure path arithmetic (node:path only): ingest, the read model, sessions and handoffs all apply it.
 */
import { join, relative, sep } from 'node:path';

const TRANSCRIPT_SUFFIX = '.jsonl';
const SUBAGENTS_DIR = 'subagents';
/** Sub-agent files are named `agent-<agentId>.jsonl`; the entries inside carry the bare id. */
const AGENT_PREFIX = 'agent-';
/** Compaction agents' files (2.1.3x) are `agent-acompact-<id>.jsonl`: summary requests, not sub-agents. */
const COMPACTION_AGENT_PREFIX = 'acompact';
/** Project-level dirs that hold no transcripts; not descended into. */
const NON_SESSION_DIRS = new Set(['memory']);
/** Deepest level that can hold a transcript: <project>/<session>/subagents/<file> is 4 parts. */
export const TRANSCRIPT_MAX_DEPTH = 4;

export interface TranscriptFile {
  path: string;
  /** The project folder name (the sanitized cwd). */
  project: string;
  /**
   * For a 2.0.x top-level agent file, its stem until the entries name the session (the writer
   * then files it under that session; see sessionFromEntries).
   */
  sessionId: string;
  /** Null for the main transcript. */
  agentId: string | null;
  /** The path does not say the session: the sessionId of the file's entries does. */
  sessionFromEntries: boolean;
  /** Another machine's transcript, decoded from its synced archive (issue 35): that machine's device id. */
  device?: string;
}

function stem(name: string): string | null {
  if (!name.endsWith(TRANSCRIPT_SUFFIX)) return null;
  const base = name.slice(0, -TRANSCRIPT_SUFFIX.length);
  return base === '' ? null : base;
}

function partsUnder(root: string, path: string): string[] | null {
  const rel = relative(root, path);
  if (rel === '') return [];
  if (rel.startsWith('..') || rel.startsWith(sep)) return null;
  return rel.split(sep);
}

export function isCompactionAgent(agentId: string | null): boolean {
  return agentId?.startsWith(COMPACTION_AGENT_PREFIX) === true;
}

/** The transcript a path names, or null when it is not one. */
export function classifyTranscript(root: string, path: string): TranscriptFile | null {
  const parts = partsUnder(root, path);
  if (parts === null) return null;
  if (parts.length === 2) {
    const [project, name] = parts as [string, string];
    const base = stem(name);
    if (base === null) return null;
    if (base.startsWith(AGENT_PREFIX))
      return { path, project, sessionId: base, agentId: base.slice(AGENT_PREFIX.length), sessionFromEntries: true };
    return { path, project, sessionId: base, agentId: null, sessionFromEntries: false };
  }
  if (parts.length === 4) {
    const [project, sessionId, dir, name] = parts as [string, string, string, string];
    const agent = stem(name);
    if (dir !== SUBAGENTS_DIR || agent === null || NON_SESSION_DIRS.has(sessionId)) return null;
    const agentId = agent.startsWith(AGENT_PREFIX) ? agent.slice(AGENT_PREFIX.length) : agent;
    return { path, project, sessionId, agentId, sessionFromEntries: false };
  }
  return null;
}

/**
 * Where transcripts are indexed from: the projects dir, and (issue 35) other machines' transcripts
 * decoded under `<syncedDir>/<device>/<project>/…`, laid out as a projects dir of their own.
 */
export interface TranscriptRoots {
  classify(path: string): TranscriptFile | null;
  /** The dir a transcript must stay inside (symlinks resolved). */
  rootOf(file: TranscriptFile): string;
}

export function transcriptRoots(projectsDir: string, syncedDir?: string): TranscriptRoots {
  return {
    classify(path) {
      const local = classifyTranscript(projectsDir, path);
      if (local !== null || syncedDir === undefined) return local;
      const device = partsUnder(syncedDir, path)?.[0];
      if (device === undefined || device === '') return null;
      const synced = classifyTranscript(join(syncedDir, device), path);
      return synced === null ? null : { ...synced, device };
    },
    rootOf: (file) =>
      file.device === undefined || syncedDir === undefined ? projectsDir : join(syncedDir, file.device),
  };
}

/**
 * Whether the watcher may skip a path. `isDir` is undefined when the kind is not known yet: then
 * only what no transcript path can be is skipped.
 */
export function isIgnoredPath(root: string, path: string, isDir: boolean | undefined): boolean {
  const parts = partsUnder(root, path);
  if (parts === null) return true;
  const depth = parts.length;
  if (depth === 0) return false;
  const name = parts[depth - 1] as string;
  const couldBeFile = isDir !== true;
  const couldBeDir = isDir !== false;
  switch (depth) {
    case 1:
      return !couldBeDir;
    case 2:
      return !((couldBeFile && stem(name) !== null) || (couldBeDir && !NON_SESSION_DIRS.has(name)));
    case 3:
      return !(couldBeDir && name === SUBAGENTS_DIR);
    case 4:
      return !(couldBeFile && classifyTranscript(root, path) !== null);
    default:
      return true;
  }
}
