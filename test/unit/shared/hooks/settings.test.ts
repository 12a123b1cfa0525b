import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLAUDE_CODE_VERSION,
  formatSettings,
  HookSettingsError,
  installHooks,
  MEMD_HOOKS,
  memdHookCommands,
  memdHookName,
  memdHookStates,
  memdHooksFor,
  shellQuote,
  uninstallHooks,
} from '../../../../shared/hooks/settings.js';
import { FIXTURES } from '../../../helpers/ingest.js';

const COMMANDS = memdHookCommands('/opt/node/bin/node', '/opt/memd/dist/client/memctl/main.js');
const OLD_COMMANDS = memdHookCommands('/usr/bin/node', '/home/user/old-checkout/dist/client/memctl/main.js');
const FIXTURE_TEXT = readFileSync(join(FIXTURES, 'compactions', 'settings.json'), 'utf8');

type Hook = { type: string; command: string; timeout: number };
type Entry = { matcher?: string; hooks: Hook[] };
type Settings = { hooks: Record<string, Entry[]> } & Record<string, unknown>;

function fixture(): Settings {
  return JSON.parse(FIXTURE_TEXT) as Settings;
}

function hooksOf(settings: unknown): Record<string, Entry[]> {
  return (settings as Settings).hooks;
}

function memdEntries(settings: unknown, event: string): Entry[] {
  return (hooksOf(settings)[event] ?? []).filter((entry) =>
    entry.hooks.some((hook) => memdHookName(hook.command) !== undefined),
  );
}

describe('memd hook commands', () => {
  it('quote both paths so that a POSIX shell gives them back unchanged', () => {
    const node = '/opt/my node/bin/node';
    const main = "/home/o'brien/$HOME/`x`/dist/client/memctl/main.js";
    const command = memdHookCommands(node, main)['session-start'];
    expect(command).toBe(
      `'/opt/my node/bin/node' '/home/o'\\''brien/$HOME/\`x\`/dist/client/memctl/main.js' hook session-start`,
    );
    const argv = execFileSync('sh', ['-c', `printf '%s\\n' ${command}`], { encoding: 'utf8' });
    expect(argv).toBe(`${node}\n${main}\nhook\nsession-start\n`);
    expect(shellQuote('')).toBe("''");
  });

  it.each([
    ['memctl hook pre-compact', 'pre-compact'],
    ['/usr/local/bin/memctl hook session-start', 'session-start'],
    ["'/usr/bin/node' '/a'\\''b/dist/client/memctl/main.js' hook post-compact", 'post-compact'],
    ['node "$HOME/memd/dist/client/memctl/main.js" hook pre-compact  ', 'pre-compact'],
    ['npx tsx client/memctl/main.ts hook session-start', 'session-start'],
    ["'/usr/bin/node' '/opt/memd/dist/client/memctl/main.js' hook turn-start", 'turn-start'],
    ['memctl hook turn-end', 'turn-end'],
    // What install-hooks registers since issue 29: the shim outside dist/.
    ["'/usr/bin/node' '/opt/memd/bin/memctl.cjs' hook session-start", 'session-start'],
  ])('recognize %j as memd hook %s', (command, name) => {
    expect(memdHookName(command)).toBe(name);
  });

  it.each([
    'node "$HOME/.claude/hooks/hook-log.mjs"',
    'mymemctl hook pre-compact',
    'memctl hook pre-compact --verbose',
    'memctl hook stop',
    'memctl status',
    "'/usr/bin/node' '/opt/memd/bin/memctl.cjsx' hook pre-compact",
  ])('do not take %j for one of memd', (command) => {
    expect(memdHookName(command)).toBeUndefined();
  });

  it('are not recognized in a non-string command', () => {
    expect(memdHookName(42)).toBeUndefined();
    expect(memdHookName(undefined)).toBeUndefined();
  });
});

