/**
 * Every path memd uses, resolved once from the environment (DESIGN.md §2).
 * Pure: callers pass the environment and home directory, nothing is read at import time.
 */
import { join, resolve } from 'node:path';

/** sockaddr_un.sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

/** Claude Code cuts project folder names here and appends a hash so they stay unique. */
const MAX_PROJECT_DIR_NAME = 200;

export interface MemdPaths {
  claudeRoot: string;
  projectsDir: string;
  runtimeDir: string;
  socketPath: string;
  stateDir: string;
  dbPath: string;
  logPath: string;
  lockPath: string;
  configPath: string;
  systemdUserDir: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

export function resolvePaths(env: Env, home: string): MemdPaths {
  const claudeRoot = resolve(nonEmpty(env.CLAUDE_CONFIG_DIR) ?? join(home, '.claude'));
  const projectsDir = resolve(nonEmpty(env.MEMD_PROJECTS_DIR) ?? join(claudeRoot, 'projects'));
  const stateHome = nonEmpty(env.XDG_STATE_HOME) ?? join(home, '.local', 'state');
  const stateDir = resolve(nonEmpty(env.MEMD_STATE_DIR) ?? join(stateHome, 'memd'));
  const xdgRuntime = nonEmpty(env.XDG_RUNTIME_DIR);
  const runtimeDir = xdgRuntime !== undefined ? resolve(xdgRuntime, 'memd') : stateDir;
  const explicitSocket = nonEmpty(env.MEMD_SOCKET);
  const socketPath = explicitSocket !== undefined ? resolve(explicitSocket) : join(runtimeDir, 'memd.sock');
  const configHome = nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config');
  const configPath = resolve(nonEmpty(env.MEMD_CONFIG) ?? join(configHome, 'memd', 'config.json'));
  return {
    claudeRoot,
    projectsDir,
    // An explicit socket path decides the directory that must be private, not XDG_RUNTIME_DIR.
    runtimeDir: explicitSocket !== undefined ? resolve(socketPath, '..') : runtimeDir,
    socketPath,
    stateDir,
    dbPath: join(stateDir, 'memd.sqlite'),
    logPath: join(stateDir, 'memd.log'),
    lockPath: join(stateDir, 'memd.lock'),
    configPath,
    systemdUserDir: join(configHome, 'systemd', 'user'),
  };
}

/** Returns a reason when the path cannot be bound as a Unix socket, else undefined. */
export function checkSocketPath(socketPath: string): string | undefined {
  const bytes = Buffer.byteLength(socketPath, 'utf8');
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    return `socket path is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of Unix sockets: ${socketPath} (set MEMD_SOCKET or XDG_RUNTIME_DIR to a shorter directory)`;
  }
  return undefined;
}

/**
 * 32-bit djb2 hash in base 36 for over-long folder names. Claude Code's exact hash is not
 * documented; ingest discovers folders from disk, so this only matters when mapping a cwd.
 */
function shortHash(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) + hash + text.charCodeAt(i)) | 0;
  return Math.abs(hash).toString(36);
}

/** `/home/user/my-project` → `-home-user-my-project`, as Claude Code names project folders. */
export function sanitizeProjectDirName(cwd: string): string {
  const sanitized = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (sanitized.length <= MAX_PROJECT_DIR_NAME) return sanitized;
  return `${sanitized.slice(0, MAX_PROJECT_DIR_NAME)}-${shortHash(cwd)}`;
}

/**
 * The project folder Claude Code writes a session run in `cwd` into: `CLAUDE_CODE_PROJECT_DIR_NAME`
 * when set (newer Claude Code versions let it rename the folder; hooks, the status line and the MCP
 * server run with Claude Code's environment, so they see it too), else the sanitized cwd. A value
 * that is not one plain folder name (a `/`, a NUL, `.` or `..`) cannot be a folder Claude Code
 * wrote, and is passed over.
 */
