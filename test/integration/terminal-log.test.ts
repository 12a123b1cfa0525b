/**
 * `npm start` on a terminal (issue 29 item 4): memd's stderr is a pty there, and its lines must be
 * readable text, with one line for the migrations of a new database; JSON stays for journald, pipes
 * and files, and for MEMD_LOG_FORMAT=json. The pty comes from util-linux `script`, as a terminal
 * gives one.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../daemon/store/migrations.js';
import { RawSocket } from '../helpers/raw-socket.js';
import {
  DAEMON_MAIN,
  eventually,
  makeSandbox,
  type Sandbox,
  STARTUP_DEADLINE_MS,
  spawnTracked,
  startDaemon,
} from '../helpers/sandbox.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** The shell-quoted daemon command that `script -c` runs inside its pty. */
const DAEMON_COMMAND = `'${process.execPath}' '${DAEMON_MAIN}' --foreground`;

/** Starts memd --foreground with a terminal for stdin, stdout and stderr. */
function startOnTerminal(sandbox: Sandbox, extraEnv: NodeJS.ProcessEnv = {}) {
  return spawnTracked('script', ['-qec', DAEMON_COMMAND, '/dev/null'], { ...sandbox.env, ...extraEnv });
}

async function shutdown(sandbox: Sandbox): Promise<void> {
  const socket = await RawSocket.open(sandbox.socketPath);
  try {
    await socket.request('daemon.shutdown', {}, 5_000);
  } finally {
    socket.close();
  }
}

/** The daemon's lines as the terminal shows them (a pty ends lines with CR LF). */
const linesOf = (output: string) => output.replaceAll('\r\n', '\n').split('\n').filter(Boolean);

describe.skipIf(!hasScript)('memd --foreground on a terminal', () => {
  it('writes readable lines, and one line for the migrations of a new database', async () => {
    const sandbox = makeSandbox();
    const daemon = startOnTerminal(sandbox);
    await eventually(() => / info {2}ready /.test(daemon.output()), 'the ready line', STARTUP_DEADLINE_MS);
    const lines = linesOf(daemon.output());
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(lines.find((line) => line.includes(' ready '))).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} info {2}ready pid=\d+ .*socket=\S+memd\.sock/,
    );
    const migrated = lines.filter((line) => line.includes('database migrat'));
    expect(migrated).toHaveLength(1);
    expect(migrated[0]).toContain(`database migrated from 0 to ${SCHEMA_VERSION} (${MIGRATIONS.length} migrations)`);
    await shutdown(sandbox);
    expect((await daemon.exited).code).toBe(0);
  });

  it('writes JSON on a terminal with MEMD_LOG_FORMAT=json', async () => {
    const sandbox = makeSandbox();
    const daemon = startOnTerminal(sandbox, { MEMD_LOG_FORMAT: 'json' });
    await eventually(() => daemon.output().includes('"msg":"ready"'), 'the ready line', STARTUP_DEADLINE_MS);
    const lines = linesOf(daemon.output());
    expect(lines.every((line) => JSON.parse(line) !== null)).toBe(true);
    await shutdown(sandbox);
    expect((await daemon.exited).code).toBe(0);
  });
});

describe('memd --foreground into a pipe', () => {
  it('writes one JSON object per line, as before', async () => {
    const sandbox = makeSandbox();
    const daemon = await startDaemon(sandbox);
    await eventually(() => daemon.output().includes('"msg":"ready"'), 'the ready line');
    const lines = linesOf(daemon.output());
    const parsed = lines.map((line) => JSON.parse(line) as { msg: string });
    expect(parsed.filter((record) => record.msg.startsWith('database migrat'))).toHaveLength(1);
  });
});