describe('installHooks', () => {
  it('adds its hooks (compaction and the turn) to empty settings', () => {
    const result = installHooks({}, COMMANDS);
    expect(result.changed).toBe(true);
    expect(result.settings).toEqual({
      hooks: {
        PreCompact: [{ matcher: '', hooks: [{ type: 'command', command: COMMANDS['pre-compact'], timeout: 60 }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: COMMANDS['session-start'], timeout: 15 }] }],
        PostCompact: [{ hooks: [{ type: 'command', command: COMMANDS['post-compact'], timeout: 15 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: COMMANDS['turn-start'], timeout: 5 }] }],
        Stop: [{ hooks: [{ type: 'command', command: COMMANDS['turn-end'], timeout: 5 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: COMMANDS['turn-end'], timeout: 5 }] }],
        StopFailure: [{ hooks: [{ type: 'command', command: COMMANDS['turn-failed'], timeout: 5 }] }],
        InstructionsLoaded: [{ hooks: [{ type: 'command', command: COMMANDS['instructions-loaded'], timeout: 5 }] }],
        // Issue 33: a failed call's note from past sessions.
        PostToolUseFailure: [{ hooks: [{ type: 'command', command: COMMANDS['tool-failed'], timeout: 5 }] }],
      },
    });
    expect(result.actions).toEqual(MEMD_HOOKS.map((spec) => `added ${spec.event} hook: ${COMMANDS[spec.name]}`));
  });

  it('keeps every hook already there, byte for byte, and appends its own after them', () => {
    const before = fixture();
    const after = installHooks(before, COMMANDS).settings;
    expect(before).toEqual(fixture());
    // The events the file had keep their place; memd's new ones (StopFailure, InstructionsLoaded) come after.
    expect(Object.keys(hooksOf(after)).slice(0, Object.keys(before.hooks).length)).toEqual(Object.keys(before.hooks));
    for (const [event, entries] of Object.entries(before.hooks)) {
      expect(JSON.stringify(hooksOf(after)[event]?.slice(0, entries.length))).toBe(JSON.stringify(entries));
      const added = MEMD_HOOKS.some((spec) => spec.event === event) ? 1 : 0;
      expect(hooksOf(after)[event]).toHaveLength(entries.length + added);
    }
  });

  it('changes nothing when installed twice', () => {
    const once = installHooks(fixture(), COMMANDS);
    const twice = installHooks(once.settings, COMMANDS);
    expect(twice.changed).toBe(false);
    expect(twice.actions).toEqual([]);
    expect(formatSettings(twice.settings)).toBe(formatSettings(once.settings));
  });

  it('keeps the other top-level keys and their order', () => {
    const settings = { model: 'opus', env: { A: '1' }, permissions: { allow: ['Bash(ls)'] } };
    const after = installHooks(settings, COMMANDS).settings;
    expect(Object.keys(after)).toEqual(['model', 'env', 'permissions', 'hooks']);
    const withHooksFirst = installHooks({ hooks: {}, model: 'opus' }, COMMANDS).settings;
    expect(Object.keys(withHooksFirst)).toEqual(['hooks', 'model']);
  });

  it('updates an install from another checkout in place instead of adding a second one', () => {
    const old = installHooks(fixture(), OLD_COMMANDS).settings;
    const oldText = formatSettings(old);
    const result = installHooks(old, COMMANDS);
    expect(result.actions).toEqual(
      MEMD_HOOKS.map((spec) => `updated ${spec.event} hook (command): ${COMMANDS[spec.name]}`),
    );
    expect(formatSettings(result.settings)).toBe(
      oldText.replaceAll('/usr/bin/node', '/opt/node/bin/node').replaceAll('/home/user/old-checkout', '/opt/memd'),
    );
    for (const spec of MEMD_HOOKS) expect(memdEntries(result.settings, spec.event)).toHaveLength(1);
  });

  it('updates the timeout and keeps keys it does not know in our hook', () => {
    const settings = {
      hooks: {
        PreCompact: [
          {
            matcher: '',
            hooks: [{ type: 'command', command: COMMANDS['pre-compact'], timeout: 5, statusMessage: 'saving' }],
          },
        ],
      },
    };
    const result = installHooks(settings, COMMANDS);
    expect(result.actions[0]).toBe(`updated PreCompact hook (timeout): ${COMMANDS['pre-compact']}`);
    expect(hooksOf(result.settings).PreCompact?.[0]?.hooks[0]).toEqual({
      type: 'command',
      command: COMMANDS['pre-compact'],
      timeout: 60,
      statusMessage: 'saving',
    });
  });

  it('treats a missing matcher and "" alike (both mean every trigger)', () => {
    const settings = {
      hooks: {
        PreCompact: [{ hooks: [{ type: 'command', command: COMMANDS['pre-compact'], timeout: 60 }] }],
        SessionStart: [{ matcher: '', hooks: [{ type: 'command', command: COMMANDS['session-start'], timeout: 15 }] }],
      },
    };
    const actions = installHooks(settings, COMMANDS).actions;
    expect(actions.filter((action) => action.includes('PreCompact') || action.includes('SessionStart'))).toEqual([]);
  });

  it('removes duplicates of its own hook', () => {
    const settings = installHooks({}, OLD_COMMANDS).settings;
    hooksOf(settings).PostCompact?.push({
      hooks: [{ type: 'command', command: 'memctl hook post-compact', timeout: 15 }],
    });
    const result = installHooks(settings, COMMANDS);
    expect(result.actions).toContain('removed duplicate PostCompact hook: memctl hook post-compact');
    expect(hooksOf(result.settings).PostCompact).toEqual([
      { hooks: [{ type: 'command', command: COMMANDS['post-compact'], timeout: 15 }] },
    ]);
  });

  it('moves its hook out of an entry whose matcher it shares with someone else', () => {
    const other = { type: 'command', command: 'echo started', timeout: 5 };
    const settings = {
      hooks: {
        SessionStart: [
          {
            matcher: 'startup',
            hooks: [other, { type: 'command', command: OLD_COMMANDS['session-start'], timeout: 15 }],
          },
        ],
      },
    };
    const result = installHooks(settings, COMMANDS);
    expect(hooksOf(result.settings).SessionStart).toEqual([
      { matcher: 'startup', hooks: [other] },
      { hooks: [{ type: 'command', command: COMMANDS['session-start'], timeout: 15 }] },
    ]);
    expect(result.actions).toContain(`updated SessionStart hook (command, matcher): ${COMMANDS['session-start']}`);
  });

  it('fixes the matcher in place when the entry is its own', () => {
    const settings = {
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: COMMANDS['session-start'], timeout: 15 }] },
        ],
      },
    };
    const result = installHooks(settings, COMMANDS);
    expect(hooksOf(result.settings).SessionStart).toEqual([
      { hooks: [{ type: 'command', command: COMMANDS['session-start'], timeout: 15 }] },
    ]);
    const manualOnly = {
      hooks: {
        PreCompact: [
          { matcher: 'manual', hooks: [{ type: 'command', command: COMMANDS['pre-compact'], timeout: 60 }] },
        ],
      },
    };
    expect(hooksOf(installHooks(manualOnly, COMMANDS).settings).PreCompact).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: COMMANDS['pre-compact'], timeout: 60 }] },
    ]);
  });

  it.each<[string, unknown, string]>([
    ['an array', [], 'the top level is an array; expected an object'],
    ['null', null, 'the top level is null; expected an object'],
    ['a string', 'x', 'the top level is a string; expected an object'],
    ['hooks that are an array', { hooks: [] }, 'hooks is an array; expected an object'],
    ['an event that is an object', { hooks: { PreCompact: {} } }, 'hooks.PreCompact is an object; expected an array'],
    [
      'an entry that is a string',
      { hooks: { SessionStart: [{ hooks: [] }, 'x'] } },
      'hooks.SessionStart[1] is a string; expected an object',
    ],
    [
      'an entry without hooks',
      { hooks: { PostCompact: [{ matcher: '' }] } },
      'hooks.PostCompact[0].hooks is missing; expected an array',
    ],
    [
      'a hook that is null',
      { hooks: { PreCompact: [{ hooks: [null] }] } },
      'hooks.PreCompact[0].hooks[0] is null; expected an object',
    ],
  ])('refuses settings with %s, naming the key', (_label, settings, message) => {
    for (const merge of [() => installHooks(settings, COMMANDS), () => uninstallHooks(settings)]) {
      let thrown: unknown;
      try {
        merge();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(HookSettingsError);
      expect((thrown as Error).message).toBe(message);
    }
  });

  it('leaves events it does not touch alone, whatever their shape', () => {
    const result = installHooks({ hooks: { Notification: 'not mine to judge' } }, COMMANDS);
    expect(hooksOf(result.settings).Notification).toBe('not mine to judge');
  });
});

