/**
 * A git that hangs, for the tests of deadlines (test/security/shutdown.test.ts, deadlines.test.ts):
 * a repository, a session transcript in it, and a `git` first on memd's PATH whose rev-parse is
 * the real git's and whose status and diff never answer, each leaving a child that holds git's
 * stdout (as a git on a hung network mount, or one running a hook, would).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../../daemon/lifecycle/instance-lock.js';
import { RawSocket } from './raw-socket.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from './real-shapes.js';
import { type DaemonProcess, eventually, makeSandbox, type Sandbox } from './sandbox.js';

export const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
/** What memd may take past its deadline to log, release and die on a loaded two-core machine. */
export const EXIT_MARGIN_MS = 2_500;

export interface Setup {
  sandbox: Sandbox;
  cwd: string;
  transcriptPath: string;
  /** The env that puts the hanging git first on memd's PATH. */
  env: NodeJS.ProcessEnv;
  /** Pids of the processes the hanging git started (they hold its stdout). */
  children(): number[];
}

/** A repository, a session transcript in it, and a git whose status and diff never answer. */
export function hangingGitSetup(): Setup {
  const sandbox = makeSandbox();
  const cwd = join(sandbox.root, 'repo');
  mkdirSync(cwd);
  execFileSync(REAL_GIT, ['init', '-q', cwd]);
  const sessionId = '5d0e0000-0000-4000-8000-000000000001';
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.38' });
  writer.prompt('Fix the login redirect');
  writer.toolRound('Read', { file_path: `${cwd}/src/login.ts` }, 'export {}', growingUsage(1));
  const transcriptPath = mainPath(sandbox.projectsDir, cwd, sessionId);
  writeTranscript(transcriptPath, writer);
  const bin = join(sandbox.root, 'bin');
  mkdirSync(bin);
  const pids = join(sandbox.root, 'git-children');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\ncase " $* " in *" rev-parse "*) exec ${REAL_GIT} "$@" ;; esac\nsleep 600 &\necho $! >> ${pids}\nwait\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  const children = () => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return { sandbox, cwd, transcriptPath, env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, children };
}

/** Sends handoff.generate and returns once its git status hangs; the request stays in flight. */
export async function handoffInFlight(s: Setup): Promise<RawSocket> {
  const socket = await RawSocket.open(s.sandbox.socketPath);
  socket.sendJson({
    jsonrpc: '2.0',
    id: 1,
    method: 'handoff.generate',
    params: { transcriptPath: s.transcriptPath, cwd: s.cwd },
  });
  await eventually(() => s.children().length > 0, 'git status to hang');
  return socket;
}

/** The daemon's exit, or null when it has not exited within `ms`. */
export async function exitWithin(
  daemon: DaemonProcess,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([daemon.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Killed: gone, or a zombie its new parent (pid 1 here) has not reaped yet. */
export function isGone(pid: number): boolean {
  if (!isProcessAlive(pid)) return true;
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
