/**
 * A user's config file (Claude Code's settings.json, ~/.claude.json, a project's .mcp.json) as
 * memctl's installers change it: looked at without blocking and refused unless it is a regular
 * file, left alone when read-only, and replaced under a lock, with a last comparison before the
 * rename, so that no one's change is lost:
 * - Refused: a FIFO (reading it would wait for a writer forever), a socket, a device, a directory,
 *   a dangling symlink. Opened with O_NONBLOCK | O_NOFOLLOW and checked again with fstat, so that
 *   a FIFO swapped in after the check still cannot block.
 * - Symlinks: users keep dotfiles in a repository and link them, so a link is followed, to a
 *   regular file of the user's own only; that file is replaced in its own directory.
 * - Read-only (no write bit, or not writable by this user): never written, whatever the
 *   directory allows; the sentence says how to go on.
 * - Concurrency: the lock is `<path>.lock`, proper-lockfile's directory lock, which is how Claude
 *   Code locks ~/.claude.json, so memctl's installers and Claude Code take turns. Under the
 *   lock the file is read again; just before the rename it is read a last time, and if its bytes
 *   changed (a writer that takes no lock) the change is made again from the new bytes.
 */

import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { atomicTempPath } from './atomic-file.js';

/** A holder that died is taken over after this; proper-lockfile's and Claude Code's default. */
const LOCK_STALE_MS = 10_000;
/** How long to wait for the lock: a holder keeps it for one write (ms); about 10 s in all. */
const LOCK_RETRY = { retries: 60, factor: 1.3, minTimeout: 5, maxTimeout: 250 } as const;
/** Rounds of "someone wrote meanwhile, merge again": each needs a writer that ignores the lock. */
const MAX_ATTEMPTS = 5;

/** What to do about a file memctl will not edit, unless a refusal says better. */
const DEFAULT_REMEDY = 'fix it or move it aside, nothing was changed';

/** A refusal: what is wrong, and what the user can do (which says that nothing was changed). */
export class ConfigFileRefusal extends Error {
  override name = 'ConfigFileRefusal';
  constructor(
    message: string,
    readonly remedy = DEFAULT_REMEDY,
  ) {
    super(message);
  }

  /** The sentence for stderr. */
  sentence(): string {
    return `${this.message}; ${this.remedy}`;
  }
}

