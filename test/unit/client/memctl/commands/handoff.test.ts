import { describe, expect, it } from 'vitest';
import type { Client } from '../../../../../client/index.js';
import { handoff } from '../../../../../client/memctl/commands/handoff.js';
import type { CommandContext } from '../../../../../client/memctl/context.js';
import { plainOutput } from '../../../../../client/memctl/output.js';
import type { HandoffResult } from '../../../../../shared/protocol/handoff.js';

/** The issue 32 case: cart.js read with `cat`, cart.js and package.json uncommitted before the session. */
const RESULT: HandoffResult = {
  sessionId: 's1',
  cwd: '/w',
  path: '/w/docs/handoff-context.md',
  partial: false,
  summarizer: 'offline',
  generatedAt: '2026-12-05T16:00:00Z',
  pinned: '',
  facts: {
    git: { branch: 'main', porcelain: ['?? cart.js', '?? package.json'], diffStat: null },
    filesTouched: [{ path: 'cart.js', status: 'read', summary: 'Bash read; git `??`, not changed by this session' }],
    commands: [{ command: 'cat cart.js', exitCode: 0, isError: false }],
    failing: [],
    todos: [],
    constraints: ['Never touch package.json.'],
    ruledOut: [],
  },
  written: true,
  gitignoreUpdated: false,
  skipped: [],
  text: '',
};

describe('memctl handoff', () => {
  it("counts the files changed in this session apart from git's uncommitted paths", async () => {
    const printed: string[] = [];
    const client = { handoffGenerate: async () => RESULT, close: () => {} } as unknown as Client;
    const ctx: CommandContext = {
      args: ['s1', '--cwd', '/w'],
      json: false,
      autostart: false,
      out: plainOutput({ out: (text) => printed.push(text) }),
      env: {},
      client: () => client,
    };
    expect(await handoff(ctx)).toBe(0);
    expect(printed).toContain('  files     1 touched, 0 changed in this session; git status: 2 paths');
  });
});
