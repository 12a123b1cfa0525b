/** Where a worker thread's compiled script is, next to the module that starts it. */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, from this file (two levels up: daemon/workers/ in the sources, dist/daemon/workers/ when built). */
const SOURCE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `script` (a .js name) beside the module at `moduleUrl`. Under vitest that module runs from its
 * TypeScript source, which a worker cannot load: the compiled one in dist/ (built by `pretest`)
 * is used then.
 */
export function workerScript(moduleUrl: string, script: string): string {
  const here = fileURLToPath(moduleUrl);
  if (!here.endsWith('.ts')) return join(dirname(here), script);
  const built = join(SOURCE_ROOT, 'dist', relative(SOURCE_ROOT, dirname(here)), script);
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  return built;
}