describe('uninstallHooks', () => {
  it('gives back the file it was installed into, byte for byte', () => {
    const installed = installHooks(fixture(), COMMANDS).settings;
    const result = uninstallHooks(installed);
    expect(result.actions).toEqual(MEMD_HOOKS.map((spec) => `removed ${spec.event} hook: ${COMMANDS[spec.name]}`));
    expect(formatSettings(result.settings)).toBe(FIXTURE_TEXT);
  });

  it('removes only its own hook from a shared entry', () => {
    const other = { type: 'command', command: 'echo compacting', timeout: 5 };
    const settings = {
      hooks: {
        PreCompact: [
          { matcher: '', hooks: [other, { type: 'command', command: OLD_COMMANDS['pre-compact'], timeout: 60 }] },
        ],
      },
    };
    expect(uninstallHooks(settings).settings).toEqual({ hooks: { PreCompact: [{ matcher: '', hooks: [other] }] } });
  });

  it('drops `hooks` when it empties it, but keeps what was empty before', () => {
    expect(uninstallHooks({ model: 'opus', ...installHooks({}, COMMANDS).settings }).settings).toEqual({
      model: 'opus',
    });
    const withEmpty = {
      hooks: {
        Stop: [],
        PreCompact: [{ hooks: [] }, ...(hooksOf(installHooks({}, COMMANDS).settings).PreCompact ?? [])],
      },
    };
    expect(uninstallHooks(withEmpty).settings).toEqual({ hooks: { Stop: [], PreCompact: [{ hooks: [] }] } });
  });

  it('changes nothing when none of its hooks are there', () => {
    for (const settings of [{}, fixture(), { hooks: {} }]) {
      const result = uninstallHooks(settings);
      expect(result.changed).toBe(false);
      expect(result.settings).toEqual(settings);
    }
  });
});

