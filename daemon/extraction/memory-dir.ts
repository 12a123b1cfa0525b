/** Where a session's memory lives, for sessions memd has indexed and for one it has not yet. */
import { basename, dirname, resolve } from 'node:path';
import { sessionMemoryDir } from '../../shared/paths.js';
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';

/**
 * The session-memory dir of an indexed session (`projectOf` names its main transcript's project,
 * or throws NotFound), or of one not indexed yet whose transcript path is
 * `<projects>/<project>/<sessionId>.jsonl`: a turn's first prompt may come before its first line.
 * Any other path is refused, so a caller cannot name a lock outside the projects dir.
 */
export function memoryDirFor(
  projectsDir: string,
  projectOf: (sessionId: string) => string,
  sessionId: string,
  transcriptPath?: string,
): string {
  try {
    return sessionMemoryDir(projectsDir, projectOf(sessionId), sessionId);
  } catch (error) {
    if (transcriptPath === undefined || !(error instanceof RpcError) || error.code !== ErrorCode.NotFound) throw error;
    const path = resolve(transcriptPath);
    if (basename(path) !== `${sessionId}.jsonl` || dirname(dirname(path)) !== resolve(projectsDir)) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'InvalidParams',
        'transcriptPath must be <projects dir>/<project>/<sessionId>.jsonl',
        { transcriptPath },
      );
    }
    return sessionMemoryDir(projectsDir, basename(dirname(path)), sessionId);
  }
}

/** The session whose memory dir this is (`<projects>/<project>/<sessionId>/session-memory`). */
export function sessionOfMemoryDir(dir: string): string {
  return basename(dirname(dir));
}
