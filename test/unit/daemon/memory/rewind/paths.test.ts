/** The path checks rewind makes before it touches the disk. */
import { describe, expect, it } from 'vitest';
import { backupPath, isPlainName, trackedPath } from '../../../../../daemon/memory/rewind/paths.js';
import { newUndoId, undoDir } from '../../../../../daemon/memory/rewind/undo-store.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';

function rejection(run: () => unknown): number | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof RpcError) return error.code;
    throw error;
  }
}

describe('isPlainName', () => {
  it('takes the names Claude Code gives backups', () => {
    expect(isPlainName('21be17c30647835a@v3')).toBe(true);
  });

  it.each(['', '.', '..', '../x', 'a/b', 'a\\b', 'x..y', 'a\0b'])('refuses %j', (name) => {
    expect(isPlainName(name)).toBe(false);
  });
});

describe('backupPath', () => {
  it('is under the session dir of file-history', () => {
    expect(backupPath('/home/u/.claude', 's-1', 'h@v1')).toBe('/home/u/.claude/file-history/s-1/h@v1');
  });

  it('refuses a backup name or session id that is not a plain name', () => {
    expect(rejection(() => backupPath('/c', 's', '../../etc/passwd'))).toBe(ErrorCode.PathRejected);
    expect(rejection(() => backupPath('/c', '../s', 'h@v1'))).toBe(ErrorCode.PathRejected);
  });
});

describe('trackedPath', () => {
  it('resolves a relative path against the cwd, and keeps an absolute one', () => {
    expect(trackedPath('/p', 'src/a.js')).toBe('/p/src/a.js');
    expect(trackedPath('/p', 'src/../b.js')).toBe('/p/b.js');
    expect(trackedPath(null, '/elsewhere/c.txt')).toBe('/elsewhere/c.txt');
    expect(trackedPath('/p', '/elsewhere//c.txt')).toBe('/elsewhere/c.txt');
  });

  it.each([
    ['/p', '../x'],
    ['/p', 'a/../../x'],
    ['/p', '.'],
    ['/p', ''],
    ['/p', '/q/../etc/passwd'],
    ['/p', 'a\0b'],
    [null, 'a.js'],
    ['relative/cwd', 'a.js'],
  ])('refuses %j with %j', (cwd, path) => {
    expect(rejection(() => trackedPath(cwd, path))).toBe(ErrorCode.PathRejected);
  });
});

describe('undo ids', () => {
  it('names a dir under the state dir', () => {
    const undoId = newUndoId(Date.parse('2026-12-03T09:08:07.654Z'));
    expect(undoId).toMatch(/^20261203T090807Z-[0-9a-f]{8}$/);
    expect(undoDir('/state', undoId)).toBe(`/state/rewind/${undoId}`);
  });

  it('refuses anything else', () => {
    for (const undoId of ['..', '../../etc', '20261203T090807Z-0000000/', 'x'])
      expect(
        rejection(() => undoDir('/state', undoId)),
        undoId,
      ).toBe(ErrorCode.PathRejected);
  });
});
