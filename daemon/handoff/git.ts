/**
 * What git says about cwd, for the handoff's verifiable part: the branch, `git status --porcelain`
 * and `git diff --stat`. git runs without a shell, with GIT_OPTIONAL_LOCKS=0 so that a status
 * taken while Claude Code works never holds the index lock it may need, and with the repository's
 * own command hooks for status and diff turned off (core.fsmonitor, external diff, textconv: a
 * repository's .git/config can name any program). All of it shares one deadline: past it git's
 * whole process group is killed (a git that hangs leaves children holding its pipes, and waiting
 * for those would never end) and `{unanswered}` says which command did not answer. The caller's
 * signal kills it the same way. Not a repo, no git, or cancelled: null.
 */
import { spawn } from 'node:child_process';
import { isAbsolute, join, relative } from 'node:path';
import type { HandoffFileTouched } from '../../shared/protocol/handoff.js';

/** A git that hangs (a network filesystem, a huge repo) must not hold up the compaction. */
export const GIT_TIMEOUT_MS = 5_000;
/** Porcelain lines kept: an unignored build dir can list thousands; the first ones say enough. */
export const MAX_PORCELAIN_LINES = 200;
/** What git may print before it is cut off. */
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** `git diff --stat` lines kept: one per file, then the summary line, which is always kept. */
export const MAX_DIFF_STAT_LINES = 60;
/** status must not run the fsmonitor hook a repository's .git/config may name (diff: --no-ext-diff --no-textconv). */
const NO_REPO_COMMANDS = ['-c', 'core.fsmonitor=false'];

export interface GitStatusEntry {
  /** The two status letters, as porcelain v1 shows them (`??`, ` M`, `R `...). */
  code: string;
  /** Absolute. */
  path: string;
  /** Absolute; renames only. */
  from: string | null;
}

export interface GitFacts {
  /** The repository's top directory. */
  top: string;
  branch: string | null;
  /** Porcelain lines (`XY path`, `XY from -> to`), paths relative to the top as git writes them. */
  porcelain: string[];
  entries: GitStatusEntry[];
  diffStat: string | null;
}

/** git did not answer within the deadline: the handoff has no git facts, and says why. */
export interface GitUnanswered {
  unanswered: string;
}

export interface GitOptions {
  /** For all of git's commands together. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The git binary (tests point it at a missing one). */
  git?: string;
}

type RunResult = { ok: true; stdout: string } | { ok: false; timedOut: boolean };

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** One git command, in its own process group so that a kill reaches everything it started. */
function run(args: readonly string[], cwd: string, options: GitOptions, deadline: AbortSignal): Promise<RunResult> {
  return new Promise((resolve) => {
    if (deadline.aborted || options.signal?.aborted) {
      resolve({ ok: false, timedOut: deadline.aborted });
      return;
    }
    const child = spawn(options.git ?? 'git', [...NO_REPO_COMMANDS, ...args], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const finish = (result: RunResult) => {
      if (done) return;
      done = true;
      deadline.removeEventListener('abort', stop);
      options.signal?.removeEventListener('abort', stop);
      child.stdout?.destroy();
      resolve(result);
    };
    const stop = () => {
      killGroup(child.pid);
      finish({ ok: false, timedOut: deadline.aborted });
    };
    deadline.addEventListener('abort', stop);
    options.signal?.addEventListener('abort', stop);
    child.stdout?.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_GIT_OUTPUT_BYTES) {
        killGroup(child.pid);
        finish({ ok: false, timedOut: false });
        return;
      }
      chunks.push(chunk);
    });
    child.once('error', () => finish({ ok: false, timedOut: false }));
    // Whatever git started and left behind goes with it, so that its pipe closes.
    child.once('exit', () => killGroup(child.pid));
    child.once('close', (code) =>
      finish(
        code === 0 ? { ok: true, stdout: Buffer.concat(chunks).toString('utf8') } : { ok: false, timedOut: false },
      ),
    );
  });
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The branch from `## ` of `git status --branch`: `main...origin/main [ahead 1]`, `No commits yet on main`, `HEAD (no branch)`. */
function branchOf(line: string): string | null {
  const head = line.slice(3).replace(/^(?:No commits yet on|Initial commit on) /, '');
  if (head.startsWith('HEAD (no branch)')) return null;
  return head.split('...')[0]?.split(' ')[0] ?? null;
}

/** `git status --porcelain=v1 -z --branch` output: NUL-separated, a rename's source after its entry. */
export function parseStatus(
  output: string,
  top: string,
): { branch: string | null; porcelain: string[]; entries: GitStatusEntry[] } {
  const fields = output.split('\0');
  let branch: string | null = null;
  const porcelain: string[] = [];
  const entries: GitStatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.startsWith('## ')) {
      branch = branchOf(field);
      continue;
    }
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    const path = field.slice(3);
    const from = code.includes('R') || code.includes('C') ? (fields[++i] ?? null) : null;
    if (entries.length >= MAX_PORCELAIN_LINES) continue;
    porcelain.push(from === null ? `${code} ${path}` : `${code} ${from} -> ${path}`);
    entries.push({ code, path: join(top, path), from: from === null ? null : join(top, from) });
  }
  return { branch, porcelain, entries };
}

export async function gitFacts(cwd: string, options: GitOptions = {}): Promise<GitFacts | GitUnanswered | null> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const unanswered = (command: string): GitUnanswered => ({
    unanswered: `\`git ${command}\` did not answer within ${seconds(timeoutMs)} and was stopped`,
  });
  const topRun = await run(['rev-parse', '--show-toplevel'], cwd, options, deadline);
  if (!topRun.ok) return topRun.timedOut ? unanswered('rev-parse') : null;
  const top = topRun.stdout.trim();
  if (top === '' || !isAbsolute(top)) return null;
  const [status, diff] = await Promise.all([
    run(['status', '--porcelain=v1', '-z', '--branch'], cwd, options, deadline),
    // Against HEAD: staged and unstaged together. A repo without commits has no HEAD: null.
    run(['diff', '--no-ext-diff', '--no-textconv', '--stat', 'HEAD', '--'], cwd, options, deadline),
  ]);
  if (!status.ok) return status.timedOut ? unanswered('status') : null;
  const parsed = parseStatus(status.stdout, top);
  if (!diff.ok && diff.timedOut) return unanswered('diff --stat');
  const stat = diff.ok ? diff.stdout.trimEnd() : '';
  return { top, ...parsed, diffStat: stat.trim() === '' ? null : shortStat(stat) };
}

/** The first per-file lines and the summary line of `git diff --stat`. */
export function shortStat(stat: string): string {
  const lines = stat.split('\n');
  if (lines.length <= MAX_DIFF_STAT_LINES) return stat;
  const kept = lines.slice(0, MAX_DIFF_STAT_LINES - 2);
  return [...kept, ` … ${lines.length - 1 - kept.length} more files`, lines.at(-1) as string].join('\n');
}

/** A porcelain code as the handoff's file status. */
export function gitStatusOf(code: string): HandoffFileTouched['status'] {
  if (code === '??') return 'untracked';
  if (code.includes('R')) return 'renamed';
  if (code.includes('D')) return 'deleted';
  if (code[0] === 'A') return 'created';
  return 'modified';
}

/** A git path as the handoff shows it: relative to cwd (both resolved, so symlinked temp dirs agree). */
export function relativeToCwd(realCwd: string, path: string): string {
  const rel = relative(realCwd, path);
  return rel === '' ? '.' : rel;
}
