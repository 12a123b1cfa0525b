/**
 * Four processes writing one memory dir 1,000 times in all, through memd's store (dist/): no
 * update is lost without a Conflict, the index matches the files, no temp file is left.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMemory } from '../../shared/memdir/frontmatter.js';
import { buildIndex } from '../../shared/memdir/index-file.js';

const CHILD = resolve(import.meta.dirname, '../helpers/memdir-writer-child.mjs');
const PROCESSES = 4;
const WRITES_EACH = 250;
/** Few memories, so that the writers collide often. */
const NAMES = 6;
const PROJECT = '-home-user-src-stress';

const root = mkdtempSync(join(tmpdir(), 'memd-memdir-stress-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe('four processes writing one memory dir', () => {
  it('lose no update without a Conflict, keep the index in step with the files, and leave no temp file', {
    timeout: 180_000,
  }, async () => {
    mkdirSync(join(root, PROJECT));
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, n) =>
        promisify(execFile)(
          process.execPath,
          [CHILD, root, PROJECT, String(WRITES_EACH), String(NAMES), String(1_000 + n)],
          { maxBuffer: 16 * 1024 * 1024 },
        ),
      ),
    );
    const results = runs.map((run) => JSON.parse(run.stdout) as { written: [string, number][]; conflicts: number });
    const successes = results.flatMap((result) => result.written);
    const conflicts = results.reduce((sum, result) => sum + result.conflicts, 0);
    expect(successes.length + conflicts).toBe(PROCESSES * WRITES_EACH);
    // Writers collided, or the test proves nothing about lost updates.
    expect(conflicts).toBeGreaterThan(0);
    console.log(
      `memdir stress: ${PROCESSES} processes, ${successes.length} writes, ${conflicts} refused with Conflict`,
    );

    const dir = join(root, PROJECT, 'memory');
    const byName = new Map<string, number[]>();
    for (const [name, counter] of successes) byName.set(name, [...(byName.get(name) ?? []), counter]);
    const indexed = [];
    for (const [name, counters] of byName) {
      // Every successful write moved the counter on by one from the value current under the lock:
      // the file holds their number, and no value was written twice.
      const parsed = parseMemory(readFileSync(join(dir, `${name}.md`), 'utf8'));
      if (!parsed.ok) throw new Error(parsed.reason);
      expect(parsed.memory.content).toBe(`count ${counters.length}\n`);
      expect([...counters].sort((a, b) => a - b)).toEqual(Array.from({ length: counters.length }, (_, i) => i + 1));
      indexed.push({ name, description: parsed.memory.description, updated: parsed.memory.updated });
    }
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe(buildIndex(indexed).text);
    expect(filesUnder(dir).sort()).toEqual(['MEMORY.md', ...[...byName.keys()].map((name) => `${name}.md`)].sort());
  });
});
