/** Project and team memory, the prompt history and rewind, over a real daemon and through memctl. */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { createClient } from '../helpers/client.js';
import { FIXTURES } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import {
  CHECKPOINT_MESSAGES,
  type FileState,
  replaySession,
  SESSION_ID,
} from '../unit/daemon/memory/rewind/fixture.js';

const PROJECT = '-home-user-src-cli-tool';
const RECORDED_CWD = '/home/user/src/cli-tool';

let sandbox: Sandbox;
let client: Client;
let cwd: string;
let claudeRoot: string;

beforeAll(async () => {
  sandbox = makeSandbox();
  claudeRoot = sandbox.env.CLAUDE_CONFIG_DIR as string;
  cwd = join(sandbox.root, 'cli-tool');
  mkdirSync(cwd);
  // The checkpoints session, its cwd moved to a dir of the test's own; its backups; the history.
  const scenario = join(FIXTURES, 'checkpoints');
  mkdirSync(join(sandbox.projectsDir, PROJECT));
  const transcript = readFileSync(join(scenario, 'projects', PROJECT, `${SESSION_ID}.jsonl`), 'utf8').replaceAll(
    RECORDED_CWD,
    cwd,
  );
  writeFileSync(join(sandbox.projectsDir, PROJECT, `${SESSION_ID}.jsonl`), transcript);
  cpSync(join(scenario, 'file-history'), join(claudeRoot, 'file-history'), { recursive: true });
  cpSync(join(FIXTURES, 'interactive', 'history.jsonl'), join(claudeRoot, 'history.jsonl'));
  cpSync(join(FIXTURES, 'interactive', 'paste-cache'), join(claudeRoot, 'paste-cache'), { recursive: true });
  const daemon = await startDaemon(sandbox);
  keepForFile(sandbox, daemon);
  client = createClient({ env: sandbox.env, autostart: false });
  await eventually(async () => (await client.daemonStatus()).ingest.stats.files === 1, 'the session to be indexed');
});

afterAll(() => client?.close());