export function projectDirNameOf(cwd: string, env: Env): string {
  const renamed = nonEmpty(env.CLAUDE_CODE_PROJECT_DIR_NAME);
  if (renamed !== undefined && !/[/\0]/.test(renamed) && renamed !== '.' && renamed !== '..') return renamed;
  return sanitizeProjectDirName(cwd);
}

/**
 * The path a project folder stands for, from a session's cwd (issue 28): the cwd when Claude Code
 * named the folder after it; the ancestor it was named after when the session moved into a
 * subfolder (`/home/u/shop/src` in `-home-u-shop` is `/home/u/shop`); else the cwd itself (a folder
 * copied from another machine or renamed, `-home-u-shop` holding sessions run in
 * `/srv/invoice-service`), where the user worked. Null without a cwd. Tables, search hits, usage,
 * the archive and MCP all name a project from this, so one project has one name.
 */
export function projectPathOf(project: string, cwd: string | null): string | null {
  if (cwd === null || cwd === '') return null;
  // Claude Code writes absolute cwds; anything else is not walked up.
  if (!cwd.startsWith('/')) return cwd;
  for (let path = cwd; path.length > 1; path = path.slice(0, path.lastIndexOf('/')) || '/') {
    if (sanitizeProjectDirName(path) === project) return path;
  }
  return cwd;
}

// Paths inside the projects dir and Claude Code's root, built here only (DESIGN.md §2).

/** `<projects>/<project>/<sessionId>/session-memory/`. */
export function sessionMemoryDir(projectsDir: string, project: string, sessionId: string): string {
  return join(projectsDir, project, sessionId, 'session-memory');
}

export function sessionSummaryPath(projectsDir: string, project: string, sessionId: string): string {
  return join(sessionMemoryDir(projectsDir, project, sessionId), 'summary.md');
}

/** `<projects>/<project>/<sessionId>/tool-results/`: Claude Code's persisted tool results, and memd's. */
export function toolResultsDir(projectsDir: string, project: string, sessionId: string): string {
  return join(projectsDir, project, sessionId, 'tool-results');
}

export function historyFile(claudeRoot: string): string {
  return join(claudeRoot, 'history.jsonl');
}

export function pasteCacheDir(claudeRoot: string): string {
  return join(claudeRoot, 'paste-cache');
}

/** `<claude root>/file-history/<sessionId>/`: Claude Code's file checkpoints' backups. */
export function fileHistoryDir(claudeRoot: string, sessionId: string): string {
  return join(claudeRoot, 'file-history', sessionId);
}

/** `<claude root>/session-memory/config/`: the user's template.md and prompt.md for extraction. */
export function sessionMemoryConfigDir(claudeRoot: string): string {
  return join(claudeRoot, 'session-memory', 'config');
}

/** `<claude root>/settings.json`, or `<project>/.claude/settings.json`: where Claude Code reads its hooks. */
export function claudeSettingsPath(claudeRoot: string): string {
  return join(claudeRoot, 'settings.json');
}

export function projectSettingsPath(projectDir: string): string {
  return join(projectDir, '.claude', 'settings.json');
}

/** `<state>/rewind/`: undo points of restores. */
export function undoRoot(stateDir: string): string {
  return join(stateDir, 'rewind');
}

/** DESIGN.md §5: the handoff file, relative to the working tree (docs/ and the handoff are checked link by link). */
export const HANDOFF_FILE = join('docs', 'handoff-context.md');

/** `<state>/handoffs/`: which handoff files memd wrote, for which session (shared/handoff/binding.ts). */
export function handoffBindingsDir(stateDir: string): string {
  return join(stateDir, 'handoffs');
}

/**
 * `<state>/sync/devices/`: other machines' transcripts, decoded from the sync folder (issue 35),
 * one projects dir per device (`<device>/<project>/<path>`); ingest reads them from here.
 */
export function syncedTranscriptsDir(stateDir: string): string {
  return join(stateDir, 'sync', 'devices');
}
