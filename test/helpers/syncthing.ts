/**
 * Two real Syncthing instances that carry one folder between two directories, for the tests of
 * memd's sync across machines (issue 35): each with its own home, both on loopback only (no
 * discovery, relays, NAT, usage or crash reports, upgrades), introduced to each other by device id,
 * A dialling B at its tcp://127.0.0.1 address; the folder is sendreceive on both, with the watcher
 * on and a short rescan behind it. Every instance is killed after the test file, when the test
 * process exits, and (setpriv's parent-death signal) when it dies; both logs are printed when a
 * test fails.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { freePorts, generateHome, run, SYNCTHING_BIN, syncthingEnv, writeConfig } from './syncthing-home.js';
import { field, request, rescan, settled, syncState } from './syncthing-rest.js';

export { SYNCTHING_BIN } from './syncthing-home.js';

/** B, then A once B answers, then their link: ~1.3 s when idle, ~2-3 s on two loaded cores (measured). */
const STARTUP_DEADLINE_MS = 20_000;
/** SIGKILL cannot be refused: only a process stuck in the kernel takes longer to go. */
const STOP_DEADLINE_MS = 5_000;
/** How long waitInSync waits by default: one change settles in well under a second on loopback. */
const DEFAULT_SYNC_DEADLINE_MS = 15_000;
/** How often the REST state is read while waiting: six requests a round, and a settle takes 100 ms or more. */
const STATE_POLL_MS = 50;
/** The fallback when a watcher event is lost (inotify limits): a full scan of a test folder costs nothing. */
const DEFAULT_RESCAN_INTERVAL_S = 5;
/** A port the kernel picked can be taken again before Syncthing binds it: such a start is retried on new ports. */
const PORT_ATTEMPTS = 3;
/** The end of an instance's output kept for a failure's report: its log is small, a wedged one's is not. */
const LOG_KEEP_CHARS = 200_000;
/** `setpriv --help` answers at once. */
const SETPRIV_DEADLINE_MS = 5_000;
const DEFAULT_FOLDER_ID = 'memd-sync';

export interface SyncthingPairOptions {
  /** The folder on machine A and on machine B; made when missing, with Syncthing's `.stfolder` marker. */
  dirA: string;
  dirB: string;
  folderId?: string | undefined;
  /** The full rescan behind the watcher, in seconds (default 5). */
  rescanIntervalS?: number | undefined;
  /**
   * Lines of `.stignore`, written into both folders before start (Syncthing never carries it): e.g.
   * `(?d).*.tmp` for the `.<name>.<pid>.<hex>.tmp` that an atomic writer leaves for a moment, where
   * `(?d)` lets Syncthing remove a directory that holds one.
   */
  ignore?: readonly string[] | undefined;
  /** Where the two homes go; by default a temp dir of the pair's own, removed by stop(). */
  homeRoot?: string | undefined;
}

export type Side = 'a' | 'b';

export interface SyncthingInstance {
  dir: string;
  home: string;
  deviceId: string;
  /** The REST API, `http://127.0.0.1:PORT`; requests carry `X-API-Key: <apiKey>`. */
  apiUrl: string;
  apiKey: string;
  pid: number;
}

export interface SyncthingPair {
  a: SyncthingInstance;
  b: SyncthingInstance;
  folderId: string;
  /** Scans the folder on one side now; resolves when the scan is done (POST /rest/db/scan). */
  rescan(which: Side): Promise<void>;
  /**
   * Scans both sides, then polls until each is connected to the other, idle, needs nothing, and sees
   * the other's copy complete (100%, nothing to delete): what was on either disk when it was called
   * is then on both. Throws with the last state of both after `timeoutMs` (default 15 s).
   */
  waitInSync(timeoutMs?: number): Promise<void>;
  /** Both instances' output so far. */
  logs(): string;
  /** Kills both and waits until they are gone (bounded); removes the homes when the pair made them. Idempotent. */
  stop(): Promise<void>;
}

