/**
 * Issue 13 item 14: a transcript entry nested thousands deep is valid JSON (JSON.parse accepts a
 * million levels) but overflows any recursive walk, JSON.stringify and structured clone included.
 * Such an entry must not crash ingest, a worker or a method: every method that reads the session
 * still answers, and the figures of the entries around it are exact.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handle } from '../../daemon/rpc/dispatch.js';
import { Methods } from '../../shared/protocol/methods.js';
import { CUT_VALUE } from '../../shared/transcript/depth.js';
import { createClient } from '../helpers/client.js';
import { serveHandlers } from '../helpers/handler-server.js';
import { mainPath } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

const CWD = '/home/dev/nest';
const SESSION = 'a6000000-0000-4000-8000-000000000014';

/** `depth` nested objects around a string: valid JSON that no recursive walk of that depth survives. */
function deepObject(depth: number): string {
  return `${'{"k":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;
}

function deepArray(depth: number): string {
  return `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`;
}

/** JSON text of `line` with the string "@DEEP@" replaced by raw (already JSON) text. */
function withDeep(line: Record<string, unknown>, deep: string): string {
  const text = JSON.stringify(line);
  if (!text.includes('"@DEEP@"')) throw new Error('no @DEEP@ marker in the line');
  return text.replace('"@DEEP@"', () => deep);
}

const usage = (n: number) => ({
  input_tokens: 3,
  output_tokens: 100 + n,
  cache_creation_input_tokens: 1_000 * n,
  cache_read_input_tokens: 10_000,
});

/** A session whose every hostile place holds a value 4,000 or 8,000 deep, between ordinary rounds. */
function hostileSession(withLongLine = true): { text: string; totalOutput: number } {
  const base = { sessionId: SESSION, cwd: CWD, version: '2.1.38', isSidechain: false, userType: 'external' };
  let n = 0;
  const at = () => new Date(Date.parse('2026-12-03T09:00:00.000Z') + ++n * 1_000).toISOString();
  const assistant = (uuid: string, parent: string, content: unknown, round: number) => ({
    ...base,
    type: 'assistant',
    uuid,
    parentUuid: parent,
    timestamp: at(),
    requestId: `req_${uuid}`,
    message: {
      id: `msg_${uuid}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: 'tool_use',
      usage: usage(round),
    },
  });
  const user = (uuid: string, parent: string, content: unknown, extra: Record<string, unknown> = {}) => ({
    ...base,
    type: 'user',
    uuid,
    parentUuid: parent,
    timestamp: at(),
    message: { role: 'user', content },
    ...extra,
  });
  const lines = [
    JSON.stringify(user('u1', '', 'Parse the config tree')),
    // Deep tool_use input (the model wrote it).
    withDeep(
      assistant(
        'a1',
        'u1',
        [
          { type: 'text', text: 'Reading it.' },
          {
            type: 'tool_use',
            id: 'toolu_n1',
            name: 'Read',
            input: { file_path: '/home/dev/nest/a.json', extra: '@DEEP@' },
          },
        ],
        1,
      ),
      deepObject(8_000),
    ),
    // Deep tool_result content and a deep toolUseResult (the tool wrote them).
    withDeep(user('u2', 'a1', [{ type: 'tool_result', tool_use_id: 'toolu_n1', content: '@DEEP@' }]), deepArray(4_000)),
    withDeep(user('u3', 'u2', 'ok', { toolUseResult: { file: '@DEEP@' } }), deepObject(8_000)),
    JSON.stringify(
      assistant('a2', 'u3', [{ type: 'tool_use', id: 'toolu_n2', name: 'Bash', input: { command: 'ls' } }], 2),
    ),
    // A deep block right in message.content.
    withDeep(
      user('u4', 'a2', [
        { type: 'tool_result', tool_use_id: 'toolu_n2', content: 'a.json' },
        { type: 'text', text: '@DEEP@' },
      ]),
      deepArray(8_000),
    ),
    withDeep(user('u5', 'u4', '@DEEP@'), deepObject(4_000)),
    JSON.stringify(assistant('a3', 'u5', [{ type: 'text', text: 'Done: the tree parses.' }], 3)),
    JSON.stringify({
      type: 'file-history-snapshot',
      messageId: 'u1',
      snapshot: { messageId: 'u1', trackedFileBackups: {}, timestamp: at() },
      isSnapshotUpdate: false,
    }),
    JSON.stringify(user('u6', 'a3', 'Thanks')),
  ];
  // A long line (its long strings are measured, not decoded, at ingest) that is also deep. Left
  // out where the transcript's last 50 KB must be whole lines (a handoff's tail).
  if (withLongLine) {
    lines.push(
      withDeep(
        assistant(
          'a4',
          'u6',
          [
            { type: 'text', text: 'Long notes. '.repeat(8_000) },
            { type: 'tool_use', id: 'toolu_n3', name: 'Write', input: { content: '@DEEP@' } },
          ],
          4,
        ),
        deepArray(8_000),
      ),
    );
  }
  return { text: `${lines.join('\n')}\n`, totalOutput: 101 + 102 + 103 + (withLongLine ? 104 : 0) };
}

