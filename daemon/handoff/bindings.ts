/**
 * The daemon's side of the handoff bindings (shared/handoff/binding.ts): `<state>/handoffs/<sha256
 * of the handoff's path>.json`, 0600 in a 0700 dir, written atomically (a temp file renamed over,
 * so a symlink planted at the name is replaced, never written through) and read O_NOFOLLOW.
 * memctl's hook fallback reads and writes the same files (client/memctl/handoff-binding.ts).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  bindingFileName,
  HANDOFF_BINDING_VERSION,
  type HandoffBinding,
  type HandoffTrust,
  judgeHandoff,
  MAX_BINDING_BYTES,
} from '../../shared/handoff/binding.js';
import { HANDOFF_RELATIVE_PATH } from '../../shared/handoff/gitignore.js';
import { handoffBindingsDir } from '../../shared/paths.js';
import { PRIVATE_FILE_MODE, writeFileAtomic } from '../fs/atomic.js';
import { isMissingPath } from '../fs/read.js';
import type { Logger } from '../log/logger.js';

const PRIVATE_DIR_MODE = 0o700;
/** Reasons already logged (path and reason): SessionStart asks at every resume, the log says it once. */
const MAX_REPORTED = 1_000;

export const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The handoff's path as bindings name it: under the cwd resolved. */
export function boundHandoffPath(realCwd: string): string {
  return join(realCwd, ...HANDOFF_RELATIVE_PATH.split('/'));
}

export interface HandoffBindings {
  /** Records that `text` was just written at the handoff of `realCwd` for `sessionId`. */
  record(realCwd: string, text: string, sessionId: string | null): Promise<void>;
  /** Whether the handoff of `realCwd`, read as `text`, is memd's (for `sessionId`, when one is asked for). */
  judge(realCwd: string, text: string, sessionId?: string | null): Promise<HandoffTrust>;
  /** Logs a handoff left out, once per path and reason. */
  reportUntrusted(what: string, reason: string): void;
}

export function createHandoffBindings(deps: { stateDir: string; clock: () => number; log: Logger }): HandoffBindings {
  const dir = handoffBindingsDir(deps.stateDir);
  const reported = new Set<string>();
  const fileOf = (path: string) => join(dir, bindingFileName(sha256Of(path)));

  /** Null when the dir is ours and private (made when `create`); else why the bindings cannot be trusted. */
  async function checkDir(create: boolean): Promise<string | 'absent' | null> {
    if (create) await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const found = await lstat(dir).catch((error: unknown) => (isMissingPath(error) ? null : Promise.reject(error)));
    if (found === null) return 'absent';
    if (found.isSymbolicLink() || !found.isDirectory()) return `${dir} is not a plain directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && found.uid !== uid) return `${dir} belongs to uid ${found.uid}, not to you`;
    if ((found.mode & 0o022) !== 0) return `${dir} can be written by others`;
    return null;
  }

  async function readBinding(path: string): Promise<unknown> {
    const problem = await checkDir(false);
    if (problem === 'absent') return null;
    if (problem !== null) return { problem };
    let handle;
    try {
      handle = await open(fileOf(path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if (isMissingPath(error)) return null;
      return { problem: (error as Error).message };
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > MAX_BINDING_BYTES) return { problem: 'not a small regular file' };
      const buffer = Buffer.alloc(stat.size);
      const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
      return JSON.parse(buffer.subarray(0, bytesRead).toString('utf8')) as unknown;
    } catch {
      return { problem: 'not JSON' };
    } finally {
      await handle.close();
    }
  }

  return {
    async record(realCwd, text, sessionId) {
      const problem = await checkDir(true);
      if (problem !== null) throw new Error(`the handoff's record was not written: ${problem}`);
      const path = boundHandoffPath(realCwd);
      const binding: HandoffBinding = {
        version: HANDOFF_BINDING_VERSION,
        path,
        sessionId,
        sha256: sha256Of(text),
        writtenAt: new Date(deps.clock()).toISOString(),
        writer: 'daemon',
      };
      await writeFileAtomic(fileOf(path), `${JSON.stringify(binding)}\n`, PRIVATE_FILE_MODE);
    },

    async judge(realCwd, text, sessionId) {
      const path = boundHandoffPath(realCwd);
      return judgeHandoff({ path, text, sha256: sha256Of(text), binding: await readBinding(path), sessionId });
    },

    reportUntrusted(what, reason) {
      const key = `${what}\0${reason}`;
      if (reported.has(key)) return;
      if (reported.size < MAX_REPORTED) reported.add(key);
      deps.log.warn(`${what}: the handoff file is not memd's, or not this session's; it is treated as absent`, {
        reason,
      });
    },
  };
}