interface Running extends SyncthingInstance {
  side: Side;
  peer: string;
  child: ChildProcess;
  hasExited(): boolean;
  output(): string;
}

type Both = Record<Side, Running>;

const SIDES: readonly Side[] = ['a', 'b'];
const livePairs = new Set<SyncthingPair>();
/** Instances started and not yet seen gone, for the exit handler. */
const liveInstances = new Set<Running>();

afterEach((context) => {
  if (context.task.result?.state !== 'fail') return;
  for (const pair of livePairs) process.stderr.write(`\n--- syncthing (${pair.folderId}) ---\n${pair.logs()}\n---\n`);
});

afterAll(async () => {
  await Promise.all([...livePairs].map((pair) => pair.stop()));
});

// A test process that exits without its afterAll (process.exit, an uncaught error) leaves none running.
process.on('exit', () => {
  for (const instance of liveInstances) signalAll(instance);
});

/** `setpriv --pdeathsig KILL` where util-linux has it: the kernel kills Syncthing when the test process dies. */
const DEATH_SIGNAL_PREFIX: readonly string[] = (() => {
  const help = spawnSync('setpriv', ['--help'], { encoding: 'utf8', timeout: SETPRIV_DEADLINE_MS });
  return help.status === 0 && help.stdout.includes('--pdeathsig') ? ['setpriv', '--pdeathsig', 'KILL'] : [];
})();

let usable: Promise<string | null> | undefined;

/**
 * Null when two Syncthing instances start and connect here, else why not (no binary, too old, no
 * start within the deadline): the tests that need them are skipped with that reason, so that a
 * machine without Syncthing or without loopback networking skips rather than fails. Probed once.
 */
export function syncthingUsable(): Promise<string | null> {
  usable ??= probe();
  return usable;
}

