import { describe, expect, it } from 'vitest';
import {
  checkSocketPath,
  MAX_SOCKET_PATH_BYTES,
  projectDirNameOf,
  projectPathOf,
  resolvePaths,
  sanitizeProjectDirName,
} from '../../../shared/paths.js';

const HOME = '/home/alice';

describe('resolvePaths', () => {
  it('uses the XDG defaults under home when nothing is set', () => {
    const paths = resolvePaths({}, HOME);
    expect(paths).toEqual({
      claudeRoot: '/home/alice/.claude',
      projectsDir: '/home/alice/.claude/projects',
      // No XDG_RUNTIME_DIR: the socket lives in the state dir.
      runtimeDir: '/home/alice/.local/state/memd',
      socketPath: '/home/alice/.local/state/memd/memd.sock',
      stateDir: '/home/alice/.local/state/memd',
      dbPath: '/home/alice/.local/state/memd/memd.sqlite',
      logPath: '/home/alice/.local/state/memd/memd.log',
      lockPath: '/home/alice/.local/state/memd/memd.lock',
      configPath: '/home/alice/.config/memd/config.json',
      systemdUserDir: '/home/alice/.config/systemd/user',
    });
  });

  it('follows the XDG variables', () => {
    const paths = resolvePaths(
      { XDG_RUNTIME_DIR: '/run/user/1000', XDG_STATE_HOME: '/xs', XDG_CONFIG_HOME: '/xc', CLAUDE_CONFIG_DIR: '/cc' },
      HOME,
    );
    expect(paths.runtimeDir).toBe('/run/user/1000/memd');
    expect(paths.socketPath).toBe('/run/user/1000/memd/memd.sock');
    expect(paths.stateDir).toBe('/xs/memd');
    expect(paths.dbPath).toBe('/xs/memd/memd.sqlite');
    expect(paths.configPath).toBe('/xc/memd/config.json');
    expect(paths.systemdUserDir).toBe('/xc/systemd/user');
    expect(paths.claudeRoot).toBe('/cc');
    expect(paths.projectsDir).toBe('/cc/projects');
  });

  it('lets the MEMD_* overrides win over the XDG variables', () => {
    const paths = resolvePaths(
      {
        XDG_RUNTIME_DIR: '/run/user/1000',
        XDG_STATE_HOME: '/xs',
        XDG_CONFIG_HOME: '/xc',
        CLAUDE_CONFIG_DIR: '/cc',
        MEMD_STATE_DIR: '/ms',
        MEMD_CONFIG: '/mc/settings.json',
        MEMD_PROJECTS_DIR: '/mp',
        MEMD_SOCKET: '/sock/dir/m.sock',
      },
      HOME,
    );
    expect(paths.stateDir).toBe('/ms');
    expect(paths.lockPath).toBe('/ms/memd.lock');
    expect(paths.logPath).toBe('/ms/memd.log');
    expect(paths.configPath).toBe('/mc/settings.json');
    expect(paths.projectsDir).toBe('/mp');
    expect(paths.claudeRoot).toBe('/cc');
    expect(paths.socketPath).toBe('/sock/dir/m.sock');
    // The explicit socket decides which dir must be private, not XDG_RUNTIME_DIR.
    expect(paths.runtimeDir).toBe('/sock/dir');
  });

  it('puts the socket in MEMD_STATE_DIR when XDG_RUNTIME_DIR is unset', () => {
    const paths = resolvePaths({ MEMD_STATE_DIR: '/ms' }, HOME);
    expect(paths.socketPath).toBe('/ms/memd.sock');
    expect(paths.runtimeDir).toBe('/ms');
  });

  it('treats empty variables as unset', () => {
    const paths = resolvePaths(
      { XDG_RUNTIME_DIR: '', MEMD_SOCKET: '', MEMD_STATE_DIR: '', CLAUDE_CONFIG_DIR: '' },
      HOME,
    );
    expect(paths).toEqual(resolvePaths({}, HOME));
  });

  it('returns absolute paths for relative overrides', () => {
    const paths = resolvePaths({ MEMD_SOCKET: 'rel/m.sock', MEMD_STATE_DIR: 'state' }, HOME);
    expect(paths.socketPath).toBe(`${process.cwd()}/rel/m.sock`);
    expect(paths.runtimeDir).toBe(`${process.cwd()}/rel`);
    expect(paths.stateDir).toBe(`${process.cwd()}/state`);
  });
});

