/** The systemd user units shipped in `systemd/`, rendered with this installation's paths. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonMainPath, unitTemplateDir } from '../install-paths.js';

export const UNIT_NAMES = ['memd.socket', 'memd.service'] as const;
export type UnitName = (typeof UNIT_NAMES)[number];

/** systemd splits ExecStart on whitespace; a path with spaces needs quoting. */
function quoteForExec(path: string): string {
  return /[\s"'\\]/.test(path) ? `"${path.replace(/["\\]/g, '\\$&')}"` : path;
}

export function renderUnits(nodePath = process.execPath, daemonMain = daemonMainPath()): Record<UnitName, string> {
  const fill = (text: string) =>
    text.replaceAll('@NODE@', quoteForExec(nodePath)).replaceAll('@MEMD_MAIN@', quoteForExec(daemonMain));
  return {
    'memd.socket': fill(readFileSync(join(unitTemplateDir(), 'memd.socket'), 'utf8')),
    'memd.service': fill(readFileSync(join(unitTemplateDir(), 'memd.service'), 'utf8')),
  };
}
