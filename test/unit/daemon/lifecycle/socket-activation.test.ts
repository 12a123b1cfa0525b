import { describe, expect, it } from 'vitest';
import { takeActivatedSocket } from '../../../../daemon/lifecycle/socket-activation.js';

const PID = 4242;

describe('takeActivatedSocket', () => {
  it('takes fd 3 when LISTEN_PID is ours, and removes the variables', () => {
    const env: Record<string, string | undefined> = {
      LISTEN_PID: String(PID),
      LISTEN_FDS: '1',
      LISTEN_FDNAMES: 'memd.socket',
      HOME: '/h',
    };
    expect(takeActivatedSocket(env, PID)).toEqual({ fd: 3, ignored: 0 });
    expect(env).toEqual({ HOME: '/h' });
  });

  it('counts descriptors beyond the first as ignored', () => {
    const env = { LISTEN_PID: String(PID), LISTEN_FDS: '2' };
    expect(takeActivatedSocket(env, PID)).toEqual({ fd: 3, ignored: 1 });
    expect(env).toEqual({});
  });

  it('takes nothing when LISTEN_PID names another process, and leaves the variables', () => {
    const env = { LISTEN_PID: String(PID + 1), LISTEN_FDS: '1' };
    expect(takeActivatedSocket(env, PID)).toBeUndefined();
    expect(env).toEqual({ LISTEN_PID: String(PID + 1), LISTEN_FDS: '1' });
  });

  it.each([['0'], ['-1'], ['abc'], [undefined]])('takes nothing when LISTEN_FDS is %j', (fds) => {
    const env = { LISTEN_PID: String(PID), LISTEN_FDS: fds };
    expect(takeActivatedSocket(env, PID)).toBeUndefined();
  });

  it('takes nothing without LISTEN_PID', () => {
    expect(takeActivatedSocket({ LISTEN_FDS: '1' }, PID)).toBeUndefined();
  });

  it("defaults to this process's pid", () => {
    const env = { LISTEN_PID: String(process.pid), LISTEN_FDS: '1' };
    expect(takeActivatedSocket(env)).toEqual({ fd: 3, ignored: 0 });
  });
});
