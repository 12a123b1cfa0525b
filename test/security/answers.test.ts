/**
 * Issue 13 item 6: no answer is bigger than the client's 16 MiB frame. A 40 MB tool result is
 * read in pages (offset/length, bounded reads), a FIFO at its path is refused at once, and any
 * other answer too large for a frame becomes AnswerTooLarge instead of a frame the client drops.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES } from '../../daemon/compaction/tool-result-page.js';
import { handle } from '../../daemon/rpc/dispatch.js';
import { toolResultsDir } from '../../shared/paths.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import { Methods } from '../../shared/protocol/methods.js';
import { createClient } from '../helpers/client.js';
import { serveHandlers } from '../helpers/handler-server.js';
import { mainPath, projectFolder } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/scraper';
const SESSION = 'a5000000-0000-4000-8000-000000000006';
const TOOL_USE = 'toolu_01BigBigBigBigBigBig000';

/** A transcript with one Bash call whose result Claude Code kept in a file of its own. */
function session(sandbox: Sandbox): string {
  const at = '2026-12-03T09:00:00.000Z';
  const base = { sessionId: SESSION, cwd: CWD, version: '2.1.38', timestamp: at };
  const lines = [
    { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Dump the crawl log' } },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      requestId: 'req_1',
      message: {
        id: 'msg_1',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'tool_use', id: TOOL_USE, name: 'Bash', input: { command: 'cat crawl.log' } }],
        usage: { input_tokens: 10, output_tokens: 30, cache_creation_input_tokens: 5_000, cache_read_input_tokens: 0 },
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'u2',
      parentUuid: 'a1',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: TOOL_USE, content: 'Output too large; saved to a file.' }],
      },
    },
  ];
  const path = mainPath(sandbox.projectsDir, CWD, SESSION);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const dir = toolResultsDir(sandbox.projectsDir, projectFolder(CWD), SESSION);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${TOOL_USE}.txt`);
}

describe('answers that would not fit in a frame', () => {
  it('a 40 MB tool result comes in pages that put together are the file, on character boundaries', async () => {
    const sandbox = makeSandbox();
    const file = session(sandbox);
    // Multi-byte characters everywhere, so page ends fall inside characters.
    const line = 'crawl é € 😀 ok\n';
    const text = line.repeat(Math.ceil(40_000_000 / Buffer.byteLength(line)));
    writeFileSync(file, text);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => ((await client.sessionsList()).sessions[0]?.entries ?? 0) >= 3,
        'the session to be indexed',
      );
      const first = await client.toolResultsGet({ sessionId: SESSION, toolUseId: TOOL_USE });
      expect(first).toMatchObject({
        paged: true,
        form: 'text',
        offset: 0,
        totalBytes: Buffer.byteLength(text),
        source: 'persisted',
      });
      expect(first.bytes).toBeLessThanOrEqual(1024 * 1024);
      const parts: string[] = [first.content as string];
      let next = first.nextOffset;
      let pages = 1;
      for (; next !== null && pages < 100; pages += 1) {
        const page = await client.toolResultsGet({
          sessionId: SESSION,
          toolUseId: TOOL_USE,
          offset: next,
          length: MAX_PAGE_BYTES,
        });
        expect(page.offset).toBe(next);
        parts.push(page.content as string);
        next = page.nextOffset;
      }
      expect(next).toBeNull();
      expect(parts.join('') === text).toBe(true);
      // Pages are read in their range: the daemon never held the 40 MB (nor its JSON) at once.
      expect((await client.daemonStatus()).memory.rssBytes).toBeLessThan(250 * 1024 * 1024);
    } finally {
      client.close();
    }
  }, 60_000);

  it('a FIFO at the tool result path is refused at once, and later calls are answered', async () => {
    const sandbox = makeSandbox();
    const file = session(sandbox);
    execFileSync('mkfifo', [file]);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => ((await client.sessionsList()).sessions[0]?.entries ?? 0) >= 3,
        'the session to be indexed',
      );
      // More than libuv's four threads: before, each call held one until a writer came.
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          client.toolResultsGet({ sessionId: SESSION, toolUseId: TOOL_USE }).catch((error: unknown) => error),
        ),
      );
      for (const answer of answers) expect(answer).toMatchObject({ code: 1004, kind: 'NotAFile' });
      expect((await client.daemonVersion()).name).toBe('memd');
    } finally {
      client.close();
    }
  });

  it('any other answer over the frame limit becomes AnswerTooLarge, and the connection serves on', async () => {
    // A real server and socket; only the handler is made to answer too much.
    const served = await serveHandlers([
      handle(Methods.sessionsGet, () => ({ huge: 'x'.repeat(MAX_FRAME_BYTES) }) as never),
    ]);
    const { client } = served;
    try {
      const error = await client.call(Methods.sessionsGet, { sessionId: 'any' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 1009, kind: 'AnswerTooLarge', data: { limit: MAX_FRAME_BYTES } });
      expect((await client.call(Methods.daemonVersion, {})).name).toBe('memd');
    } finally {
      await served.close();
    }
  });
});
