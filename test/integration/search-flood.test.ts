/**
 * One client's search never holds another's (issue 27, item 3): a query past its deadline is
 * stopped and its search process replaced; a second client's ordinary search answers while a
 * hostile one runs (several of them queued on one connection); a hostile query is stopped when its
 * client cancels it or goes away. The hostile query is MEMD_TEST_SEARCH_STALL's: one SQLite step
 * that never ends (what a hostile query is on a big index), so that nothing here depends on timing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { RpcError } from '../../shared/protocol/errors.js';
import type { SearchStatus } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const STALL = 'stall this search forever';
/** Long enough that no query here reaches it unless it is stuck. */
const LONG_DEADLINE_MS = 600_000;

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

/** The daemon's search processes: pid and niceness (/proc/<pid>/stat's 19th field). */
function searchProcesses(daemonPid: number): { pid: number; nice: number }[] {
  const found: { pid: number; nice: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== daemonPid) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('query-process.js')) continue;
      found.push({ pid: Number(entry), nice: Number(fields[16]) });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function daemonWith(
  deadlineMs: number,
): Promise<{ sandbox: Sandbox; client: Client; search: () => Promise<SearchStatus>; pid: number }> {
  const sandbox = makeSandbox();
  copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
  const daemon = await startDaemon(sandbox, undefined, {
    MEMD_TEST_SEARCH_STALL: STALL,
    MEMD_SEARCH_DEADLINE_MS: String(deadlineMs),
    MEMD_SEARCH_PROCESSES: '2',
  });
  keepForFile(sandbox, daemon);
  const client = createClient({ env: sandbox.env, autostart: false });
  await eventually(() => caughtUp(client), 'ingest to catch up');
  return { sandbox, client, search: async () => (await client.daemonStatus()).search, pid: daemon.pid };
}

/** The promise's outcome so far, without waiting for it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; error: unknown } = { settled: false, error: undefined };
  promise.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

describe('a query past its deadline', () => {
  it('is stopped, answered SearchTimeout (1010), and a fresh search process answers the next one', async () => {
    const { client, search } = await daemonWith(300);
    const error = await client.searchQuery({ query: STALL }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: 1010, kind: 'SearchTimeout', data: { deadlineMs: 300 } });
    expect((error as RpcError).message).toMatch(/took longer than 300 ms and was stopped/);
    expect(await search()).toMatchObject({ stoppedAtDeadline: 1, running: 0 });
    const { hits } = await client.searchQuery({ query: 'discount' });
    expect(hits.length).toBeGreaterThan(0);
    client.close();
  });
});

describe('a heavy query (issue 27, measured by CPU since issue 33)', () => {
  it.skipIf(process.platform !== 'linux')(
    'is niced once it has worked 100 ms, not while it only waits for the CPU',
    async () => {
      const { client, pid } = await daemonWith(LONG_DEADLINE_MS);
      await client.searchQuery({ query: 'discount' });
      // The first free process, the one that answered, takes the next query.
      await eventually(async () => searchProcesses(pid).length > 0, 'a search process to start');
      // Stopped before the query reaches them: it runs on the wall clock but uses no CPU, as on a
      // loaded machine.
      const processes = searchProcesses(pid);
      for (const { pid: child } of processes) process.kill(child, 'SIGSTOP');
      const stalled = client.searchQuery({ query: STALL }).catch((caught: unknown) => caught);
      const waited = Date.now() + 400;
      await eventually(async () => Date.now() > waited, 'four heavy marks to pass');
      expect(searchProcesses(pid).every((found) => found.nice === 0)).toBe(true);
      for (const { pid: child } of processes) process.kill(child, 'SIGCONT');
      // Working, the stalled query's process is niced.
      await eventually(
        async () => searchProcesses(pid).some((found) => found.nice === 10),
        'the busy process to be niced',
      );
      client.close();
      await stalled;
    },
  );
});

describe('a hostile client', () => {
  let client: Client;
  let search: () => Promise<SearchStatus>;
  let sandbox: Sandbox;

  beforeAll(async () => {
    ({ client, search, sandbox } = await daemonWith(LONG_DEADLINE_MS));
    return () => client.close();
  });

  it("holds one search process at most: another client's search answers while its queries run", async () => {
    const hostile = createClient({ env: sandbox.env, autostart: false, timeoutMs: LONG_DEADLINE_MS });
    const first = track(hostile.searchQuery({ query: STALL }));
    const second = track(hostile.searchQuery({ query: STALL }));
    const third = track(hostile.searchQuery({ query: STALL }));
    await eventually(async () => {
      const status = await search();
      return status.running === 1 && status.queued === 2;
    }, 'the hostile queries to run and queue');
    const { hits } = await client.searchQuery({ query: 'discount' });
    expect(hits.length).toBeGreaterThan(0);
    expect([first.settled, second.settled, third.settled]).toEqual([false, false, false]);

    // Its client gone, the running query is stopped and the waiting ones dropped.
    hostile.close();
    await eventually(async () => {
      const status = await search();
      return status.running === 0 && status.queued === 0;
    }, 'the hostile queries to stop');
    expect((await search()).stoppedCancelled).toBe(1);
    expect((await client.searchQuery({ query: 'discount' })).hits.length).toBeGreaterThan(0);
  });

  it('is stopped when its client cancels it ($/cancelRequest)', async () => {
    const before = (await search()).stoppedCancelled;
    // A client that waits 500 ms cancels its request then (client/connection.ts).
    const impatient = createClient({ env: sandbox.env, autostart: false, timeoutMs: 500 });
    await expect(impatient.searchQuery({ query: STALL })).rejects.toMatchObject({ kind: 'Timeout' });
    await eventually(async () => (await search()).stoppedCancelled === before + 1, 'the cancelled query to stop');
    expect(await search()).toMatchObject({ running: 0, queued: 0 });
    impatient.close();
  });
});
