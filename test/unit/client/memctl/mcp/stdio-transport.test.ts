import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport, readLine } from '../../../../../client/memctl/mcp/stdio-transport.js';

const LIMIT = 64;

function harness() {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: unknown[] = [];
  output.on('data', (chunk: Buffer) => {
    for (const text of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(text));
  });
  const logged: string[] = [];
  const messages: unknown[] = [];
  const transport = new LineTransport(input, output, { maxLineBytes: LIMIT, log: (line) => logged.push(line) });
  transport.onmessage = (message) => void messages.push(message);
  return { input, transport, written, logged, messages };
}

const LIST = '{"jsonrpc":"2.0","id":9,"method":"tools/list"}';

describe('LineTransport', () => {
  it('passes messages split across chunks, with CRLF, and skips blank lines', async () => {
    const { input, transport, messages, written } = harness();
    await transport.start();
    input.write(LIST.slice(0, 10));
    input.write(`${LIST.slice(10)}\r\n\n`);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 9, method: 'tools/list' }]);
    expect(written).toEqual([]);
  });

  it('skips a line over the limit without holding it, finds its trailing id, and reads the next line', async () => {
    const { input, transport, messages, written, logged } = harness();
    await transport.start();
    input.write(`{"method":"tools/call","params":{"a":"${'x'.repeat(LIMIT)}`);
    for (let index = 0; index < 100; index++) input.write('y'.repeat(1000));
    input.write(`"},"jsonrpc":"2.0","id":"call-7"}\n${LIST}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([
      {
        jsonrpc: '2.0',
        id: 'call-7',
        error: {
          code: -32600,
          message: expect.stringContaining(`limit of ${LIMIT} bytes`),
          data: { limit: LIMIT, bytes: expect.any(Number) },
        },
      },
    ]);
    expect(logged).toHaveLength(1);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 9, method: 'tools/list' }]);
  });

  it('finds the id of a line that crosses the limit only in its last bytes', async () => {
    const { input, transport, written } = harness();
    await transport.start();
    // 70 bytes: the first write is kept whole (64, the limit), the second crosses it with the id's last bytes.
    const line = `{"method":"tools/call","params":{"a":"${'x'.repeat(5)}"},"jsonrpc":"2.0","id":41}`;
    expect(line.length).toBe(LIMIT + 6);
    input.write(line.slice(0, LIMIT));
    input.write(`${line.slice(LIMIT)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toMatchObject([{ id: 41, error: { code: -32600 } }]);
  });

  it('does not take a nested id at the end of a skipped line for the message id', async () => {
    const { input, transport, written } = harness();
    await transport.start();
    input.write(`{"params":{"a":"${'x'.repeat(LIMIT)}","inner":{"jsonrpc":"2.0","id":3}}}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it('stops reading once closed', async () => {
    const { input, transport, messages } = harness();
    let closed = false;
    transport.onclose = () => void (closed = true);
    await transport.start();
    await transport.close();
    input.write(`${LIST}\n`);
    expect(closed).toBe(true);
    expect(messages).toEqual([]);
  });
});

describe('readLine', () => {
  it('answers what is not a message, with the id when it has one', () => {
    expect(readLine('{')).toMatchObject({ answer: { id: null, error: { code: -32700 } } });
    expect(readLine('[1]')).toMatchObject({
      answer: { id: null, error: { code: -32600, message: expect.stringContaining('batches') } },
    });
    expect(readLine('"x"')).toMatchObject({
      answer: { id: null, error: { code: -32600 } },
      reason: 'a JSON string, not an object',
    });
    expect(readLine('{"jsonrpc":"1.0","id":4,"method":"x"}')).toMatchObject({
      answer: { id: 4, error: { code: -32600 } },
    });
    expect(
      readLine(`{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`),
    ).toMatchObject({
      answer: { id: 5, error: { code: -32600, message: expect.stringContaining('deeper') } },
    });
    expect(readLine('  ')).toBeNull();
  });
});
