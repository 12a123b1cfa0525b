/** The quick path's socket: from HOME when set, else from the user's home as the OS says it (node:os, loaded then only). */
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { socketPathOf } from '../../../../../client/memctl/quick/call.js';
import { resolvePaths } from '../../../../../shared/paths.js';

describe('socketPathOf', () => {
  it('resolves the socket under HOME, or under the home directory when HOME is unset or empty', async () => {
    expect(await socketPathOf({ HOME: '/home/someone' })).toBe('/home/someone/.local/state/memd/memd.sock');
    expect(await socketPathOf({ HOME: '/home/someone', XDG_RUNTIME_DIR: '/run/user/7' })).toBe(
      '/run/user/7/memd/memd.sock',
    );
    for (const env of [{}, { HOME: '' }]) expect(await socketPathOf(env)).toBe(resolvePaths({}, homedir()).socketPath);
  });
});
