import { describe, expect, it } from 'vitest';
import type { Client } from '../../../../../client/index.js';
import { memdir } from '../../../../../client/memctl/commands/memdir.js';
import type { CommandContext } from '../../../../../client/memctl/context.js';
import { plainOutput } from '../../../../../client/memctl/output.js';
import type { MemdirConflictsResult, MemdirResolveResult } from '../../../../../shared/protocol/memdir.js';

const CONFLICTS: MemdirConflictsResult = {
  device: '0123456789abcdef',
  syncing: true,
  conflicts: [
    {
      project: '-home-user-src-app',
      scope: 'team',
      name: 'testing/flaky tests',
      path: '/p/-home-user-src-app/memory/team/testing/flaky tests.md',
      localEtag: '0123456789abcdef0123456789abcdef',
      device: 'fedcba9876543210',
      deviceName: 'laptop',
      theirEtag: null,
      theirPath: null,
      base: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      foundAt: '2026-12-06T10:00:00.000Z',
    },
  ],
};

function context(args: string[], client: Partial<Client>, printed: string[]): CommandContext {
  return {
    args,
    json: false,
    autostart: false,
    out: plainOutput({ out: (text) => printed.push(text) }),
    env: {},
    client: () => ({ ...client, close: () => {} }) as unknown as Client,
  };
}

describe('memctl memdir conflicts|resolve', () => {
  it('lists each conflict with both versions and the command that resolves it', async () => {
    const printed: string[] = [];
    const asked: unknown[] = [];
    const client = {
      memdirConflicts: async (params: unknown) => {
        asked.push(params);
        return CONFLICTS;
      },
    };
    expect(await memdir(context(['conflicts'], client as Partial<Client>, printed))).toBe(0);
    expect(asked).toEqual([{}]);
    expect(printed.join('\n')).toContain(
      'here         0123456789ab  /p/-home-user-src-app/memory/team/testing/flaky tests.md',
    );
    expect(printed.join('\n')).toContain('laptop (fedcba9876543210)');
    expect(printed.join('\n')).toContain('deleted  (deleted there)');
    expect(printed.at(-1)).toBe(
      "  memctl memdir resolve -home-user-src-app 'testing/flaky tests' --team --keep local|theirs --device fedcba9876543210",
    );
  });

  it('resolves with the keep and device given, and refuses a resolve without --keep', async () => {
    const printed: string[] = [];
    const asked: unknown[] = [];
    const answer: MemdirResolveResult = {
      project: '-p',
      scope: 'team',
      name: 'x',
      device: 'fedcba9876543210',
      kept: 'theirs',
      etag: null,
      remaining: 0,
    };
    const client = {
      memdirResolve: async (params: unknown) => {
        asked.push(params);
        return answer;
      },
    };
    const args = ['resolve', '-p', 'x', '--team', '--keep', 'theirs', '--device', 'fedcba9876543210'];
    expect(await memdir(context(args, client as Partial<Client>, printed))).toBe(0);
    expect(asked).toEqual([{ project: '-p', scope: 'team', name: 'x', keep: 'theirs', device: 'fedcba9876543210' }]);
    expect(printed).toEqual(['kept the version of fedcba9876543210 of x (deleted)']);
    await expect(memdir(context(['resolve', '-p', 'x'], client as Partial<Client>, printed))).rejects.toThrow(
      'memdir resolve needs --keep local|theirs',
    );
  });
});
