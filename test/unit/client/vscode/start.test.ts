/** The start command: run without a shell, its outcome said in words. */
import { describe, expect, it } from 'vitest';
import { runStartCommand } from '../../../../client/vscode/src/start.js';

const node = process.execPath;

describe('runStartCommand', () => {
  it('reports success with the command’s last line', async () => {
    expect(
      await runStartCommand([node, '-e', 'console.log("starting"); console.log("memd started (pid 42)")'], process.env),
    ).toEqual({ ok: true, message: 'starting memd started (pid 42)' });
    expect(await runStartCommand([node, '-e', ''], process.env)).toEqual({
      ok: true,
      message: `${node} -e  succeeded`,
    });
  });

  it('quotes the command’s words when it fails', async () => {
    const outcome = await runStartCommand(
      [node, '-e', 'console.error("memd: the socket dir is not yours"); process.exit(2)'],
      process.env,
    );
    expect(outcome).toEqual({
      ok: false,
      message: expect.stringMatching(/failed \(exit 2\): memd: the socket dir is not yours$/),
    });
  });

  it('says when the program is not found, is empty, or does not finish', async () => {
    expect(await runStartCommand(['memctl-not-installed-here', 'start'], { PATH: '/nonexistent' })).toEqual({
      ok: false,
      message: 'memctl-not-installed-here was not found (PATH=/nonexistent); set memd.startCommand to its full path',
    });
    expect((await runStartCommand([], process.env)).message).toContain('memd.startCommand is empty');
    expect(await runStartCommand([node, '-e', 'setTimeout(() => {}, 60_000)'], process.env, 200)).toEqual({
      ok: false,
      message: expect.stringContaining('did not finish within 200 ms'),
    });
  });

  it('passes arguments as they are, without a shell', async () => {
    expect(
      (await runStartCommand([node, '-e', 'console.log(process.argv[1])', '$HOME; echo no'], process.env)).message,
    ).toBe('$HOME; echo no');
  });
});
