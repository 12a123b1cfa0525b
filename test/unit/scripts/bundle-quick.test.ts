/**
 * scripts/bundle-quick.mjs on a fake dist/: the modules an entry reaches, as one CommonJS file whose
 * modules run once each, on their first require (a dynamic import only when it runs), with node:
 * built-ins from node; an import of anything outside dist/'s client and shared, or import.meta,
 * fails the build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types.
import { bundleSource, DAEMON_BUNDLE, DAEMON_KIND } from '../../../scripts/bundle-quick.mjs';

const bundle = bundleSource as (dist: string, entry: string, kind?: unknown) => string;
const ENTRY = 'client/memctl/quick/run.js';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A dist/ holding these ES modules (paths relative to it). */
function fakeDist(files: Record<string, string>): string {
  const dist = mkdtempSync(join(tmpdir(), 'memd-bundle-'));
  dirs.push(dist);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    writeFileSync(join(dist, file), source);
  }
  return dist;
}

/** Writes the bundle beside the fake dist/ and requires it. */
function load(dist: string, entry = ENTRY, at = 'bundle.cjs', kind?: unknown): Record<string, unknown> {
  const file = join(dist, at);
  writeFileSync(file, bundle(dist, entry, kind));
  return createRequire(import.meta.url)(file) as Record<string, unknown>;
}

describe('bundle-quick', () => {
  it('holds every module the entry reaches and runs each on its first require, a dynamic import when it runs', async () => {
    const dist = fakeDist({
      [ENTRY]: `import { twice } from './twice.js';
import { join } from 'node:path';
export function run(n) { globalThis.order.push('run'); return join('a', String(twice(n))); }
export async function later() { return (await import('../../../shared/later.js')).value; }
globalThis.order.push('entry');
`,
      'client/memctl/quick/twice.js': `globalThis.order.push('twice');
export const twice = (n) => 2 * n;
`,
      'shared/later.js': `globalThis.order.push('later');
export const value = 'later';
`,
    });
    const order: string[] = [];
    Object.assign(globalThis, { order });
    try {
      const loaded = load(dist) as { run: (n: number) => string; later: () => Promise<string>; bundled: string[] };
      expect(loaded.bundled.sort()).toEqual([ENTRY, 'client/memctl/quick/twice.js', 'shared/later.js']);
      expect(order).toEqual(['twice', 'entry']);
      expect(loaded.run(21)).toBe(join('a', '42'));
      expect(await loaded.later()).toBe('later');
      expect(await loaded.later()).toBe('later');
      expect(order).toEqual(['twice', 'entry', 'run', 'later']);
    } finally {
      Reflect.deleteProperty(globalThis, 'order');
    }
  });

  it('refuses a package, a module outside client/ and shared/, and import.meta', () => {
    for (const [source, reason] of [
      ["import { z } from 'zod';\nexport const a = z;\n", /imports zod/],
      ["import { x } from '../../../daemon/x.js';\nexport const a = x;\n", /imports \.\.\/\.\.\/\.\.\/daemon\/x\.js/],
      ['export const here = import.meta.url;\n', /import\.meta/],
    ] as const) {
      const dist = fakeDist({ [ENTRY]: source, 'daemon/x.js': 'export const x = 1;\n' });
      expect(() => bundle(dist, ENTRY)).toThrow(reason);
    }
  });

  it("bundles the daemon with its packages left to require, and each module's import.meta.url its own in dist/", () => {
    const entry = 'daemon/main.js';
    const dist = fakeDist({
      [entry]: `#!/usr/bin/env node
import { here } from './workers/script.js';
import { posix } from 'path';
export const there = here;
export const joined = posix.join('a', 'b');
`,
      'daemon/workers/script.js': 'export const here = import.meta.url;\n',
    });
    const loaded = load(dist, entry, DAEMON_BUNDLE as string, DAEMON_KIND) as { there: string; joined: string };
    expect(loaded.there).toBe(pathToFileURL(join(dist, 'daemon/workers/script.js')).href);
    expect(loaded.joined).toBe('a/b');
  });
});
