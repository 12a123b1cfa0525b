import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planMicro } from '../../../../daemon/compaction/micro.js';
import { persistToolResults, readToolResult } from '../../../../daemon/compaction/tool-results.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { buildMessages } from '../../../../daemon/transcripts/messages.js';
import { toolResultsDir } from '../../../../shared/paths.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import type { ContentBlock } from '../../../../shared/protocol/messages.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexedEntry, ingestFixture } from '../../../helpers/compact.js';

const PROJECT = '-home-user-proj';
const SESSION = 'sess-1';
const BIG_BASH = 'toolu_01uUgp7hiyuJjEHHOUyODbbD';

function indexed(partial: Partial<IndexedEntry>): IndexedEntry {
  return indexedEntry({ timestamp: '2026-01-01T10:00:00.000Z', sessionId: SESSION, ...partial });
}

/** A prompt, one Bash call and its result line (with `toolUseResult` as given). */
function oneCall(
  id: string,
  output: string | ContentBlock[],
  toolUseResult: Record<string, unknown> = {},
): LoadedEntry[] {
  return [
    { entry: indexed({ uuid: 'u0' }), raw: { type: 'user', uuid: 'u0', message: { role: 'user', content: 'Go.' } } },
    {
      entry: indexed({ type: 'assistant', uuid: 'u1', messageId: 'msg_1', toolUses: [{ id, name: 'Bash' }] }),
      raw: {
        type: 'assistant',
        uuid: 'u1',
        message: { role: 'assistant', id: 'msg_1', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] },
      },
    },
    {
      entry: indexed({ uuid: 'u2', toolResults: [{ id, isError: false }] }),
      raw: {
        type: 'user',
        uuid: 'u2',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
        toolUseResult,
      },
    },
  ];
}

