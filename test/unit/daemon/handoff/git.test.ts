import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  gitFacts,
  gitStatusOf,
  MAX_DIFF_STAT_LINES,
  MAX_PORCELAIN_LINES,
  parseStatus,
  shortStat,
} from '../../../../daemon/handoff/git.js';
import { isProcessAlive } from '../../../../daemon/lifecycle/instance-lock.js';
import { eventually } from '../../../helpers/sandbox.js';

describe('parseStatus', () => {
  it('reads the branch and the entries of porcelain v1 -z, renames with their source', () => {
    const output = [
      '## main...origin/main [ahead 1]',
      ' M src/a.ts',
      'R  new name.ts',
      'old name.ts',
      '?? notes.md',
      'D  gone.ts',
      'A  added.ts',
      '',
    ].join('\0');
    expect(parseStatus(output, '/repo')).toEqual({
      branch: 'main',
      porcelain: [' M src/a.ts', 'R  old name.ts -> new name.ts', '?? notes.md', 'D  gone.ts', 'A  added.ts'],
      entries: [
        { code: ' M', path: '/repo/src/a.ts', from: null },
        { code: 'R ', path: '/repo/new name.ts', from: '/repo/old name.ts' },
        { code: '??', path: '/repo/notes.md', from: null },
        { code: 'D ', path: '/repo/gone.ts', from: null },
        { code: 'A ', path: '/repo/added.ts', from: null },
      ],
    });
  });

  it('knows an unborn branch and a detached HEAD', () => {
    expect(parseStatus('## No commits yet on trunk\0', '/r').branch).toBe('trunk');
    expect(parseStatus('## HEAD (no branch)\0', '/r').branch).toBeNull();
    expect(parseStatus('## feature/x\0', '/r').branch).toBe('feature/x');
  });

  it('keeps at most MAX_PORCELAIN_LINES entries', () => {
    const output = Array.from({ length: MAX_PORCELAIN_LINES + 50 }, (_, n) => `?? f${n}`).join('\0');
    expect(parseStatus(output, '/r').porcelain).toHaveLength(MAX_PORCELAIN_LINES);
  });

  it('maps porcelain codes to the handoff statuses', () => {
    expect([' M', 'MM', '??', 'R ', ' D', 'A ', 'AM', 'UU'].map(gitStatusOf)).toEqual([
      'modified',
      'modified',
      'untracked',
      'renamed',
      'deleted',
      'created',
      'created',
      'modified',
    ]);
  });
});

describe('shortStat', () => {
  it('keeps the first files and the summary line of a long diff --stat', () => {
    const files = Array.from({ length: 100 }, (_, n) => ` f${n} | 1 +`);
    const stat = [...files, ' 100 files changed, 100 insertions(+)'].join('\n');
    const short = shortStat(stat).split('\n');
    expect(short).toHaveLength(MAX_DIFF_STAT_LINES);
    expect(short.at(-2)).toBe(` … ${100 - (MAX_DIFF_STAT_LINES - 2)} more files`);
    expect(short.at(-1)).toBe(' 100 files changed, 100 insertions(+)');
    expect(shortStat(' a | 1 +\n 1 file changed')).toBe(' a | 1 +\n 1 file changed');
  });
});

describe('gitFacts', () => {
  it('is null outside a repository and when git cannot be run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-handoff-git-'));
    try {
      // GIT_CEILING_DIRECTORIES keeps git from finding a repository above the temp dir.
      const previous = process.env.GIT_CEILING_DIRECTORIES;
      process.env.GIT_CEILING_DIRECTORIES = tmpdir();
      try {
        expect(await gitFacts(dir)).toBeNull();
      } finally {
        if (previous === undefined) delete process.env.GIT_CEILING_DIRECTORIES;
        else process.env.GIT_CEILING_DIRECTORIES = previous;
      }
      expect(await gitFacts(dir, { git: join(dir, 'missing-git') })).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A git on a hung mount: rev-parse answers, status and diff never do, and the child each starts
 * keeps git's stdout open (killing git alone would leave the pipe open and the caller waiting).
 */
function hangingGit(dir: string): { git: string; children: () => number[] } {
  const git = join(dir, 'git');
  const pids = join(dir, 'children');
  writeFileSync(
    git,
    `#!/bin/sh\ncase " $* " in *" rev-parse "*) echo ${dir}; exit 0 ;; esac\nsleep 600 &\necho $! >> ${pids}\nwait\n`,
  );
  chmodSync(git, 0o755);
  const children = () => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return { git, children };
}

/** Killed: gone, or a zombie its new parent (pid 1 here) has not reaped yet. */
function isGone(pid: number): boolean {
  if (!isProcessAlive(pid)) return true;
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('gitFacts against a git that hangs', () => {
  it('answers at the deadline that git did not answer, and kills what git started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-handoff-git-'));
    try {
      const { git, children } = hangingGit(dir);
      const started = Date.now();
      const facts = await gitFacts(dir, { git, timeoutMs: 300 });
      // Well under the 600 s the children would hold the pipe for.
      expect(Date.now() - started).toBeLessThan(300 + 3_000);
      expect(facts).toEqual({
        unanswered: expect.stringMatching(/^`git (status|diff --stat)` did not answer within 300 ms and was stopped$/),
      });
      expect(children()).toHaveLength(2);
      await eventually(() => children().every(isGone), 'the hanging git children to be killed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops at once when the caller aborts, children included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-handoff-git-'));
    try {
      const { git, children } = hangingGit(dir);
      const abort = new AbortController();
      const facts = gitFacts(dir, { git, timeoutMs: 60_000, signal: abort.signal });
      await eventually(() => children().length === 2, 'git status and diff to start');
      abort.abort();
      // A cancelled run is no fact about the repository: null, and the caller reports the cancel.
      expect(await facts).toBeNull();
      await eventually(() => children().every(isGone), 'the hanging git children to be killed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
