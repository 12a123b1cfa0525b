/**
 * Bundles the extension into dist/extension.js: its modules, memd's client library and the
 * shared code they import, in one CommonJS file (VS Code loads extensions with require), with
 * `vscode` left to the editor. The .vsix then needs no node_modules.
 */

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(dirname(fileURLToPath(import.meta.url)));

const result = await build({
  entryPoints: [join(here, 'src/extension.ts')],
  outfile: join(here, 'dist/extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code 1.90 (engines.vscode) runs extensions on Electron 29's Node 20.
  target: 'node20',
  external: ['vscode'],
  logLevel: 'warning',
  logOverride: {
    // client/install-paths.ts finds memd's files from import.meta.url, which a CommonJS bundle
    // lacks. It is only reached by the client library's autostart, which the extension never
    // uses (its client has autostart off; starting memd runs memd.startCommand instead).
    'empty-import-meta': 'silent',
  },
});

// A bundle that builds with warnings is one nobody read: fail instead (esbuild printed them).
if (result.warnings.length > 0) process.exit(1);