describe('memdir over the daemon', () => {
  it('writes, reads, lists and indexes a memory; a stale etag is a Conflict', async () => {
    const written = await client.memdirWrite({
      project: PROJECT,
      name: 'testing/flaky-tests',
      type: 'feedback',
      description: 'Which tests flake',
      content: 'Retry the socket tests once.\n',
      ifMatch: null,
    });
    expect(written).toMatchObject({ isNew: true, scope: 'private', index: { lines: 1, dropped: 0 } });
    const dir = join(sandbox.projectsDir, PROJECT, 'memory');
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe(
      '- [testing/flaky-tests](testing/flaky-tests.md) — Which tests flake\n',
    );
    const read = await client.memdirRead({ project: PROJECT, name: 'testing/flaky-tests' });
    expect(read).toMatchObject({ content: 'Retry the socket tests once.\n', etag: written.etag, type: 'feedback' });
    const updated = await client.memdirWrite({
      project: PROJECT,
      name: 'testing/flaky-tests',
      type: 'feedback',
      content: 'Retry twice.\n',
      ifMatch: read.etag,
    });
    expect(updated).toMatchObject({ isNew: false, created: written.created, description: 'Which tests flake' });
    await expect(
      client.memdirWrite({
        project: PROJECT,
        name: 'testing/flaky-tests',
        type: 'feedback',
        content: 'lost?\n',
        ifMatch: read.etag,
      }),
    ).rejects.toMatchObject({
      code: 1002,
      data: { etag: updated.etag },
    });
    await expect(
      client.memdirWrite({
        project: PROJECT,
        name: 'testing/flaky-tests',
        type: 'feedback',
        content: 'again\n',
        ifMatch: null,
      }),
    ).rejects.toMatchObject({ code: 1002 });
    // The project may be named by its cwd too.
    const listed = await client.memdirList({ project: RECORDED_CWD });
    expect(listed.memories.map((memory) => memory.name)).toEqual(['testing/flaky-tests']);
  });

  it('refuses paths that escape, with the reason, and keeps user memories out of team memory', async () => {
    for (const [name, reason] of [
      ['../../../escape', 'dot-segment'],
      ['/etc/passwd', 'absolute'],
      ['%2e%2e/x', 'percent-encoded'],
      ['．．/x', 'lookalike-character'],
    ] as const) {
      await expect(client.memdirWrite({ project: PROJECT, name, type: 'project', content: 'x' })).rejects.toMatchObject(
        { code: 1004, data: { reason } },
      );
    }
    await expect(
      client.memdirWrite({ project: '../..', name: 'x', type: 'project', content: 'x' }),
    ).rejects.toMatchObject({ code: 1004 });
    await expect(
      client.memdirWrite({ project: PROJECT, scope: 'team', name: 'me', type: 'user', content: 'x' }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(client.memdirList({ project: '-no-such-project' })).rejects.toMatchObject({ code: 1001 });
    expect(existsSync(join(sandbox.root, 'escape.md'))).toBe(false);
  });

  it('memctl memdir writes from stdin, lists, reads and deletes; team memory has its own index', async () => {
    const write = await runMemctl(
      sandbox,
      ['memdir', 'write', PROJECT, 'deploy', '--team', '--type', 'project', '--description', 'How we deploy'],
      {},
      'Tag, then push.\n',
    );
    expect(write.code).toBe(0);
    expect(write.stdout).toContain('created');
    expect(readFileSync(join(sandbox.projectsDir, PROJECT, 'memory', 'team', 'MEMORY.md'), 'utf8')).toBe(
      '- [deploy](deploy.md) — How we deploy\n',
    );
    const list = await runMemctl(sandbox, ['memdir', 'list', PROJECT, '--team']);
    expect(list.stdout).toMatch(/project +deploy — How we deploy/);
    expect((await runMemctl(sandbox, ['memdir', 'read', PROJECT, 'deploy', '--team'])).stdout).toBe(
      'Tag, then push.\n',
    );
    const refused = await runMemctl(sandbox, ['memdir', 'read', PROJECT, '../x']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PathRejected');
    expect((await runMemctl(sandbox, ['memdir', 'delete', PROJECT, 'deploy', '--team'])).stdout).toContain(
      'deleted deploy',
    );
    expect(readFileSync(join(sandbox.projectsDir, PROJECT, 'memory', 'team', 'MEMORY.md'), 'utf8')).toBe('');
    expect((await runMemctl(sandbox, ['memdir', 'write', PROJECT, 'x'])).code).toBe(2);
  });
});

describe('history over the daemon', () => {
  it('lists the prompts newest first with the paste read from paste-cache', async () => {
    const result = await client.historyList({});
    expect(result.entries.length).toBeGreaterThan(0);
    const pasted = result.entries.flatMap((entry) => entry.pastes).find((paste) => paste.contentHash !== null);
    expect(pasted).toMatchObject({ missing: false });
    expect(pasted?.content?.length).toBeGreaterThan(1_024);
    const printed = await runMemctl(sandbox, ['history', '--limit', '2']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(result.entries[0]?.display.slice(0, 20));
  });
});

describe('rewind over the daemon', () => {
  const { before, end } = replaySession();
  const setState = (state: FileState) => {
    for (const [path, bytes] of state) {
      if (bytes === null) continue;
      mkdirSync(join(cwd, path, '..'), { recursive: true });
      writeFileSync(join(cwd, path), bytes);
    }
  };
  const readState = (paths: Iterable<string>): FileState =>
    new Map([...paths].map((path) => [path, existsSync(join(cwd, path)) ? readFileSync(join(cwd, path)) : null]));

  it('lists the checkpoints, restores the first byte for byte, and memctl undoes it byte for byte', async () => {
    setState(end);
    const first = CHECKPOINT_MESSAGES[0] as string;
    const listed = await client.rewindList({ sessionId: SESSION_ID });
    expect(listed.checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(CHECKPOINT_MESSAGES);
    const dry = await client.rewindRestore({ sessionId: SESSION_ID, messageId: first, dryRun: true });
    expect(dry.undoId).toBeNull();
    expect(readState(end.keys())).toEqual(end);
    const restored = await client.rewindRestore({ sessionId: SESSION_ID, messageId: first });
    expect(readState(end.keys())).toEqual(before.get(first));
    const undo = await runMemctl(sandbox, ['rewind', 'undo', restored.undoId as string]);
    expect(undo.code).toBe(0);
    expect(readState(end.keys())).toEqual(end);
  });
});
