/**
 * What git says about cwd, for the handoff's verifiable part: the branch, `git status --porcelain`
 * and `git diff --stat`. git runs without a shell, with a timeout, and with GIT_OPTIONAL_LOCKS=0
 * so that a status taken while Claude Code works never holds the index lock it may need. Not a
 * repo, or no git: null.
 */
import { execFile } from 'node:child_process';
import { isAbsolute, join, relative } from 'node:path';
import type { HandoffFileTouched } from '../../shared/protocol/handoff.js';

/** A git that hangs (a network filesystem, a huge repo) must not hold up the compaction. */
export const GIT_TIMEOUT_MS = 5_000;
/** Porcelain lines kept: an unignored build dir can list thousands; the first ones say enough. */
export const MAX_PORCELAIN_LINES = 200;
/** What git may print before it is cut off (execFile's maxBuffer). */
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** `git diff --stat` lines kept: one per file, then the summary line, which is always kept. */
export const MAX_DIFF_STAT_LINES = 60;

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
  /** Porcelain v1 lines (`XY path`, `XY from -> to`), paths relative to the top as git writes them. */
  porcelain: string[];
  entries: GitStatusEntry[];
  diffStat: string | null;
}

export interface GitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The git binary (tests point it at a missing one). */
  git?: string;
}

function run(args: readonly string[], cwd: string, options: GitOptions): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      options.git ?? 'git',
      args,
      {
        cwd,
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (error, stdout) => resolve(error === null ? stdout : null),
    );
  });
}

/** The branch from `## ` of `git status --branch`: `main...origin/main [ahead 1]`, `No commits yet on main`, `HEAD (no branch)`. */
function branchOf(line: string): string | null {
  const head = line.slice(3).replace(/^(?:No commits yet on|Initial commit on) /, '');
  if (head.startsWith('HEAD (no branch)')) return null;
  return head.split('...')[0]?.split(' ')[0] ?? null;
}

/** `git status --porcelain=v1 -z --branch` output: NUL-separated, a rename's source after its entry. */
export function parseStatus(output: string, top: string): { branch: string | null; porcelain: string[]; entries: GitStatusEntry[] } {
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

export async function gitFacts(cwd: string, options: GitOptions = {}): Promise<GitFacts | null> {
  const top = (await run(['rev-parse', '--show-toplevel'], cwd, options))?.trim();
  if (top === undefined || top === '' || !isAbsolute(top)) return null;
  const [status, diff] = await Promise.all([
    run(['status', '--porcelain=v1', '-z', '--branch'], cwd, options),
    // Against HEAD: staged and unstaged together. A repo without commits has no HEAD: null.
    run(['diff', '--stat', 'HEAD', '--'], cwd, options),
  ]);
  if (status === null) return null;
  const parsed = parseStatus(status, top);
  return { top, ...parsed, diffStat: diff === null || diff.trim() === '' ? null : shortStat(diff.trimEnd()) };
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
