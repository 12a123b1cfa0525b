/**
 * Issue 30 item 1: main.ts builds each part from the parts above it. Checked on the real main.ts,
 * and on fakes that break the rule the ways the old main.ts did (a closure into a part built later,
 * a part mentioning itself, a `let` set after the parts that read it), so that a passing check is
 * known to be able to fail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBuildOrder } from './build-order.js';

const MAIN = resolve(import.meta.dirname, '../../daemon/main.ts');

describe('the real daemon/main.ts', () => {
  it('builds every part from parts above it', () => {
    expect(checkBuildOrder(MAIN, 'daemon/main.ts')).toEqual([]);
  });
});

describe('fake main.ts files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memd-build-order-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const check = (text: string) => {
    const path = join(dir, `main-${(n += 1)}.ts`);
    writeFileSync(path, text);
    return checkBuildOrder(path, 'main.ts');
  };

  it('sees a closure into a part built below (the old sessions → archive)', () => {
    const found = check(
      [
        "import { createSessions, createArchive } from './parts.js';",
        'async function serve() {',
        '  const sessions = createSessions({ archived: (id: string) => archive.isArchived(id) });',
        '  const archive = createArchive({ titleOf: (id: string) => sessions.get(id).title });',
        '}',
      ].join('\n'),
    );
    expect(found).toEqual([
      'main.ts:3: `sessions` mentions `archive`, declared below it (line 4): each part is built from parts above it',
    ]);
  });

  it('sees a shorthand property, a direct argument and a statement that is not a declaration', () => {
    const found = check(
      [
        'function serve() {',
        '  const a = build({ b });',
        '  const c = build(d);',
        '  add({ loop: () => loopDelay.status() });',
        '  const b = 1, d = 2;',
        '  const loopDelay = watch();',
        '}',
      ].join('\n'),
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toContain('`a` mentions `b`');
    expect(found[1]).toContain('`c` mentions `d`');
    expect(found[2]).toContain('`add({ loop: () => loopDelay.status() });` mentions `loopDelay`');
  });

  it('sees a part that mentions itself in its own construction', () => {
    const found = check('function serve() {\n  const ingestor = create({ live: () => ingestor.progress() });\n}\n');
    expect(found).toEqual([
      'main.ts:2: `ingestor` mentions itself, in its own construction: each part is built from parts above it',
    ]);
  });

  it('refuses a let set after the parts that read it', () => {
    const found = check(
      'function serve() {\n  let socketFile: { remove(): void } | undefined;\n  const stop = () => socketFile?.remove();\n  socketFile = own();\n}\n',
    );
    expect(found).toEqual([
      'main.ts:2: `let socketFile`: a part assigned after it is built is a forward reference; build it once, from parts above it',
    ]);
  });

  it('takes no parameter, property or later function call for a part', () => {
    const found = check(
      [
        'function serve() {',
        '  const a = build({ archive: 1, b: (archive: number) => archive + 1 });',
        '  const c = a.archive;',
        '  const archive = build({ a, c });',
        '}',
        'function main() {',
        '  serve();',
        '}',
        'main();',
      ].join('\n'),
    );
    expect(found).toEqual([]);
  });
});
