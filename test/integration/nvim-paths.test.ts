/**
 * The Neovim plugin finds memd's socket where memd puts it: for each environment, the path
 * config.lua resolves in a real headless Neovim equals shared/paths.ts's (DESIGN.md §2), and
 * setup({ socket }) overrides both.
 */
import { describe, expect, it } from 'vitest';
import { resolvePaths } from '../../shared/paths.js';
import { NVIM_PATH, NVIM_SKIP_REASON, startNvim } from '../helpers/nvim.js';

const HOME = '/home/someone';

/** Each environment on top of HOME alone (nothing of the test runner's XDG or MEMD variables). */
const ENVIRONMENTS: Record<string, string>[] = [
  {},
  { XDG_RUNTIME_DIR: '/run/user/1000' },
  { XDG_RUNTIME_DIR: '/run/user/1000/' },
  { XDG_RUNTIME_DIR: '/run/user/../user/1000' },
  { XDG_RUNTIME_DIR: '' },
  { XDG_STATE_HOME: '/var/state' },
  { MEMD_STATE_DIR: '/srv/memd-state' },
  { MEMD_STATE_DIR: '/srv/memd-state', XDG_STATE_HOME: '/var/state' },
  { MEMD_STATE_DIR: 'relative/state' },
  { MEMD_SOCKET: '/tmp/elsewhere/memd.sock', XDG_RUNTIME_DIR: '/run/user/1000' },
  { MEMD_SOCKET: 'relative.sock' },
  { MEMD_SOCKET: '', XDG_RUNTIME_DIR: '/run/user/1000' },
];

async function pluginSocket(env: Record<string, string>, setup = 'nil'): Promise<[string, string]> {
  const nvim = startNvim({ cwd: process.cwd(), env: { PATH: process.env.PATH, HOME, ...env } });
  const result = await nvim.lua<[string, string]>(
    `require('memd.config').set(${setup}) return { require('memd.config').socket_path() }`,
  );
  await nvim.close();
  return result;
}

describe(
  NVIM_PATH ? 'the Neovim plugin’s socket path' : `the Neovim plugin’s socket path (${NVIM_SKIP_REASON})`,
  () => {
    it.skipIf(!NVIM_PATH)('is the one memd resolves from the same environment', async () => {
      for (const env of ENVIRONMENTS) {
        const [path] = await pluginSocket(env);
        expect(path, JSON.stringify(env)).toBe(resolvePaths(env, HOME).socketPath);
      }
    });

    it.skipIf(!NVIM_PATH)('says where it came from, and setup({ socket }) wins', async () => {
      expect(await pluginSocket({ MEMD_SOCKET: '/a/memd.sock' })).toEqual(['/a/memd.sock', '$MEMD_SOCKET']);
      expect(await pluginSocket({ XDG_RUNTIME_DIR: '/run/user/7' })).toEqual([
        '/run/user/7/memd/memd.sock',
        '$XDG_RUNTIME_DIR',
      ]);
      expect(await pluginSocket({})).toEqual([`${HOME}/.local/state/memd/memd.sock`, 'the state dir']);
      expect(await pluginSocket({ MEMD_SOCKET: '/a/memd.sock' }, "{ socket = '/b/other.sock' }")).toEqual([
        '/b/other.sock',
        'setup({ socket })',
      ]);
    });
  },
);
