/**
 * Where the archive keeps a session's files (issue 18): `<state>/archive/<project>/<sessionId>/`,
 * each file under its path relative to its project folder, gzipped (`<rel>.gz`): the main
 * transcript, its sub-agent transcripts, a 2.0.x top-level agent file, and the persisted tool
 * results. One folder per session, so that forgetting a session removes one folder. The archive
 * is plain gzip (members appended as the transcript grows): `zcat` reads it without memd.
 */
import { isAbsolute, join, relative, sep } from 'node:path';

/** Owner only: the archive holds transcript content. */
export const ARCHIVE_DIR_MODE = 0o700;
export const ARCHIVE_FILE_MODE = 0o600;
export const ARCHIVE_SUFFIX = '.gz';

export function archiveRoot(stateDir: string): string {
  return join(stateDir, 'archive');
}

export function sessionArchiveDir(stateDir: string, project: string, sessionId: string): string {
  return join(archiveRoot(stateDir), project, sessionId);
}

export function archivePathOf(stateDir: string, file: { project: string; session_id: string; rel: string }): string {
  return join(sessionArchiveDir(stateDir, file.project, file.session_id), `${file.rel}${ARCHIVE_SUFFIX}`);
}

/** The path of a file under its project folder; null when it is not inside it. */
export function relativeToProject(projectsDir: string, project: string, path: string): string | null {
  const rel = relative(join(projectsDir, project), path);
  if (rel === '' || isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return null;
  return rel;
}
