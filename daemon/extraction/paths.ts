/** DESIGN.md §2: where a session's memory lives, `<projects>/<project>/<sessionId>/session-memory/`. */
import { join } from 'node:path';

export function sessionMemoryDir(projectsDir: string, project: string, sessionId: string): string {
  return join(projectsDir, project, sessionId, 'session-memory');
}

export function sessionSummaryPath(projectsDir: string, project: string, sessionId: string): string {
  return join(sessionMemoryDir(projectsDir, project, sessionId), 'summary.md');
}
