/**
 * bin/memd.cjs, the daemon's command: it runs the bundle (dist/daemon/memd.cjs) when there is one,
 * the daemon's ES modules (dist/daemon/main.js) when not, and says what to run when neither is built.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNode } from '../../helpers/sandbox.js';

const COMMAND = resolve(import.meta.dirname, '../../../bin/memd.cjs');
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A package root holding bin/memd.cjs and the named files of dist/daemon/, each saying which it is. */
function packageCopy(files: ('memd.cjs' | 'main.js')[]): string {
  const root = mkdtempSync(join(tmpdir(), 'memd-command-'));
  roots.push(root);
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'daemon'), { recursive: true });
  copyFileSync(COMMAND, join(root, 'bin', 'memd.cjs'));
  for (const file of files)
    writeFileSync(
      join(root, 'dist', 'daemon', file),
      `process.stdout.write(${JSON.stringify(file)} + ' ' + process.argv.slice(2).join(' '));\n`,
    );
  return join(root, 'bin', 'memd.cjs');
}

describe('bin/memd.cjs', () => {
  it('runs the bundle when there is one, with the arguments as given', async () => {
    const run = await runNode([packageCopy(['memd.cjs', 'main.js']), '--foreground'], process.env);
    expect(run).toMatchObject({ code: 0, stdout: 'memd.cjs --foreground', stderr: '' });
  });

  it('runs the ES modules without the bundle', async () => {
    const run = await runNode([packageCopy(['main.js']), '--version'], process.env);
    expect(run).toMatchObject({ code: 0, stdout: 'main.js --version', stderr: '' });
  });

  it('says what to run when nothing is built', async () => {
    const run = await runNode([packageCopy([])], process.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^memd is not built: .*main\.js is missing \(run npm run build in /);
  });
});
