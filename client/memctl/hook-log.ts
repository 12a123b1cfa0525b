/**
 * Where the hooks' own notes go (a partial handoff written, memd not answering, a handoff file not
 * trusted): not stderr, which a hook must leave empty whatever happens (Claude Code shows a hook's
 * stderr to the user), but `hooks.log` in memd's state dir, one JSON line per note, which `memctl
 * doctor` and a user can read. Best effort: a note that cannot be written is dropped, never thrown.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths } from '../../shared/paths.js';
import { redactSecrets } from '../../shared/text/redact.js';

/** The hooks' log file, in memd's state dir. */
export const HOOK_LOG_FILE = 'hooks.log';
/** Past this the log is moved to hooks.log.1 (one kept): notes are a few hundred bytes a hook at most. */
const HOOK_LOG_MAX_BYTES = 1024 * 1024;
/** Append, never through a symlink, and never wait on a FIFO planted there (no reader: ENXIO). */
const LOG_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Private to the user, as everything in the state dir. */
const HOOK_LOG_MODE = 0o600;

export function hookLogPath(env: NodeJS.ProcessEnv): string {
  return join(resolvePaths(env, homedir()).stateDir, HOOK_LOG_FILE);
}

/** A writer of one note; never throws, never follows a symlink at the log's place. */
export function hookNotes(env: NodeJS.ProcessEnv, clock: () => number = Date.now): (text: string) => void {
  return (text) => {
    try {
      const path = hookLogPath(env);
      mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
      let fd = openSync(path, LOG_FLAGS, HOOK_LOG_MODE);
      const found = fstatSync(fd);
      if (!found.isFile()) {
        closeSync(fd);
        return;
      }
      if (found.size > HOOK_LOG_MAX_BYTES) {
        closeSync(fd);
        renameSync(path, `${path}.1`);
        fd = openSync(path, LOG_FLAGS, HOOK_LOG_MODE);
      }
      try {
        writeSync(fd, `${JSON.stringify({ time: new Date(clock()).toISOString(), msg: redactSecrets(text) })}\n`);
      } finally {
        closeSync(fd);
      }
    } catch {
      // A hook's note is worth less than the hook: a full disk or a strange state dir drops it.
    }
  };
}
