/** The systemd user units shipped in `systemd/`, rendered with this installation's paths. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DAEMON_MAIN } from '../autostart.js';

export const UNIT_NAMES = ['memd.socket', 'memd.service'] as const;
export type UnitName = (typeof UNIT_NAMES)[number];

const UNIT_DIR = fileURLToPath(new URL('../../../systemd/', import.meta.url));

/** systemd splits ExecStart on whitespace; a path with spaces needs quoting. */
function quoteForExec(path: string): string {
  return /[\s"'\\]/.test(path) ? `"${path.replace(/["\\]/g, '\\$&')}"` : path;
}

export function renderUnits(nodePath = process.execPath, daemonMain = DAEMON_MAIN): Record<UnitName, string> {
  const fill = (text: string) => text.replaceAll('@NODE@', quoteForExec(nodePath)).replaceAll('@MEMD_MAIN@', quoteForExec(daemonMain));
  return {
    'memd.socket': fill(readFileSync(`${UNIT_DIR}memd.socket`, 'utf8')),
    'memd.service': fill(readFileSync(`${UNIT_DIR}memd.service`, 'utf8')),
  };
}
