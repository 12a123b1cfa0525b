/**
 * The hooks' fallback without a daemon reads and writes the handoff bindings itself, by the
 * daemon's rule (daemon/handoff/bindings.ts, shared/handoff/binding.ts): `<state>/handoffs/<sha256
 * of the handoff's path>.json`, 0600 in a 0700 dir that must be the user's, written atomically,
 * read O_NOFOLLOW. The state dir is found as the daemon finds it (shared/paths.ts). Synchronous,
 * like the rest of the hook.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
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
import { handoffBindingsDir, resolvePaths } from '../../shared/paths.js';
import { writeFileAtomic } from './atomic-file.js';

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function bindingsDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  return handoffBindingsDir(resolvePaths(env, home).stateDir);
}

/** The handoff's path as bindings name it: under the cwd resolved. */
function boundPath(cwd: string): string {
  return join(realpathSync(cwd), ...HANDOFF_RELATIVE_PATH.split('/'));
}

/** Null when the dir is the user's and private; 'absent'; or why its bindings cannot be trusted. */
function checkDir(dir: string): string | 'absent' | null {
  let found;
  try {
    found = lstatSync(dir);
  } catch {
    return 'absent';
  }
  if (found.isSymbolicLink() || !found.isDirectory()) return `${dir} is not a plain directory`;
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid) return `${dir} belongs to uid ${found.uid}, not to you`;
  if ((found.mode & 0o022) !== 0) return `${dir} can be written by others`;
  return null;
}

function readBinding(dir: string, path: string): unknown {
  const problem = checkDir(dir);
  if (problem === 'absent') return null;
  if (problem !== null) return { problem };
  let fd: number;
  try {
    fd = openSync(
      join(dir, bindingFileName(sha256Of(path))),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : { problem: (error as Error).message };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_BINDING_BYTES) return { problem: 'not a small regular file' };
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return JSON.parse(buffer.subarray(0, read).toString('utf8')) as unknown;
  } catch {
    return { problem: 'not JSON' };
  } finally {
    closeSync(fd);
  }
}

/** Records that `text` was just written as the handoff of `cwd` for `sessionId`. Throws when it cannot. */
export function recordHandoff(env: NodeJS.ProcessEnv, cwd: string, text: string, sessionId: string | null): void {
  const dir = bindingsDir(env);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const problem = checkDir(dir);
  if (problem !== null)
    throw new Error(`the handoff's record was not written: ${problem === 'absent' ? `${dir} is missing` : problem}`);
  const path = boundPath(cwd);
  const binding: HandoffBinding = {
    version: HANDOFF_BINDING_VERSION,
    path,
    sessionId,
    sha256: sha256Of(text),
    writtenAt: new Date().toISOString(),
    writer: 'hook',
  };
  writeFileAtomic(join(dir, bindingFileName(sha256Of(path))), `${JSON.stringify(binding)}\n`, PRIVATE_FILE_MODE);
}

/** Whether the handoff of `cwd`, read as `text`, is one memd wrote for `sessionId`, unchanged since. */
export function judgeHandoffFile(
  env: NodeJS.ProcessEnv,
  cwd: string,
  text: string,
  sessionId: string | null,
): HandoffTrust {
  const path = boundPath(cwd);
  return judgeHandoff({ path, text, sha256: sha256Of(text), binding: readBinding(bindingsDir(env), path), sessionId });
}
