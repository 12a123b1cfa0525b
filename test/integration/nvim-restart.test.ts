/**
 * The Neovim plugin while memd changes under it, in a real headless Neovim: a threshold crossing
 * notified and followed by the line, the line empty while memd is down and back (subscribed again)
 * after a stop and a kill -9, and a socket that is not memd (garbage, a stranger's version, an
 * endless line, silence) which the editor never waits on.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/client.js';
import { loadPlugin, NVIM_PATH, notes, startNvim, statusline } from '../helpers/nvim.js';
import {
  appendResponse,
  caughtUp,
  connectionState,
  editor,
  FAST_BACKOFF,
  isRunning,
  LEVEL,
  lines,
  prepareProjects,
  RESPONSIVE_MS,
  title,
} from '../helpers/nvim-session.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

describe.skipIf(!NVIM_PATH)(title('the Neovim plugin when memd changes'), () => {
  it('notifies when the editor’s session crosses a threshold, and the line follows session.updated', async () => {
    const sandbox = makeSandbox();
    const project = prepareProjects(sandbox);
    // A 1M auto-compact window set: claude-opus-4-8 (1M by default, issue 28) compacts ahead at 967K
    // (threshold mode); without it Claude Code 2.1.197 compacts only when the API refuses, at 1M.
    await startDaemon(sandbox, undefined, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '1000000' });
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(() => caughtUp(client), 'ingest to catch up');
      // No timer refresh within the test: only events can change the line.
      const nvim = await editor(sandbox, project.cwd, { refresh_ms: 600_000 });
      await eventually(async () => (await statusline(nvim)) !== '', 'the line');
      expect(await statusline(nvim)).toContain('used of auto-compact');
      appendResponse(project, 'nvim-threshold-1', 970_110); // past 967K
      await eventually(
        async () => (await notes(nvim)).some((note) => note.message.includes('went from ok to autocompact')),
        'the notification',
      );
      const note = (await notes(nvim)).find((candidate) => candidate.message.includes('went from ok to autocompact'));
      const { title } = await client.sessionsGet({ sessionId: project.sessionId });
      expect(note?.level).toBe(LEVEL.ERROR);
      expect(
        note?.message.startsWith(
          `memd: session ${project.sessionId.slice(0, 8)} (${title}) went from ok to autocompact: ▕████████▏ `,
        ),
      ).toBe(true);
      expect(note?.message).toMatch(/ 1\d\d% used of auto-compact · 0 left$/);
      await eventually(
        async () => /1\d\d% used of auto-compact · 0 left/.test(await statusline(nvim)),
        'the line to follow',
      );
    } finally {
      client.close();
    }
  });

  it('is empty while memd is down and reconnects, and subscribes again, when it restarts (stopped or killed)', async () => {
    const sandbox = makeSandbox();
    const project = prepareProjects(sandbox);
    const nvim = startNvim({ cwd: project.cwd, env: sandbox.env });
    await loadPlugin(nvim, { ...FAST_BACKOFF, refresh_ms: 600_000 });
    await eventually(async () => (await connectionState(nvim)).state === 'waiting', 'a failed first attempt');
    expect(await statusline(nvim)).toBe('');
    expect((await connectionState(nvim)).last_error).toBe(
      `cannot connect to ${sandbox.socketPath}: ENOENT (memd is not running; start it with \`memctl start\`)`,
    );
    // :Memd status says what to do, as memctl's own "start it with: memctl start" does.
    await nvim.command('Memd status');
    const down = await lines(
      nvim,
      'memd://status',
      (text) => text[0]?.startsWith('memd: daemon.status failed: ') === true,
    );
    expect(down[0]).toContain('memd is not running; start it with `memctl start`');
    // The wait doubles from backoff_initial_ms after each failure, and stops at backoff_max_ms.
    const waits: number[] = [];
    await eventually(async () => {
      const wait = await nvim.lua<number | null>(`return require('memd').status().retry_in_ms`);
      if (wait !== null) waits.push(wait);
      return waits.some((ms) => ms > 4 * FAST_BACKOFF.backoff_initial_ms);
    }, 'the backoff to double twice');
    expect(Math.max(...waits)).toBeLessThanOrEqual(FAST_BACKOFF.backoff_max_ms);

    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      let daemon = await startDaemon(sandbox);
      await eventually(() => caughtUp(client), 'ingest to catch up');
      await eventually(async () => (await statusline(nvim)) !== '', 'the line once memd runs');

      // A graceful stop: daemon.stopping, then the socket goes.
      expect((await runMemctl(sandbox, ['stop'])).code).toBe(0);
      await daemon.exited;
      await eventually(async () => (await statusline(nvim)) === '', 'an empty line after the stop');
      // Which failure came last depends on where a reconnect attempt met the stopping daemon.
      expect((await connectionState(nvim)).last_error).toMatch(
        /^(memd is stopping \(|cannot connect to .*\(memd is not running; start it with `memctl start`\)$|memd closed the connection$|daemon\.version failed: )/,
      );
      daemon = await startDaemon(sandbox);
      await eventually(async () => (await statusline(nvim)) !== '', 'the line after a restart');
      // Subscribed again: an append reaches the line with no refresh.
      // 1M − 900K: claude-opus-4-8 runs at 1M by default and compacts only when the API refuses (issue 28).
      appendResponse(project, 'nvim-restart-1', 900_110);
      await eventually(
        async () => (await statusline(nvim)).includes('90% context used · 100K left ·'),
        `the line after an append (${await statusline(nvim)})`,
      );

      // kill -9: no daemon.stopping, the socket just closes.
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      await eventually(async () => (await statusline(nvim)) === '', 'an empty line after kill -9');
      await startDaemon(sandbox);
      await eventually(
        async () => (await statusline(nvim)).includes('· 100K left ·'),
        'the line after kill -9 and a restart',
      );
    } finally {
      client.close();
    }
    expect(await nvim.close()).toBe(0);
    expect(isRunning(nvim.pid)).toBe(false);
  });

  it('treats a socket that is not memd as no memd, and never waits on it', async () => {
    const sandbox = makeSandbox();
    mkdirSync(sandbox.runtimeDir, { recursive: true, mode: 0o700 });
    // Each connection gets the next answer: not JSON, a version that is not memd's, an endless line, silence.
    const answers: ((socket: Socket, id: unknown) => void)[] = [
      (socket) => socket.write('hello\n'),
      (socket, id) =>
        socket.write(
          `${JSON.stringify({ jsonrpc: '2.0', id, result: { name: 'other', version: '1', protocol: 1, capabilities: [] } })}\n`,
        ),
      (socket) => socket.write(Buffer.alloc(17 * 1024 * 1024, 0x61)),
      () => undefined,
    ];
    let connections = 0;
    const server: Server = createServer((socket) => {
      socket.on('error', () => undefined);
      // The first line is the plugin's daemon.version request.
      socket.once('data', (chunk: Buffer) =>
        answers[Math.min(connections++, answers.length - 1)]?.(
          socket,
          (JSON.parse(chunk.toString().split('\n')[0] ?? '') as { id: unknown }).id,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(sandbox.socketPath, resolve));
    try {
      const nvim = startNvim({ cwd: sandbox.root, env: sandbox.env });
      await loadPlugin(nvim, { ...FAST_BACKOFF, request_timeout_ms: 300 });
      const errors = new Set<string>();
      await eventually(async () => {
        const { last_error: error } = await connectionState(nvim);
        if (error !== undefined) errors.add(error);
        return errors.size >= 4;
      }, 'four failures').catch((error) => {
        throw new Error(`${String(error)}: ${JSON.stringify([...errors])}`);
      });
      expect([...errors]).toEqual([
        'memd sent a line that is not JSON',
        'daemon.version failed: version.name should be one of memd, not other',
        'memd sent a message over 16 MiB',
        'daemon.version failed: no answer from memd within 0.3 s',
      ]);
      expect(await statusline(nvim)).toBe('');
      // A command while the socket is silent: the editor goes on answering until the request times out.
      await nvim.lua(`require('memd').setup({ request_timeout_ms = 1500 })`);
      await nvim.command('Memd status');
      await eventually(
        async () => (await connectionState(nvim)).state === 'connecting',
        'a connection waiting on the silent socket',
      );
      const asked = Date.now();
      expect(await nvim.lua('return 1 + 1')).toBe(2);
      expect(await statusline(nvim)).toBe('');
      expect(Date.now() - asked).toBeLessThan(RESPONSIVE_MS);
      expect((await connectionState(nvim)).state).toBe('connecting');
      await lines(
        nvim,
        'memd://status',
        (text) => text[0] === 'memd: daemon.status failed: daemon.version failed: no answer from memd within 1.5 s',
      );
    } finally {
      server.close();
    }
  });
});