function logText(chars: number): string {
  let text = '';
  for (let index = 0; text.length < chars; index++)
    text += `${index} INFO handled request ${'x'.repeat((index * 17) % 50)}\n`;
  return text.slice(0, chars);
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('toolResults.get on the big-outputs fixture', () => {
  it('returns the full output Claude Code persisted, from the fixture copy', async () => {
    const fixture = await ingestFixture('big-outputs');
    try {
      const conversation = fixture.conversation();
      const result = await readToolResult(
        fixture.projectsDir,
        conversation.file.project,
        conversation.sessionId,
        BIG_BASH,
        conversation,
      );
      const path = join(
        fixture.projectsDir,
        conversation.file.project,
        conversation.sessionId,
        'tool-results',
        'bf43dny32.txt',
      );
      expect(result).toMatchObject({
        toolUseId: BIG_BASH,
        tool: 'Bash',
        content: readFileSync(path, 'utf8'),
        chars: 120_012,
        isError: false,
        source: 'persisted',
        path,
      });
    } finally {
      fixture.close();
    }
  });

  it('returns an inline result from the transcript, and NotFound for an unknown id', async () => {
    const fixture = await ingestFixture('big-outputs');
    try {
      const conversation = fixture.conversation();
      const args = [fixture.projectsDir, conversation.file.project, conversation.sessionId] as const;
      const count = await readToolResult(...args, 'toolu_015ovhXRHkRFM7799oRDgues', conversation);
      expect(count).toMatchObject({ tool: 'Bash', source: 'transcript', isError: false });
      expect(count.path).toBeUndefined();
      expect(count.chars).toBe((count.content as string).length);
      const read = await readToolResult(...args, 'toolu_01L8OjLax9SIpLjDYPzzsnRS', conversation);
      expect(read).toMatchObject({ tool: 'Read', source: 'transcript' });
      expect(read.chars).toBeGreaterThan(70_000);
      const error = await rejection(readToolResult(...args, 'toolu_unknown', conversation));
      expect(error.code).toBe(ErrorCode.NotFound);
      expect(error.data).toEqual({ kind: 'NotFound', toolUseId: 'toolu_unknown' });
    } finally {
      fixture.close();
    }
  });
});

describe('persisted tool results on disk', () => {
  let root: string;
  let projectsDir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'memd-tool-results-'));
    projectsDir = join(root, 'projects');
    mkdirSync(join(projectsDir, PROJECT), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes what micro-compaction persists, once, owner-only, and reads it back in full', async () => {
    const full = logText(120_000);
    const loaded = oneCall('toolu_big', full);
    const dir = toolResultsDir(projectsDir, PROJECT, SESSION);
    const plan = planMicro(
      buildMessages(loaded, () => []),
      loaded,
      { now: 0, toolResultsDir: dir },
    );
    expect(plan.persist).toHaveLength(1);
    const paths = await persistToolResults(projectsDir, PROJECT, SESSION, plan.persist);
    expect(paths).toEqual([join(dir, 'toolu_big.txt')]);
    expect(plan.actions[0]?.path).toBe(paths[0]);
    expect(readFileSync(join(dir, 'toolu_big.txt'), 'utf8')).toBe(full);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'toolu_big.txt')).mode & 0o777).toBe(0o600);
    // Same content again: the file is left alone.
    const before = statSync(join(dir, 'toolu_big.txt'));
    expect(await persistToolResults(projectsDir, PROJECT, SESSION, plan.persist)).toEqual(paths);
    const after = statSync(join(dir, 'toolu_big.txt'));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(readdirSync(dir)).toEqual(['toolu_big.txt']);
    const result = await readToolResult(projectsDir, PROJECT, SESSION, 'toolu_big', { loaded });
    expect(result).toMatchObject({
      toolUseId: 'toolu_big',
      tool: 'Bash',
      content: full,
      chars: 120_000,
      isError: false,
      source: 'persisted',
      path: paths[0],
    });
  });

  it('replaces a file whose content differs, and keeps block arrays as blocks', async () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'first' },
      { type: 'text', text: 'second' },
    ];
    const item = { toolUseId: 'toolu_blocks', ext: 'json' as const, text: JSON.stringify(blocks, null, 2) };
    const dir = toolResultsDir(projectsDir, PROJECT, SESSION);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'toolu_blocks.json'), 'stale');
    await persistToolResults(projectsDir, PROJECT, SESSION, [item]);
    expect(readFileSync(join(dir, 'toolu_blocks.json'), 'utf8')).toBe(item.text);
    const result = await readToolResult(projectsDir, PROJECT, SESSION, 'toolu_blocks', {
      loaded: oneCall('toolu_blocks', 'preview only'),
    });
    expect(result).toMatchObject({ content: blocks, chars: 11, source: 'persisted' });
  });

  it('refuses ids and sessions that would write outside the tool-results dir', async () => {
    const bad = await rejection(
      persistToolResults(projectsDir, PROJECT, SESSION, [{ toolUseId: '../../escape', ext: 'txt', text: 'x' }]),
    );
    expect(bad.code).toBe(ErrorCode.PathRejected);
    const outside = await rejection(
      persistToolResults(projectsDir, '..', '..', [{ toolUseId: 'toolu_x', ext: 'txt', text: 'x' }]),
    );
    expect(outside.code).toBe(ErrorCode.PathRejected);
    expect(readdirSync(root)).toEqual(['projects']);
  });

  it('does not follow a persistedOutputPath that leaves the projects dir', async () => {
    writeFileSync(join(root, 'secret.txt'), 'secret');
    const escapes = [
      `/home/user/.claude/projects/../secret.txt`,
      join(root, 'secret.txt'),
      `/home/user/.claude/projects/${PROJECT}/${SESSION}/tool-results/../../../../secret.txt`,
    ];
    for (const path of escapes) {
      const result = await readToolResult(projectsDir, PROJECT, SESSION, 'toolu_esc', {
        loaded: oneCall('toolu_esc', 'inline preview', { persistedOutputPath: path }),
      });
      expect(result).toMatchObject({ content: 'inline preview', source: 'transcript' });
    }
    // Nor a symlink inside it that points out.
    const dir = toolResultsDir(projectsDir, PROJECT, SESSION);
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(root, 'secret.txt'), join(dir, 'link.txt'));
    const linked = await readToolResult(projectsDir, PROJECT, SESSION, 'toolu_esc', {
      loaded: oneCall('toolu_esc', 'inline preview', {
        persistedOutputPath: `/home/user/.claude/projects/${PROJECT}/${SESSION}/tool-results/link.txt`,
      }),
    });
    expect(linked.source).toBe('transcript');
  });

  it('falls back to the transcript when the persisted file is missing', async () => {
    const loaded = oneCall(
      'toolu_gone',
      '<persisted-output>\nOutput too large (1KB). Full output saved to: /home/user/.claude/projects/p/s/tool-results/gone.txt\n\n</persisted-output>',
    );
    const result = await readToolResult(projectsDir, PROJECT, SESSION, 'toolu_gone', { loaded });
    expect(result.source).toBe('transcript');
  });
});
