import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, UnsafeDirError } from '../../../../daemon/lifecycle/dirs.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-dirs-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function refusal(dir: string): UnsafeDirError {
  try {
    ensurePrivateDir(dir, 'state');
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeDirError);
    return error as UnsafeDirError;
  }
  throw new Error(`expected ${dir} to be refused`);
}

describe('ensurePrivateDir', () => {
  it('creates a missing dir, and its missing parents, 0700', () => {
    const dir = join(root, 'a', 'b', 'memd');
    ensurePrivateDir(dir, 'state');
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('accepts an existing private dir', () => {
    const dir = join(root, 'ok');
    mkdirSync(dir, { mode: 0o700 });
    expect(() => ensurePrivateDir(dir, 'state')).not.toThrow();
  });

  it.each([[0o755], [0o750], [0o701], [0o777]])('refuses an existing dir of mode %o and says how to fix it', (mode) => {
    const dir = join(root, 'open');
    mkdirSync(dir);
    chmodSync(dir, mode);
    const error = refusal(dir);
    expect(error.message).toContain(`chmod 700 ${dir}`);
    expect(error.message).toContain(`mode 0${mode.toString(8)}`);
    // It reports; it does not change the user's dir behind their back.
    expect(statSync(dir).mode & 0o777).toBe(mode);
  });

  it('refuses a symlink, even to a private dir', () => {
    const target = join(root, 'target');
    mkdirSync(target, { mode: 0o700 });
    const link = join(root, 'link');
    symlinkSync(target, link);
    expect(refusal(link).message).toContain('is not a plain directory');
  });

  it('refuses a dangling symlink', () => {
    const link = join(root, 'dangling');
    symlinkSync(join(root, 'nowhere'), link);
    expect(refusal(link).message).toContain(link);
  });

  it('refuses a file', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(refusal(file).message).toContain(file);
  });

  it('names what the dir is for', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    try {
      ensurePrivateDir(file, 'runtime');
    } catch (error) {
      expect((error as Error).message).toContain('runtime dir');
      return;
    }
    throw new Error('expected a refusal');
  });
});