/** Where the file is: absent, or a regular file at `realPath` (the link's target for a symlink). */
export type ConfigFile = { exists: false } | { exists: true; realPath: string; stat: Stats };

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a directory';
  return 'not a regular file';
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Finds the file without opening it; throws ConfigFileRefusal for anything but a regular file. */
export function findConfigFile(path: string): ConfigFile {
  const found = lstatOrNull(path);
  if (found === null) return { exists: false };
  if (found.isFile()) return { exists: true, realPath: path, stat: found };
  if (!found.isSymbolicLink()) throw new ConfigFileRefusal(`${path} is ${kindOf(found)}, not a regular file`);
  let realPath: string;
  try {
    realPath = realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new ConfigFileRefusal(`${path} is a symlink to ${readlinkSync(path)}, which does not exist`);
  }
  const target = lstatSync(realPath);
  if (!target.isFile())
    throw new ConfigFileRefusal(`${path} is a symlink to ${realPath}, which is ${kindOf(target)}, not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && target.uid !== uid)
    throw new ConfigFileRefusal(
      `${path} is a symlink to ${realPath}, a file of another user (uid ${target.uid}); memctl follows a symlink only to a file of your own`,
    );
  return { exists: true, realPath, stat: target };
}

/** The file's bytes, read without blocking and without following a link swapped in meanwhile. */
export function readConfigBytes(path: string, file: Extract<ConfigFile, { exists: true }>): Buffer {
  let fd: number;
  try {
    fd = openSync(file.realPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ConfigFileRefusal(`${path} became a symlink while memctl read it`);
    if (code === 'EACCES') throw new ConfigFileRefusal(`${path} cannot be read (permission denied)`);
    throw error;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new ConfigFileRefusal(`${path} is ${kindOf(opened)}, not a regular file`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Why the file must not be replaced (read-only), or null when it may be. */
export function readOnlyRefusal(path: string, file: Extract<ConfigFile, { exists: true }>): ConfigFileRefusal | null {
  const remedy = `nothing was changed: make it writable (chmod u+w ${file.realPath}) and run memctl again, or make the change yourself`;
  // No write bit at all is the user's word, even for root, whom the kernel would let write.
  if ((file.stat.mode & 0o222) === 0)
    return new ConfigFileRefusal(`${path} is read-only (mode ${octal(file.stat.mode)})`, remedy);
  try {
    accessSync(file.realPath, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error;
    const where =
      code === 'EROFS'
        ? 'on a read-only file system'
        : `not writable by you (mode ${octal(file.stat.mode)}, uid ${file.stat.uid})`;
    return new ConfigFileRefusal(`${path} is read-only (${where})`, remedy);
  }
  return null;
}

/** Takes the lock directory, or says why not: 'held' by someone else, or a refusal. */
function tryLock(lockPath: string, path: string): 'taken' | 'held' {
  try {
    mkdirSync(lockPath);
    return 'taken';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new ConfigFileRefusal(
        `cannot create the lock ${lockPath} beside ${path} (${code})`,
        'its directory is not writable; nothing was changed',
      );
    if (code !== 'EEXIST') throw error;
  }
  const held = lstatOrNull(lockPath);
  if (held === null) return 'held';
  // A holder refreshes the mtime every stale/2; one this old died holding it.
  if (Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(lockPath, { recursive: true, force: true });
  return 'held';
}

/**
 * Holds `<path>.lock` while `work` runs: proper-lockfile's lock (a directory made with mkdir, stale
 * once its mtime is LOCK_STALE_MS old), spoken without the library, which the client may not
 * import and whose graceful-fs costs 80-130 ms to load. `work` is synchronous and takes
 * milliseconds, so the mtime is never refreshed.
 */
export async function withConfigLock<T>(path: string, work: () => T): Promise<T> {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; tryLock(lockPath, path) !== 'taken'; attempt++) {
    if (attempt >= LOCK_RETRY.retries)
      throw new ConfigFileRefusal(
        `${path} stayed locked by another program (${lockPath})`,
        `nothing was changed: try again, or remove ${lockPath} if no program is using it`,
      );
    const wait =
      Math.min(LOCK_RETRY.maxTimeout, LOCK_RETRY.minTimeout * LOCK_RETRY.factor ** attempt) * (1 + Math.random());
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  try {
    return work();
  } finally {
    rmSync(lockPath, { recursive: true, force: true });
  }
}

/** The bytes at `path` now, or null when there is no file (what a new file's rename must find). */
function currentBytes(path: string): Buffer | null {
  const file = findConfigFile(path);
  return file.exists ? readConfigBytes(path, file) : null;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What one attempt decided, from the bytes it read (null: no file). */
export type Revision =
  | { write: false }
  | { write: true; content: string; mode: number; backup?: ((bytes: Buffer) => string) | undefined };

/**
 * Reads, decides and replaces, under the lock, until the bytes it decided from are still the
 * file's just before the rename (at most MAX_ATTEMPTS rounds). `revise` sees the bytes each time
 * and may throw ConfigFileRefusal. Returns the last revision and the backup's path.
 */
export async function replaceConfigFile(
  path: string,
  revise: (bytes: Buffer | null, file: ConfigFile) => Revision,
): Promise<{ revision: Revision; backup: string | undefined }> {
  return withConfigLock(path, () => {
    for (let attempt = 1; ; attempt++) {
      const file = findConfigFile(path);
      const bytes = file.exists ? readConfigBytes(path, file) : null;
      const revision = revise(bytes, file);
      if (!revision.write) return { revision, backup: undefined };
      const target = file.exists ? file.realPath : path;
      const temp = atomicTempPath(target);
      const fd = openSync(temp, 'wx', revision.mode);
      let backup: string | undefined;
      try {
        // The mode asked for (an existing file's own), whatever the umask.
        fchmodSync(fd, revision.mode);
        writeSync(fd, revision.content);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        if (bytes !== null && revision.backup !== undefined) backup = revision.backup(bytes);
        const now = currentBytes(path);
        const unchanged = now === null ? bytes === null : bytes !== null && now.equals(bytes);
        if (unchanged) {
          if (bytes === null) {
            // A link fails if the file appeared since the check: nothing someone else made is replaced.
            linkSync(temp, target);
            rmSync(temp);
          } else renameSync(temp, target);
          syncDir(dirname(target));
          return { revision, backup };
        }
      } catch (error) {
        rmSync(temp, { force: true });
        if (backup !== undefined) rmSync(backup, { force: true });
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_ATTEMPTS) throw error;
        continue;
      }
      rmSync(temp, { force: true });
      if (backup !== undefined) rmSync(backup, { force: true });
      if (attempt >= MAX_ATTEMPTS)
        throw new ConfigFileRefusal(
          `${path} kept changing while memctl edited it (${MAX_ATTEMPTS} tries)`,
          'nothing was changed: run memctl again once the program writing it is done',
        );
    }
  });
}
