/**
 * The handoff as the user writes it (issue 29): memd under its systemd unit sees the home directory
 * read-only (ProtectHome=read-only), so the PreCompact hook and `memctl handoff`, running as the
 * user in the project, write `<cwd>/docs/handoff-context.md` from what the daemon returns. By the
 * daemon's rule (client/memctl/work-tree.ts): nothing on the way followed through a symlink, no
 * FIFO opened, written atomically, 0600; `docs/` made with the user's umask. The daemon has
 * recorded the binding (`writeFile: false`), so the bytes written must be exactly its `text`.
 * And the rules to pin when no daemon answers, read from the transcript itself.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { HANDOFF_RELATIVE_PATH, withIgnoredPath } from '../../shared/handoff/gitignore.js';
import { userPromptsOf } from '../../shared/handoff/prompts.js';
import { renderPinned } from '../../shared/handoff/render.js';
import { userRules } from '../../shared/handoff/rules.js';
import { redactSecrets } from '../../shared/text/redact.js';
import { readTextInWorkTree, writeInWorkTree } from './work-tree.js';

/** The handoff holds transcript content: owner only, as the daemon writes it. */
export const PRIVATE_FILE_MODE = 0o600;
/** A new .gitignore is a normal repository file, as the daemon makes it. */
const NEW_GITIGNORE_MODE = 0o644;
/**
 * The transcript read for rules without a daemon, from its end: 64 MiB is hundreds of turns and
 * reads in well under a second, inside PreCompact's 60 s; rules said before are in the last summary.
 */
export const MAX_RULES_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

export interface WrittenHandoff {
  path: string;
  /** True when this write added the handoff to `.gitignore`. */
  gitignoreUpdated: boolean;
  /** Why `.gitignore` was left as it is (a symlink, a special file, a failed write); null when it ignores the handoff now. */
  gitignoreSkipped: string | null;
}

/** Writes the handoff's `text` under `cwd` and the `.gitignore` line once; throws with the reason when the handoff cannot be written. */
export function writeHandoffFile(cwd: string, text: string): WrittenHandoff {
  const path = writeInWorkTree(cwd, HANDOFF_RELATIVE_PATH, text, PRIVATE_FILE_MODE);
  try {
    const next = withIgnoredPath(readTextInWorkTree(cwd, '.gitignore'));
    if (next !== null) writeInWorkTree(cwd, '.gitignore', next, NEW_GITIGNORE_MODE);
    return { path, gitignoreUpdated: next !== null, gitignoreSkipped: null };
  } catch (error) {
    return { path, gitignoreUpdated: false, gitignoreSkipped: (error as Error).message };
  }
}

/** The end of the transcript, at most `MAX_RULES_TRANSCRIPT_BYTES`; non-blocking, regular files only. */
function transcriptEnd(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${path} is not a regular file`);
    const length = Math.min(stats.size, MAX_RULES_TRANSCRIPT_BYTES);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, stats.size - length);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * What PreCompact prints to pin the user's rules, made here from the transcript's prompts when
 * memd did not answer (the daemon's `pinned`, by the same rules; redacted); '' when there are none.
 */
export function pinnedFromTranscript(transcriptPath: string): string {
  const rules = userRules(userPromptsOf(transcriptEnd(transcriptPath)));
  return redactSecrets(renderPinned(rules));
}
