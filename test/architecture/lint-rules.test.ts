/**
 * The promise rules of biome.jsonc, shown able to fail: Biome runs with the repository's own
 * configuration over a fake tree that floats a promise once in each area, and over the idioms the
 * code uses instead, which must stay silent. A config that dropped or downgraded a rule fails here.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const BIOME = join(REPO_ROOT, 'node_modules', '.bin', 'biome');

const WORK = 'async function work(): Promise<void> {}\n';

/** Each file breaks the rule its name says, once; the clean ones use the idioms the rules allow. */
const FAKE_TREE: Record<string, string> = {
  'daemon/floating.ts': `${WORK}export function start(): void {\n  work();\n}\n`,
  'client/floating.ts': `${WORK}export function start(): void {\n  work().then(() => undefined);\n}\n`,
  'test/floating.ts': `${WORK}export function start(): void {\n  if (Date.now() > 0) work();\n}\n`,
  'shared/misused.ts': `${WORK}export function start(items: string[]): void {\n  items.forEach(async () => {\n    await work();\n  });\n}\n`,
  'daemon/clean.ts': `${WORK}export async function start(): Promise<void> {\n  // The reason it may run on its own.\n  void work();\n  await work();\n  work().catch(() => undefined);\n  return work();\n}\n`,
};

let dir: string;
let output: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-lint-rules-'));
  copyFileSync(join(REPO_ROOT, 'biome.jsonc'), join(dir, 'biome.jsonc'));
  for (const [path, text] of Object.entries(FAKE_TREE)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(BIOME, ['lint', '--colors=off', '--max-diagnostics=none', '.'], { cwd: dir, encoding: 'utf8' });
  output = `${run.stdout}${run.stderr}`;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The files Biome reported under one rule, from its `path:line:col lint/group/rule` headers. */
function reported(rule: string): string[] {
  const found = [...output.matchAll(new RegExp(`^(\\S+):\\d+:\\d+ lint/nursery/${rule}\\b`, 'gm'))].map(
    (match) => match[1] ?? '',
  );
  return [...new Set(found)].sort();
}

describe('the promise rules', () => {
  it('report a promise nobody awaits, in every area', () => {
    expect(reported('noFloatingPromises')).toEqual(['client/floating.ts', 'daemon/floating.ts', 'test/floating.ts']);
  });

  it('report an async callback where a void one is expected', () => {
    expect(reported('noMisusedPromises')).toEqual(['shared/misused.ts']);
  });
});
