/**
 * bin/memctl.cjs, the command memctl install-* registers with Claude Code, run from a copy of the
 * package with no dist/ or a half-built one: hooks exit 0 with nothing on stderr, the status line
 * prints `no memd`, the MCP server answers JSON-RPC (and starts once a build lands), and the other
 * commands say what to run. The real entry is run once dist/ is there.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNode } from '../../helpers/sandbox.js';

const SHIM = resolve(import.meta.dirname, '../../../bin/memctl.cjs');
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A package root holding bin/memctl.cjs and nothing else. */
function packageCopy(): { root: string; shim: string; main: string } {
  const root = mkdtempSync(join(tmpdir(), 'memd-shim-'));
  roots.push(root);
  mkdirSync(join(root, 'bin'));
  const shim = join(root, 'bin', 'memctl.cjs');
  copyFileSync(SHIM, shim);
  return { root, shim, main: join(root, 'dist', 'client', 'memctl', 'main.js') };
}

/** The status line and the turn hooks' bundle beside main.js (scripts/bundle-quick.mjs writes the real one). */
function writeQuick(main: string, source: string): void {
  mkdirSync(join(main, '..'), { recursive: true });
  writeFileSync(join(main, '..', 'quick.cjs'), source);
}

function writeMain(main: string, source: string): void {
  mkdirSync(join(main, '..'), { recursive: true });
  writeFileSync(main, source);
}

const HOOK_INPUT = JSON.stringify({
  session_id: 's',
  transcript_path: '/nowhere/s.jsonl',
  cwd: '/tmp',
  hook_event_name: 'SessionStart',
  source: 'startup',
});
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`;

describe.each([
  ['no dist/', (_main: string) => {}],
  // An older build deleted dist/ and is part-way through writing it again: main.js is there, cli.js not yet.
  ['a half-built dist/', (main: string) => writeMain(main, "await import('./cli.js');\n")],
])('bin/memctl.cjs with %s', (_name, prepare) => {
  it.each(['session-start', 'pre-compact', 'post-compact', 'turn-start', 'turn-end'])(
    'hook %s exits 0 and writes nothing',
    async (hook) => {
      const copy = packageCopy();
      prepare(copy.main);
      const run = await runNode([copy.shim, 'hook', hook], process.env, HOOK_INPUT);
      expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    },
  );

  it('statusline prints `no memd` and exits 0 with nothing on stderr', async () => {
    const copy = packageCopy();
    prepare(copy.main);
    const run = await runNode([copy.shim, 'statusline'], process.env, '{}');
    expect(run).toEqual({ code: 0, stdout: 'no memd\n', stderr: '' });
  });

  it('another command says memd is not built, and how to build it', async () => {
    const copy = packageCopy();
    prepare(copy.main);
    const run = await runNode([copy.shim, 'status'], process.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/npm run build|Cannot find module/);
  });
});

describe('bin/memctl.cjs mcp', () => {
  it('answers a request with a JSON-RPC error when the build cannot be loaded', async () => {
    const copy = packageCopy();
    writeMain(copy.main, "await import('./cli.js');\n");
    const run = await runNode([copy.shim, 'mcp'], process.env, INITIALIZE);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const answer: unknown = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32603 } });
    expect((answer as { error: { message: string } }).error.message).toContain('npm run build');
  });

  it('waits for a build to land, then runs it', async () => {
    const copy = packageCopy();
    const child = spawn(process.execPath, [copy.shim, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((done) => child.once('close', done));
    // The shim is polling for dist/ by now or soon; either way it must run what lands.
    writeMain(copy.main, "process.stdout.write('ran ' + process.argv.slice(2).join(' ') + '\\n');\n");
    child.stdin.end();
    expect(await closed).toBe(0);
    expect({ stdout, stderr }).toEqual({ stdout: 'ran mcp\n', stderr: '' });
  });
});

describe('bin/memctl.cjs with a built dist/', () => {
  it('runs the real entry in its own process, with the arguments and exit code it was given', async () => {
    const copy = packageCopy();
    writeMain(
      copy.main,
      "process.stdout.write('ran ' + process.argv.slice(2).join(' ') + '\\n'); process.exitCode = 3;\n",
    );
    const run = await runNode([copy.shim, 'status', '--json'], process.env);
    expect(run).toEqual({ code: 3, stdout: 'ran status --json\n', stderr: '' });
  });

  it('runs the status line and the turn hooks from quick.cjs in its own process, without main.js', async () => {
    const copy = packageCopy();
    writeMain(copy.main, "process.stdout.write('main.js ran\\n');\n");
    // process.argv[1] is the shim here, and would be main.js in a process the shim started.
    writeQuick(
      copy.main,
      "exports.runQuick = async (argv) => { process.stdout.write('quick ran ' + argv.join(' ') + ' under ' + require('node:path').basename(process.argv[1]) + '\\n'); return true; };\n",
    );
    expect(await runNode([copy.shim, 'statusline'], process.env, '{}')).toEqual({
      code: 0,
      stdout: 'quick ran statusline under memctl.cjs\n',
      stderr: '',
    });
    const hook = await runNode([copy.shim, 'hook', 'turn-start'], process.env, '{}');
    expect(hook.stdout).toBe('quick ran hook turn-start under memctl.cjs\n');
  });

  it('goes on to main.js for a hook quick.cjs does not run, and for every other command; SessionStart without loading quick.cjs', async () => {
    const copy = packageCopy();
    writeMain(copy.main, "process.stdout.write('main.js ran ' + process.argv.slice(2).join(' ') + '\\n');\n");
    writeQuick(
      copy.main,
      "process.stdout.write('quick.cjs loaded\\n');\nexports.runQuick = async (argv) => argv[1] === 'turn-start';\n",
    );
    expect(await runNode([copy.shim, 'hook', 'pre-compact'], process.env, '{}')).toEqual({
      code: 0,
      stdout: 'quick.cjs loaded\nmain.js ran hook pre-compact\n',
      stderr: '',
    });
    // A new session's SessionStart has its own quick path in main.js: the bundle is not its to load.
    expect(await runNode([copy.shim, 'hook', 'session-start'], process.env, '{}')).toEqual({
      code: 0,
      stdout: 'main.js ran hook session-start\n',
      stderr: '',
    });
    expect(await runNode([copy.shim, 'status'], process.env)).toEqual({
      code: 0,
      stdout: 'main.js ran status\n',
      stderr: '',
    });
  });

  it('runs main.js in a fresh process when quick.cjs cannot be loaded (half-written or missing)', async () => {
    for (const quick of ['exports.runQuick = async (argv) => {', undefined]) {
      const copy = packageCopy();
      writeMain(copy.main, "process.stdout.write('main.js ran ' + process.argv.slice(2).join(' ') + '\\n');\n");
      if (quick !== undefined) writeQuick(copy.main, quick);
      const run = await runNode([copy.shim, 'statusline'], process.env, '{}');
      expect(run).toEqual({ code: 0, stdout: 'main.js ran statusline\n', stderr: '' });
    }
  });
});