describe('checkSocketPath', () => {
  it('accepts a path of exactly the limit', () => {
    const path = `/${'a'.repeat(MAX_SOCKET_PATH_BYTES - 1)}`;
    expect(Buffer.byteLength(path)).toBe(107);
    expect(checkSocketPath(path)).toBeUndefined();
  });

  it('refuses one byte more, naming the size, the limit and the way out', () => {
    const path = `/${'a'.repeat(MAX_SOCKET_PATH_BYTES)}`;
    const reason = checkSocketPath(path);
    expect(reason).toContain('108 bytes');
    expect(reason).toContain('107-byte limit');
    expect(reason).toContain(path);
    expect(reason).toContain('MEMD_SOCKET');
  });

  it('counts multibyte characters in bytes, not characters', () => {
    // 'é' is 2 bytes in UTF-8: 60 characters, 1 + 59 * 2 = 119 bytes.
    const path = `/${'é'.repeat(59)}`;
    expect(path.length).toBeLessThan(MAX_SOCKET_PATH_BYTES);
    expect(checkSocketPath(path)).toContain('119 bytes');
    // 53 two-byte characters plus '/' is exactly 107 bytes.
    expect(checkSocketPath(`/${'é'.repeat(53)}`)).toBeUndefined();
    expect(checkSocketPath(`/${'é'.repeat(53)}x`)).toContain('108 bytes');
  });
});

describe('sanitizeProjectDirName', () => {
  it('replaces every character outside [a-zA-Z0-9] with a dash, as Claude Code does', () => {
    expect(sanitizeProjectDirName('/home/user/my-project')).toBe('-home-user-my-project');
    expect(sanitizeProjectDirName('/srv/My_App.v2')).toBe('-srv-My-App-v2');
    expect(sanitizeProjectDirName('/tmp/ünï cödé')).toBe('-tmp--n--c-d-');
  });

  it('keeps a name of exactly 200 characters as it is', () => {
    const cwd = `/${'a'.repeat(199)}`;
    expect(sanitizeProjectDirName(cwd)).toBe(`-${'a'.repeat(199)}`);
  });

  it('cuts a longer name to 200 characters plus a dash and a base-36 hash', () => {
    const cwd = `/${'b'.repeat(300)}`;
    const name = sanitizeProjectDirName(cwd);
    expect(name.slice(0, 200)).toBe(`-${'b'.repeat(199)}`);
    expect(name).toMatch(/^-b{199}-[0-9a-z]+$/);
    expect(name.length).toBeGreaterThan(201);
  });

  it('gives a stable name, different for paths that share the first 200 characters', () => {
    const prefix = `/${'c'.repeat(250)}`;
    const first = sanitizeProjectDirName(`${prefix}/one`);
    expect(sanitizeProjectDirName(`${prefix}/one`)).toBe(first);
    const second = sanitizeProjectDirName(`${prefix}/two`);
    expect(second).not.toBe(first);
    expect(second.slice(0, 200)).toBe(first.slice(0, 200));
  });
});

describe('projectPathOf (issue 28: one name per project)', () => {
  it('is the cwd Claude Code named the folder after', () => {
    expect(projectPathOf('-home-u-shop', '/home/u/shop')).toBe('/home/u/shop');
  });
  it('is the root a session moved below, not the subfolder', () => {
    expect(projectPathOf('-home-u-shop', '/home/u/shop/src/api')).toBe('/home/u/shop');
    const long = `/home/u/${'deep/'.repeat(60)}repo`;
    expect(projectPathOf(sanitizeProjectDirName(long), `${long}/src`)).toBe(long);
  });
  it('is the cwd where the folder was named after another path (copied, renamed)', () => {
    expect(projectPathOf('-home-u-shop', '/srv/invoice-service')).toBe('/srv/invoice-service');
    expect(projectPathOf('-home-u-shop', 'relative/dir')).toBe('relative/dir');
  });
  it('is null without a cwd', () => {
    expect(projectPathOf('-home-u-shop', null)).toBeNull();
    expect(projectPathOf('-home-u-shop', '')).toBeNull();
  });
});

describe('projectDirNameOf', () => {
  it('is the sanitized cwd without CLAUDE_CODE_PROJECT_DIR_NAME (or with it empty)', () => {
    expect(projectDirNameOf('/home/u/shop', {})).toBe('-home-u-shop');
    expect(projectDirNameOf('/home/u/shop', { CLAUDE_CODE_PROJECT_DIR_NAME: '' })).toBe('-home-u-shop');
  });

  it('is the folder CLAUDE_CODE_PROJECT_DIR_NAME renames it to', () => {
    expect(projectDirNameOf('/home/u/shop', { CLAUDE_CODE_PROJECT_DIR_NAME: 'shop-main' })).toBe('shop-main');
  });

  it('passes over a value that is not one folder name', () => {
    for (const bad of ['a/b', '..', '.', 'x\0y']) {
      expect(projectDirNameOf('/home/u/shop', { CLAUDE_CODE_PROJECT_DIR_NAME: bad })).toBe('-home-u-shop');
    }
  });
});
