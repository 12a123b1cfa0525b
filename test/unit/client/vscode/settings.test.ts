/** memd.* settings: the manifest's defaults, and values of the wrong type falling back with a reason. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, readSettings, SETTING_KEYS } from '../../../../client/vscode/src/settings.js';

const manifest = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../../../client/vscode/package.json'), 'utf8'),
) as {
  contributes: {
    configuration: {
      properties: Record<
        string,
        { default: unknown; scope?: string; minimum?: number; maximum?: number; enum?: string[] }
      >;
    };
  };
};
const properties = manifest.contributes.configuration.properties;

describe('readSettings', () => {
  it('gives the defaults when nothing is set', () => {
    expect(readSettings(() => undefined)).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
  });

  it('reads valid values', () => {
    const values: Record<string, unknown> = {
      autostart: true,
      startCommand: ['/opt/memd/bin/memctl', 'start'],
      socketPath: ' /run/me/memd.sock ',
      notifications: 'all',
      statusBarColumns: 120,
      pageSize: 10,
    };
    expect(readSettings((key) => values[key])).toEqual({
      settings: {
        autostart: true,
        startCommand: ['/opt/memd/bin/memctl', 'start'],
        socketPath: '/run/me/memd.sock',
        notifications: 'all',
        statusBarColumns: 120,
        pageSize: 10,
      },
      problems: [],
    });
  });

  it('falls back to the default for a value of the wrong type, and says so', () => {
    const values: Record<string, unknown> = {
      autostart: 'yes',
      startCommand: [],
      socketPath: 'relative/memd.sock',
      notifications: 'loud',
      statusBarColumns: 5,
      pageSize: 2.5,
    };
    const { settings, problems } = readSettings((key) => values[key]);
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(problems).toEqual([
      'memd.autostart: "yes" is not a valid value; using false',
      'memd.startCommand: [] is not a valid value; using ["memctl","start"]',
      'memd.socketPath: "relative/memd.sock" is not a valid value; using ""',
      'memd.notifications: "loud" is not a valid value; using "workspace"',
      'memd.statusBarColumns: 5 is not a valid value; using 82',
      'memd.pageSize: 2.5 is not a valid value; using 50',
    ]);
  });
});

describe('the manifest', () => {
  it('declares exactly these settings, with the same defaults', () => {
    expect(Object.keys(properties).sort()).toEqual(SETTING_KEYS.map((key) => `memd.${key}`).sort());
    for (const key of SETTING_KEYS) {
      const expected = key === 'socketPath' ? '' : DEFAULT_SETTINGS[key];
      expect(properties[`memd.${key}`]?.default, key).toEqual(expected);
    }
    expect(properties['memd.notifications']?.enum).toEqual(['workspace', 'all', 'off']);
  });

  it('lets only the user (not a workspace) choose what runs and which socket is trusted', () => {
    // A folder's .vscode/settings.json must not make the editor run its command or talk to its socket.
    for (const key of ['autostart', 'startCommand', 'socketPath'])
      expect(properties[`memd.${key}`]?.scope, key).toBe('machine');
  });
});
