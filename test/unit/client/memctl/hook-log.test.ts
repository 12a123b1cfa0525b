/** The hooks' notes: appended to the state dir's hooks.log, never through a link or into a FIFO, never thrown. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookLogPath, hookNotes } from '../../../../client/memctl/hook-log.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function env(): NodeJS.ProcessEnv {
  dir = mkdtempSync(join(tmpdir(), 'memd-hook-log-'));
  return { MEMD_STATE_DIR: join(dir, 'state') };
}

describe('hook notes', () => {
  it('are JSON lines in hooks.log, secrets redacted', () => {
    const e = env();
    const note = hookNotes(e, () => Date.parse('2026-12-05T10:00:00Z'));
    note('memctl hook pre-compact: wrote a partial handoff');
    note('token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH');
    const lines = readFileSync(hookLogPath(e), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({
      time: '2026-12-05T10:00:00.000Z',
      msg: 'memctl hook pre-compact: wrote a partial handoff',
    });
    expect(lines[1].msg).not.toContain('abcdefghijklmnop');
  });

  it('are dropped, not thrown and not written through, when the log is a link or a FIFO', () => {
    const e = env();
    mkdirSync(join(dir, 'state'));
    const target = join(dir, 'elsewhere');
    writeFileSync(target, '');
    symlinkSync(target, hookLogPath(e));
    expect(() => hookNotes(e)('a note')).not.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('');
    rmSync(hookLogPath(e));
    execFileSync('mkfifo', [hookLogPath(e)]);
    // Without O_NONBLOCK this open would wait for a reader forever.
    expect(() => hookNotes(e)('a note')).not.toThrow();
  });

  it('move a log past 1 MiB to hooks.log.1 and start a new one', () => {
    const e = env();
    mkdirSync(join(dir, 'state'));
    writeFileSync(hookLogPath(e), 'x'.repeat(1024 * 1024 + 1));
    hookNotes(e)('after');
    expect(readFileSync(hookLogPath(e), 'utf8')).toContain('"after"');
    expect(readFileSync(`${hookLogPath(e)}.1`, 'utf8').length).toBe(1024 * 1024 + 1);
  });
});
