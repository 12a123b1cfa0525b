/**
 * `memctl mcp`'s stdin as a client can get it wrong: a line over the 1 MiB limit, a line that is
 * not JSON, JSON that is not a message, a batch. Each gets a JSON-RPC error on stdout and one line
 * on stderr, and the server reads on: the calls after it are answered (before, a line over the
 * limit ended the server with exit 0 and no answer, and memd's tools were gone for the session).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { MEMCTL_MAIN, makeSandbox, runMemctl } from '../helpers/sandbox.js';

/** memctl mcp's limit on one stdin message (MAX_STDIN_MESSAGE_BYTES in client/memctl/mcp/server.ts). */
const LIMIT_BYTES = 1024 * 1024;
const PROCESS_DEADLINE_MS = 20_000;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdin-test', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

interface Answer {
  jsonrpc: string;
  id: number | string | null;
  result?: { tools?: { name: string }[] };
  error?: { code: number; message: string; data?: unknown };
}

/** A tools/call whose arguments alone are `bytes` long, serialized as the MCP SDK does (id last). */
function hugeCall(id: number, bytes: number): string {
  return `{"method":"tools/call","params":{"name":"project_memory","arguments":{"action":"write","content":"${'x'.repeat(bytes)}"}},"jsonrpc":"2.0","id":${id}}\n`;
}

describe('memctl mcp reads on past bad stdin lines', () => {
  it('answers a 2 MiB line with an error naming the limit, logs one stderr line, and answers the next call', async () => {
    const sandbox = makeSandbox();
    const input = [
      line(INITIALIZE),
      line(INITIALIZED),
      hugeCall(2, 2 * LIMIT_BYTES),
      line({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    ].join('');
    const run = await runMemctl(sandbox, ['--no-autostart', 'mcp'], {}, input);
    expect(run.code).toBe(0);
    const answers = run.stdout
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as Answer);
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    // The id is read from the end of the line the SDK wrote, so the caller's request fails at once.
    expect(answers.find((answer) => answer.id === 2)?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('1048576 bytes'),
    });
    expect(answers.find((answer) => answer.id === 3)?.result?.tools?.length).toBe(8);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^memctl mcp: skipped a stdin message over the limit of 1048576 bytes/),
    ]);
  });

  it('answers a line whose id it cannot find with id null', async () => {
    const sandbox = makeSandbox();
    const input = [
      line(INITIALIZE),
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"x":"${'y'.repeat(LIMIT_BYTES + 10)}"}}\n`,
      line({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    ].join('');
    const run = await runMemctl(sandbox, ['--no-autostart', 'mcp'], {}, input);
    const answers = run.stdout
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as Answer);
    expect(answers.map((answer) => String(answer.id)).sort()).toEqual(['1', '3', 'null']);
    expect(answers.find((answer) => answer.id === null)?.error?.code).toBe(-32600);
  });

  it('answers malformed JSON, non-objects, a batch and a non-message, each with an error, and keeps serving', async () => {
    const sandbox = makeSandbox();
    const bad = [
      '{"jsonrpc":"2.0","id":2,"method":',
      '42',
      '"text"',
      'null',
      '[]',
      line([{ jsonrpc: '2.0', id: 4, method: 'tools/list' }]).trimEnd(),
      '{"id":5}',
      '{"jsonrpc":"2.0","id":6,"method":7}',
    ];
    const input = [
      line(INITIALIZE),
      line(INITIALIZED),
      ...bad.map((text) => `${text}\n`),
      '\n',
      line({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    ].join('');
    const run = await runMemctl(sandbox, ['--no-autostart', 'mcp'], {}, input);
    expect(run.code).toBe(0);
    const answers = run.stdout
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as Answer);
    // A bad line is answered as it is read, maybe before the call above it: JSON-RPC answers carry no order.
    expect(answers.map((answer) => `${answer.id} ${answer.error?.code ?? 'ok'}`).sort()).toEqual(
      [
        '1 ok',
        'null -32700',
        'null -32600',
        'null -32600',
        'null -32600',
        'null -32600',
        'null -32600',
        '5 -32600',
        '6 -32600',
        '8 ok',
      ].sort(),
    );
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(bad.length);
  });

  it('keeps answering Claude Code-style, one call at a time, after a line over the limit', async () => {
    const sandbox = makeSandbox();
    const child = spawn(process.execPath, [MEMCTL_MAIN, '--no-autostart', 'mcp'], {
      env: sandbox.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_DEADLINE_MS);
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse(((await lines.next()).value as string | undefined) ?? 'null') as Answer | null;
    try {
      child.stdin.write(line(INITIALIZE));
      expect((await next())?.id).toBe(1);
      child.stdin.write(line(INITIALIZED));
      // Written in pieces, as a pipe delivers it: the limit is crossed in the middle of a chunk.
      const huge = hugeCall(2, 3 * LIMIT_BYTES);
      for (let at = 0; at < huge.length; at += 65_536) child.stdin.write(huge.slice(at, at + 65_536));
      expect(await next()).toMatchObject({ id: 2, error: { code: -32600 } });
      for (const id of [3, 4]) {
        child.stdin.write(line({ jsonrpc: '2.0', id, method: 'tools/list' }));
        expect((await next())?.id).toBe(id);
      }
      child.stdin.end();
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code).toBe(0);
    } finally {
      clearTimeout(timer);
      child.kill('SIGKILL');
    }
  });
});
