/**
 * A temporary copy of this package that `npm run build` and `npm start` may rebuild without
 * disturbing the tests that run beside it from this checkout's dist/: the sources, the current
 * dist/ (with a marker file that a rebuild removes), and node_modules linked.
 */
import { cpSync, existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './sandbox.js';

/** What `npm run build` needs besides node_modules; client/vscode is bundled on its own and left out. */
const PACKAGE_ENTRIES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'shared',
  'daemon',
  'client',
  'bin',
  'scripts',
  'systemd',
  'dist',
];
/** Left in the copy's dist/: gone once a build has replaced the tree. */
export const BUILD_MARKER = 'built-before-the-test.txt';

export function copyPackage(): string {
  const copy = mkdtempSync('/tmp/memd-pkg-');
  for (const entry of PACKAGE_ENTRIES) {
    const from = join(ROOT, entry);
    if (!existsSync(from)) continue;
    cpSync(from, join(copy, entry), {
      recursive: true,
      filter: (source) => !source.startsWith(join(ROOT, 'client', 'vscode')),
    });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(join(copy, 'dist', BUILD_MARKER), 'x');
  return copy;
}
