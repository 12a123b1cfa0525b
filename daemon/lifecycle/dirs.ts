/** The runtime and state dirs must be ours and private before anything is written into them. */
import { lstatSync, mkdirSync } from 'node:fs';

export class UnsafeDirError extends Error {
  override name = 'UnsafeDirError';
}

const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` 0700 if missing, then refuses it unless it is a real directory, ours, and private. */
export function ensurePrivateDir(dir: string, what: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw new UnsafeDirError(`cannot create the ${what} dir ${dir}: ${(error as Error).message}`);
  }
  const stats = lstatSync(dir);
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new UnsafeDirError(`the ${what} dir ${dir} is not a plain directory; remove it and start memd again`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new UnsafeDirError(
      `the ${what} dir ${dir} belongs to uid ${stats.uid}, not to you (uid ${uid}); memd will not use it`,
    );
  }
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new UnsafeDirError(
      `the ${what} dir ${dir} has mode ${mode.toString(8).padStart(4, '0')}; others can reach it. Run: chmod 700 ${dir}`,
    );
  }
}