async function probe(): Promise<string | null> {
  let version: string;
  try {
    version = (await run([SYNCTHING_BIN, '--version'], process.env)).trim();
  } catch (error) {
    return `${SYNCTHING_BIN} does not run (${firstLine(error)}): apt-get install syncthing, or set MEMD_SYNCTHING`;
  }
  const found = /^syncthing v(\d+)\.(\d+)/.exec(version);
  if (found === null)
    return `${SYNCTHING_BIN} --version says ${JSON.stringify(version.split('\n')[0])}, not syncthing's`;
  // `generate` and `serve` as subcommands, and config version 36, came with 1.19.
  if (Number(found[1]) === 1 && Number(found[2]) < 19) return `${version} is older than 1.19`;
  const root = mkdtempSync(join(tmpdir(), 'memd-syncthing-probe-'));
  try {
    const pair = await startSyncthingPair({ dirA: join(root, 'a'), dirB: join(root, 'b'), homeRoot: root });
    await pair.stop();
    return null;
  } catch (error) {
    return `two syncthing instances did not start and connect on loopback (${firstLine(error)})`;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Starts both instances; resolves once they are connected to each other and both have scanned the folder. */
export async function startSyncthingPair(options: SyncthingPairOptions): Promise<SyncthingPair> {
  const folderId = options.folderId ?? DEFAULT_FOLDER_ID;
  const ownedRoot = options.homeRoot === undefined ? mkdtempSync(join(tmpdir(), 'memd-syncthing-')) : undefined;
  const homeRoot = options.homeRoot ?? (ownedRoot as string);
  try {
    prepareFolder(options.dirA, options.ignore);
    prepareFolder(options.dirB, options.ignore);
    const homes = { a: join(homeRoot, 'syncthing-a'), b: join(homeRoot, 'syncthing-b') };
    const plan: Plan = {
      folderId,
      rescanIntervalS: options.rescanIntervalS ?? DEFAULT_RESCAN_INTERVAL_S,
      homes,
      ids: { a: await generateHome(homes.a), b: await generateHome(homes.b) },
      dirs: { a: options.dirA, b: options.dirB },
    };
    for (let attempt = 1; ; attempt++) {
      const started: Running[] = [];
      try {
        const both = await launch(plan, started, Date.now() + STARTUP_DEADLINE_MS);
        const pair = pairOf(both, folderId, ownedRoot);
        livePairs.add(pair);
        return pair;
      } catch (error) {
        await killAll(started);
        const portTaken = started.some((instance) => /address already in use/.test(instance.output()));
        if (portTaken && attempt < PORT_ATTEMPTS) continue;
        throw new Error(`${firstLine(error)}\n${started.map(logOf).join('\n')}`);
      }
    }
  } catch (error) {
    if (ownedRoot !== undefined) rmSync(ownedRoot, { recursive: true, force: true });
    throw error;
  }
}

function prepareFolder(dir: string, ignore: readonly string[] | undefined): void {
  // Syncthing refuses a folder without its marker, lest an unmounted disk read as everything deleted.
  mkdirSync(join(dir, '.stfolder'), { recursive: true });
  if (ignore !== undefined) writeFileSync(join(dir, '.stignore'), `${ignore.join('\n')}\n`);
}

interface Plan {
  folderId: string;
  rescanIntervalS: number;
  homes: Record<Side, string>;
  ids: Record<Side, string>;
  dirs: Record<Side, string>;
}

/**
 * Writes both configs on fresh ports, starts B, and once B answers starts A, which dials it; resolves
 * when they are connected and idle. Only A dials: when both dialled at the same moment, v1.19 now and
 * then stalled both TLS handshakes until their 10 s timeout (2 starts in 40), and B, having no
 * address for A (discovery off), never dials. Each instance started is pushed to `started` at once,
 * for the caller to kill on failure.
 */
async function launch(plan: Plan, started: Running[], deadline: number): Promise<Both> {
  const [listenA, listenB, guiA, guiB] = (await freePorts(4)) as [number, number, number, number];
  const ports = { a: { listen: listenA, gui: guiA }, b: { listen: listenB, gui: guiB } };
  const start = (side: Side, peerAddress: string): Running => {
    const other: Side = side === 'a' ? 'b' : 'a';
    const apiKey = randomBytes(16).toString('hex');
    writeConfig(plan.homes[side], {
      name: side,
      deviceId: plan.ids[side],
      listenPort: ports[side].listen,
      guiPort: ports[side].gui,
      apiKey,
      peer: { name: other, deviceId: plan.ids[other], address: peerAddress },
      folder: { id: plan.folderId, path: plan.dirs[side], rescanIntervalS: plan.rescanIntervalS },
    });
    const instance = spawnInstance({
      side,
      dir: plan.dirs[side],
      home: plan.homes[side],
      deviceId: plan.ids[side],
      peer: plan.ids[other],
      apiUrl: `http://127.0.0.1:${ports[side].gui}`,
      apiKey,
    });
    started.push(instance);
    return instance;
  };
  const b = start('b', 'dynamic');
  // B listens for devices before its REST API answers.
  await until(deadline, 'syncthing b to answer', started, async () => {
    await request(b, 'GET', '/rest/system/ping');
    return true;
  });
  const a = start('a', `tcp://127.0.0.1:${ports.b.listen}`);
  const both = { a, b };
  await until(deadline, 'syncthing a and b to connect and scan', started, async () => {
    const states = await Promise.all(SIDES.map((side) => syncState(both[side], plan.folderId)));
    if (states.every((state) => state.connected && state.state === 'idle')) return true;
    // Why A did not connect: its log does not say unless traced.
    return { states, dials: field(await request(a, 'GET', '/rest/system/status'), 'lastDialStatus') };
  });
  return both;
}

function pairOf(both: Both, folderId: string, ownedRoot: string | undefined): SyncthingPair {
  let stopped: Promise<void> | undefined;
  const pair: SyncthingPair = {
    a: both.a,
    b: both.b,
    folderId,
    rescan: (which) => rescan(both[which], folderId),
    waitInSync: (timeoutMs = DEFAULT_SYNC_DEADLINE_MS) => waitInSync(both, folderId, timeoutMs),
    logs: () => SIDES.map((side) => logOf(both[side])).join('\n'),
    stop: () =>
      (stopped ??= (async () => {
        livePairs.delete(pair);
        await killAll([both.a, both.b]);
        if (ownedRoot !== undefined) rmSync(ownedRoot, { recursive: true, force: true });
      })()),
  };
  return pair;
}

function spawnInstance(instance: Omit<Running, 'pid' | 'child' | 'hasExited' | 'output'>): Running {
  const args = [SYNCTHING_BIN, 'serve', '--home', instance.home, '--no-browser', '--no-restart'];
  const [command, ...rest] = [...DEATH_SIGNAL_PREFIX, ...args] as [string, ...string[]];
  const child = spawn(command, rest, { env: syncthingEnv(instance.home), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exited = false;
  const keep = (text: string) => (output = (output + text).slice(-LOG_KEEP_CHARS));
  child.stdout?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  const finish = (note: string) => {
    if (exited) return;
    exited = true;
    keep(note);
  };
  child.once('exit', (code, signal) => finish(`[exited: ${signal ?? code}]\n`));
  // An error with a pid is a failed kill of a live process, not its end.
  child.on('error', (error) => (child.pid === undefined ? finish : keep)(`[could not run: ${error.message}]\n`));
  const running: Running = {
    ...instance,
    pid: child.pid ?? -1,
    child,
    hasExited: () => exited,
    output: () => output,
  };
  liveInstances.add(running);
  return running;
}

function logOf(instance: Running): string {
  return `[syncthing ${instance.side}, pid ${instance.pid}]\n${instance.output()}`;
}

/** SIGKILLs the instances and waits until their processes have exited and none serves their homes. */
async function killAll(instances: Running[]): Promise<void> {
  for (const instance of instances) signalAll(instance);
  const serving = () => instances.filter((instance) => !instance.hasExited() || pidsServing(instance.home).length > 0);
  await until(Date.now() + STOP_DEADLINE_MS, 'syncthing to exit after SIGKILL', [], () => {
    for (const instance of serving()) signalAll(instance);
    return serving().length === 0 || serving().map((instance) => `${instance.side} (pid ${instance.pid})`);
  });
  for (const instance of instances) liveInstances.delete(instance);
}

/** SIGKILL to the instance's process and to any other that serves its home (a monitor's child would). */
function signalAll(instance: Running): void {
  if (!instance.hasExited()) instance.child.kill('SIGKILL');
  for (const pid of pidsServing(instance.home)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the look and the kill.
    }
  }
}

/**
 * The pids whose command line says `--home <home>`: the homes are fresh temp dirs, so these are the
 * processes this helper started, whatever process group Syncthing moved them to (it leaves its
 * parent's to lower its priority). Zombies have an empty command line and are not counted.
 */
function pidsServing(home: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = args.indexOf('--home');
    if (at >= 0 && args[at + 1] === home && Number(entry) !== process.pid) pids.push(Number(entry));
  }
  return pids;
}

async function waitInSync(both: Both, folderId: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(SIDES.map((side) => rescan(both[side], folderId)));
  await until(deadline, 'syncthing a and b to be in sync', [both.a, both.b], async () => {
    const states = await Promise.all(SIDES.map((side) => syncState(both[side], folderId)));
    return states.every(settled) || states;
  });
}

/**
 * Polls `check` until it answers true, or throws naming `what` with its last other answer (the state
 * that was not yet right) or error once `deadline` (epoch ms) has passed. One of `watched` that
 * exits meanwhile fails the wait at once.
 */
async function until(deadline: number, what: string, watched: Running[], check: () => unknown): Promise<void> {
  let last: unknown = 'no answer yet';
  for (;;) {
    const gone = watched.find((instance) => instance.hasExited());
    if (gone !== undefined) throw new Error(`syncthing ${gone.side} exited while waiting for ${what}`);
    try {
      const answer = await check();
      if (answer === true) return;
      last = answer;
    } catch (error) {
      last = firstLine(error);
    }
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, STATE_POLL_MS));
  }
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';
}
