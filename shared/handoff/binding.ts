/**
 * Which handoff files are memd's (issue 27, item 1). `docs/handoff-context.md` lives in a working
 * tree, and a cloned repository can ship one that looks like memd's. So whoever writes a handoff
 * (the daemon, or the PreCompact hook without one) records beside it, in memd's private state dir,
 * a binding: the file's path, the session it was written for and the SHA-256 of the exact text
 * written. A handoff is used (SessionStart context, handoff.read, the MCP tool) only when its
 * binding is there, its digest matches and its session is the one asking; anything else is absent,
 * with the reason. Pure: the daemon and memctl read and write the binding files themselves
 * (daemon/handoff/bindings.ts, client/memctl/handoff-binding.ts) and judge them here.
 */

export const HANDOFF_BINDING_VERSION = 1;
/** A binding is a few hundred bytes; a bigger file there is not one memd wrote. */
export const MAX_BINDING_BYTES = 64 * 1024;

export interface HandoffBinding {
  version: typeof HANDOFF_BINDING_VERSION;
  /** The handoff's path, its cwd resolved (`<real cwd>/docs/handoff-context.md`). */
  path: string;
  /** The session it was written for; null when the writer knew none (then no session gets it at SessionStart). */
  sessionId: string | null;
  /** SHA-256 (hex) of the UTF-8 text written. */
  sha256: string;
  /** ISO 8601. */
  writtenAt: string;
  writer: 'daemon' | 'hook';
}

export type HandoffTrust = { trusted: true; binding: HandoffBinding } | { trusted: false; reason: string };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The binding's file in `<state>/handoffs/`, named by the SHA-256 (hex) of the handoff's path. */
export function bindingFileName(pathSha256: string): string {
  return `${pathSha256}.json`;
}

/** The binding in a binding file's parsed JSON; null when it is not one. */
export function parseBinding(value: unknown): HandoffBinding | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (record.version !== HANDOFF_BINDING_VERSION) return null;
  if (typeof record.path !== 'string' || typeof record.sha256 !== 'string' || !SHA256_HEX.test(record.sha256))
    return null;
  if (record.sessionId !== null && typeof record.sessionId !== 'string') return null;
  if (typeof record.writtenAt !== 'string' || (record.writer !== 'daemon' && record.writer !== 'hook')) return null;
  return {
    version: HANDOFF_BINDING_VERSION,
    path: record.path,
    sessionId: record.sessionId,
    sha256: record.sha256,
    writtenAt: record.writtenAt,
    writer: record.writer,
  };
}

/** The session a handoff's first line names (`# Handoff — session <id> — …`); null when none. */
export function headerSession(text: string): string | null {
  const first = text.split('\n', 1)[0] ?? '';
  if (!first.startsWith('# Handoff')) return null;
  return /— session (\S+) —/.exec(first)?.[1] ?? null;
}

const sessionName = (sessionId: string | null) => (sessionId === null ? 'no known session' : `session ${sessionId}`);

export interface HandoffToJudge {
  /** `<real cwd>/docs/handoff-context.md`. */
  path: string;
  /** SHA-256 (hex) of the file's text as read. */
  sha256: string;
  text: string;
  /** The binding file's parsed JSON; null when there is none. */
  binding: unknown;
  /** The session asking (SessionStart); undefined when any session's handoff will do (handoff.read, the MCP tool). */
  sessionId?: string | null | undefined;
}

/** Whether a handoff file is one memd wrote, unchanged since, for the session asking; else why not. */
export function judgeHandoff(file: HandoffToJudge): HandoffTrust {
  if (file.binding === null) {
    return {
      trusted: false,
      reason: `memd did not write ${file.path} (memd's state dir has no record of it): a handoff that came with a repository or was written by hand is not used`,
    };
  }
  const binding = parseBinding(file.binding);
  if (binding === null || binding.path !== file.path)
    return { trusted: false, reason: `memd's record of ${file.path} is not valid: the file is not used` };
  if (binding.sha256 !== file.sha256) {
    return {
      trusted: false,
      reason: `${file.path} changed after memd wrote it (for ${sessionName(binding.sessionId)}, at ${binding.writtenAt}): an edited handoff is not used; memctl handoff writes a new one`,
    };
  }
  const named = headerSession(file.text);
  if (named !== (binding.sessionId ?? 'unknown'))
    return {
      trusted: false,
      reason: `the first line of ${file.path} does not name ${sessionName(binding.sessionId)}, which memd wrote it for`,
    };
  if (file.sessionId !== undefined && binding.sessionId !== file.sessionId) {
    return {
      trusted: false,
      reason: `${file.path} was written for ${sessionName(binding.sessionId)}, not for this session (${file.sessionId ?? 'unknown'})`,
    };
  }
  return { trusted: true, binding };
}
