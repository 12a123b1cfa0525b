/**
 * Where this installation's own files are. Found from this module's location, so that the same
 * answer comes from the built package (`dist/client/`) and from the sources (`client/`).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/client/memctl/ is the deepest place this module's callers live. */
const MAX_LEVELS_UP = 4;

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level <= MAX_LEVELS_UP; level++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find memd's package.json above ${fileURLToPath(import.meta.url)}`);
}

/** The daemon's command (bin/memd.cjs: the bundle in dist/), which the client starts and the systemd unit runs. */
export function daemonMainPath(): string {
  return join(packageRoot(), 'bin', 'memd.cjs');
}

/** The shipped unit templates (memd.socket, memd.service). */
export function unitTemplateDir(): string {
  return join(packageRoot(), 'systemd');
}

/** memctl's compiled entry point, in dist/ (which `npm run build` replaces). */
export function memctlMainPath(): string {
  return join(packageRoot(), 'dist', 'client', 'memctl', 'main.js');
}

/**
 * What Claude Code runs (hooks, status line, MCP server; see memctl install-*): bin/memctl.cjs,
 * outside dist/, which runs memctlMainPath() and fails open while dist/ is missing or half-built.
 */
export function memctlCommandPath(): string {
  return join(packageRoot(), 'bin', 'memctl.cjs');
}