describe('memdHookStates', () => {
  it('tells missing, outdated and installed hooks apart', () => {
    const settings = installHooks({}, COMMANDS).settings;
    const hooks = hooksOf(settings);
    delete hooks.PostCompact;
    const firstHook = hooks.SessionStart?.[0]?.hooks[0];
    if (firstHook) firstHook.timeout = 1;
    expect(memdHookStates(settings, COMMANDS).map(({ spec, state }) => [spec.name, state])).toEqual([
      ['pre-compact', 'installed'],
      ['session-start', 'outdated'],
      ['post-compact', 'missing'],
      ['turn-start', 'installed'],
      ['turn-end', 'installed'],
      ['turn-end', 'installed'],
      ['turn-failed', 'installed'],
      ['instructions-loaded', 'installed'],
      ['tool-failed', 'installed'],
    ]);
    expect(hooks.SessionStart?.[0]?.hooks[0]?.timeout).toBe(1);
  });
});

describe('memdHooksFor (issue 31)', () => {
  const events = (version: string | null) => memdHooksFor(version).map((spec) => spec.event);

  it('installs for 2.1.197, and without a readable version, every event memd uses', () => {
    expect(events('2.1.197 (Claude Code)')).toEqual(MEMD_HOOKS.map((spec) => spec.event));
    expect(events(null)).toEqual(events(DEFAULT_CLAUDE_CODE_VERSION));
    expect(events('no version here')).toEqual(events(DEFAULT_CLAUDE_CODE_VERSION));
  });

  it('leaves out the events an older Claude Code does not know', () => {
    expect(events('2.1.69')).not.toContain('PostCompact');
    expect(events('2.1.69')).toContain('InstructionsLoaded');
    expect(events('2.1.77')).toContain('PostCompact');
    expect(events('2.1.77')).not.toContain('StopFailure');
    expect(events('2.0.99')).toEqual(['PreCompact', 'SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd']);
  });

  it('takes out its own hooks of events the version does not know, and no one else’s', () => {
    const all = installHooks(
      { hooks: { StopFailure: [{ hooks: [{ type: 'command', command: 'notify' }] }] } },
      COMMANDS,
    );
    const older = installHooks(all.settings, COMMANDS, memdHooksFor('2.1.70'));
    expect(older.actions).toEqual([
      `removed PostCompact hook (unknown to this Claude Code): ${COMMANDS['post-compact']}`,
      `removed StopFailure hook (unknown to this Claude Code): ${COMMANDS['turn-failed']}`,
    ]);
    expect(hooksOf(older.settings).PostCompact).toBeUndefined();
    expect(hooksOf(older.settings).StopFailure).toEqual([{ hooks: [{ type: 'command', command: 'notify' }] }]);
    expect(installHooks(older.settings, COMMANDS, memdHooksFor('2.1.70')).changed).toBe(false);
  });
});