describe('entries nested thousands deep', () => {
  it('are read, counted and answered for by every method that reads the session', async () => {
    const sandbox = makeSandbox();
    const { text, totalOutput } = hostileSession();
    const path = mainPath(sandbox.projectsDir, CWD, SESSION);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    const workTree = join(sandbox.root, 'work');
    mkdirSync(workTree);
    const daemon = await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(
        async () => ((await client.sessionsList()).sessions.find((s) => s.sessionId === SESSION)?.entries ?? 0) >= 11,
        'the session to be read',
      );
      const summary = await client.sessionsGet({ sessionId: SESSION });
      expect(summary.usage.main.output).toBe(totalOutput);
      expect(summary.badLines).toBe(0);
      // The deep parts are cut to a marker; everything around them is the conversation as written.
      const micro = await client.compactMicro({ sessionId: SESSION });
      const text = JSON.stringify(micro.messages);
      expect(text).toContain(CUT_VALUE);
      expect(text).toContain('/home/dev/nest/a.json');
      expect(text).toContain('Done: the tree parses.');
      for (const answer of [
        await client.compactAuto({ sessionId: SESSION, force: true }),
        await client.compactReactive({ sessionId: SESSION, limitTokens: 1_000_000 }),
        await client.compactCacheEdits({ sessionId: SESSION, keep: 0 }),
      ]) {
        expect(answer.postTokens).toBeGreaterThan(0);
      }
      const result = await client.toolResultsGet({ sessionId: SESSION, toolUseId: 'toolu_n1' });
      expect(JSON.stringify(result)).toContain(CUT_VALUE);
      expect((await client.memoryExtract({ sessionId: SESSION })).text).toContain('Parse the config tree');
      expect((await client.rewindList({ sessionId: SESSION })).checkpoints).toHaveLength(1);
      const handoff = await client.handoffGenerate({ sessionId: SESSION, cwd: workTree });
      expect(readFileSync(handoff.path, 'utf8')).toContain('Parse the config tree');
      expect((await client.daemonStatus()).pid).toBe(daemon.child.pid);
    } finally {
      client.close();
    }
  });

  it("are read by handoff.generate from a transcript path, and by the hook's own fallback without a daemon", async () => {
    const sandbox = makeSandbox();
    const transcript = mainPath(sandbox.projectsDir, CWD, SESSION);
    mkdirSync(dirname(transcript), { recursive: true });
    // The tail a handoff reads is the last 50 KB: it ends with a deep tool call and a reply.
    const base = {
      sessionId: SESSION,
      cwd: CWD,
      version: '2.1.38',
      type: 'assistant',
      timestamp: '2026-12-03T09:30:00.000Z',
    };
    const call = {
      ...base,
      uuid: 'a5',
      parentUuid: 'u6',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_n5',
            name: 'Edit',
            input: { file_path: '/home/dev/nest/b.json', edits: '@DEEP@' },
          },
        ],
      },
    };
    const reply = {
      ...base,
      uuid: 'a6',
      parentUuid: 'a5',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Both files parse now.' }] },
    };
    writeFileSync(
      transcript,
      `${hostileSession(false).text}${withDeep(call, deepObject(7_000))}\n${JSON.stringify(reply)}\n`,
    );
    const workTree = join(sandbox.root, 'work');
    mkdirSync(workTree);
    const input = JSON.stringify({
      session_id: SESSION,
      transcript_path: transcript,
      cwd: workTree,
      hook_event_name: 'PreCompact',
      trigger: 'auto',
      custom_instructions: '',
    });
    const run = await runMemctl(sandbox, ['--no-autostart', 'hook', 'pre-compact'], {}, input);
    expect(run.code).toBe(0);
    const partial = readFileSync(join(workTree, 'docs', 'handoff-context.md'), 'utf8');
    expect(partial).toContain('Both files parse now.');
    expect(partial).toContain(`TOOL CALL Edit: {"file_path":"/home/dev/nest/b.json","edits":`);
    expect(partial).toContain(CUT_VALUE);
    await startDaemon(sandbox);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      const handoff = await client.handoffGenerate({ transcriptPath: transcript, cwd: workTree });
      expect(readFileSync(handoff.path, 'utf8')).toContain('Parse the config tree');
    } finally {
      client.close();
    }
  });

  it('an answer that still nests too deep to serialize is answered with AnswerTooLarge, and the connection serves on', async () => {
    // A real server and socket; only the handler is made to answer a value no walk survives.
    const served = await serveHandlers([handle(Methods.sessionsGet, () => JSON.parse(deepArray(10_000)) as never)]);
    const { client } = served;
    try {
      const error = await client.call(Methods.sessionsGet, { sessionId: 'any' }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 1009, kind: 'AnswerTooLarge' });
      expect((error as Error).message).toContain('nests too deep to serialize');
      expect((await client.call(Methods.daemonVersion, {})).name).toBe('memd');
    } finally {
      await served.close();
    }
  });
});
