import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, isProcessAlive, LockHeldError } from '../../../../daemon/lifecycle/instance-lock.js';

let dir: string;
let lockPath: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memd-lock-'));
  lockPath = join(dir, 'memd.lock');
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A process that stays alive until the test ends. */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('could not spawn a child');
  return child.pid;
}

/** The pid of a process that has exited (and been reaped), so nothing runs under it. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn a child');
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

const ownerOf = () => Number.parseInt(readFileSync(lockPath, 'utf8'), 10);

describe('acquireInstanceLock', () => {
  it('writes our pid and leaves no temp files; release removes the lock', () => {
    const lock = acquireInstanceLock(lockPath);
    expect(lock.path).toBe(lockPath);
    expect(ownerOf()).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['memd.lock']);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('can be taken again after release', () => {
    acquireInstanceLock(lockPath).release();
    const again = acquireInstanceLock(lockPath);
    expect(ownerOf()).toBe(process.pid);
    again.release();
  });

  it('refuses while a live process holds it, naming that pid', () => {
    const holderPid = liveProcess();
    acquireInstanceLock(lockPath, holderPid);
    let thrown: unknown;
    try {
      acquireInstanceLock(lockPath);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LockHeldError);
    expect((thrown as LockHeldError).pid).toBe(holderPid);
    expect((thrown as LockHeldError).message).toContain(`pid ${holderPid}`);
    // The holder's lock is untouched and nothing is left beside it.
    expect(ownerOf()).toBe(holderPid);
    expect(readdirSync(dir)).toEqual(['memd.lock']);
  });

  it('takes over the lock of a dead process', async () => {
    const pid = await deadPid();
    expect(isProcessAlive(pid)).toBe(false);
    writeFileSync(lockPath, `${pid}\n2020-01-01T00:00:00.000Z\n`);
    const lock = acquireInstanceLock(lockPath);
    expect(ownerOf()).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['memd.lock']);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it.each([['garbage\n'], [''], ['-5\n'], ['0\n']])('takes over a lock holding %j', (content) => {
    writeFileSync(lockPath, content);
    acquireInstanceLock(lockPath);
    expect(ownerOf()).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['memd.lock']);
  });

  it('release leaves a lock that is no longer ours', () => {
    const lock = acquireInstanceLock(lockPath);
    const otherPid = liveProcess();
    // Another daemon took over (say after our lock was removed by hand).
    rmSync(lockPath);
    writeFileSync(lockPath, `${otherPid}\n`);
    lock.release();
    expect(ownerOf()).toBe(otherPid);
  });

  it('release of a lock that is already gone does not throw', () => {
    const lock = acquireInstanceLock(lockPath);
    rmSync(lockPath);
    expect(() => lock.release()).not.toThrow();
  });
});

describe('isProcessAlive', () => {
  it('is true for us and false for an exited child', async () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(await deadPid())).toBe(false);
  });
});
