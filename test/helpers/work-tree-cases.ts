/**
 * One table of hostile working trees, run against both implementations of the no-symlink rule
 * (client/memctl/work-tree.ts, synchronous, for the hooks without a daemon; daemon/fs/work-tree.ts,
 * asynchronous), so that they cannot drift apart: each case prepares a tree, then reads or writes
 * one path in it, and both must come to the same outcome.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** What an implementation made of a read or a write, in the same words for both. */
export type Outcome =
  | { kind: 'file'; text: string }
  | { kind: 'absent' }
  | { kind: 'refused'; reason: string }
  | { kind: 'written'; mode: number }
  | { kind: 'error'; message: string };

/** Both implementations behind one face; `read` and `write` resolve to the outcome, never reject. */
export interface WorkTreeUnderTest {
  read(root: string, relativePath: string): Promise<Outcome>;
  write(root: string, relativePath: string, content: string, newMode: number): Promise<Outcome>;
}

/** The cap both implementations share (4 MiB): one byte over it. */
const OVER_CAP_BYTES = 4 * 1024 * 1024 + 1;
const NEW_MODE = 0o600;

interface Case {
  name: string;
  /** Makes the tree under `root`; `outside` is a directory beside it that must stay untouched. */
  prepare(root: string, outside: string): void;
  op: 'read' | 'write';
  path: string;
  expected: Outcome['kind'];
  /** What the reason or message says. */
  says?: RegExp;
  /** Checked after the operation: nothing was made or changed where it must not be. */
  after?(root: string, outside: string): void;
}

const SECRET = 'secret outside the tree';
const secretUntouched = (_root: string, outside: string) =>
  expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe(SECRET);

export const WORK_TREE_CASES: readonly Case[] = [
  {
    name: 'a plain file is read',
    prepare: (root) => {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/h.md'), 'hello');
    },
    op: 'read',
    path: 'docs/h.md',
    expected: 'file',
  },
  { name: 'a missing file is absent', prepare: () => {}, op: 'read', path: 'h.md', expected: 'absent' },
  {
    name: 'a missing directory on the way is absent',
    prepare: () => {},
    op: 'read',
    path: 'docs/h.md',
    expected: 'absent',
  },
  {
    name: 'a symlinked directory in the path is refused (read)',
    prepare: (root, outside) => symlinkSync(outside, join(root, 'docs')),
    op: 'read',
    path: 'docs/secret',
    expected: 'refused',
    says: /docs is a symlink/,
  },
  {
    name: 'a symlinked directory in the path is refused (write), nothing written through it',
    prepare: (root, outside) => symlinkSync(outside, join(root, 'docs')),
    op: 'write',
    path: 'docs/secret',
    expected: 'error',
    says: /docs is a symlink/,
    after: secretUntouched,
  },
  {
    name: 'a symlink at the leaf is refused (read)',
    prepare: (root, outside) => symlinkSync(join(outside, 'secret'), join(root, 'h.md')),
    op: 'read',
    path: 'h.md',
    expected: 'refused',
    says: /h\.md is a symlink/,
  },
  {
    name: 'a symlink at the leaf is refused (write), its target untouched',
    prepare: (root, outside) => symlinkSync(join(outside, 'secret'), join(root, 'h.md')),
    op: 'write',
    path: 'h.md',
    expected: 'error',
    says: /h\.md is a symlink/,
    after: secretUntouched,
  },
  {
    name: 'a dangling symlink at the leaf is refused (write), nothing made where it points',
    prepare: (root, outside) => symlinkSync(join(outside, 'planted'), join(root, 'h.md')),
    op: 'write',
    path: 'h.md',
    expected: 'error',
    says: /is a symlink/,
    after: (_root, outside) => expect(existsSync(join(outside, 'planted'))).toBe(false),
  },
  {
    name: 'a dangling symlinked directory is refused (write), no directory made through it',
    prepare: (root, outside) => symlinkSync(join(outside, 'planted'), join(root, 'docs')),
    op: 'write',
    path: 'docs/h.md',
    expected: 'error',
    says: /docs is a symlink/,
    after: (_root, outside) => expect(existsSync(join(outside, 'planted'))).toBe(false),
  },
  {
    name: 'a FIFO is refused without blocking (read)',
    prepare: (root) => execFileSync('mkfifo', [join(root, 'h.md')]),
    op: 'read',
    path: 'h.md',
    expected: 'refused',
    says: /not a regular file/,
  },
  {
    name: 'a FIFO is refused without blocking (write)',
    prepare: (root) => execFileSync('mkfifo', [join(root, 'h.md')]),
    op: 'write',
    path: 'h.md',
    expected: 'error',
    says: /not a regular file/,
  },
  {
    name: 'a directory where the file should be is refused',
    prepare: (root) => mkdirSync(join(root, 'h.md')),
    op: 'read',
    path: 'h.md',
    expected: 'refused',
    says: /not a regular file/,
  },
  {
    name: 'a file where a directory is expected is refused (read)',
    prepare: (root) => writeFileSync(join(root, 'docs'), 'a file'),
    op: 'read',
    path: 'docs/h.md',
    expected: 'refused',
    says: /docs is not a directory/,
  },
  {
    name: 'a file where a directory is expected is refused (write)',
    prepare: (root) => writeFileSync(join(root, 'docs'), 'a file'),
    op: 'write',
    path: 'docs/h.md',
    expected: 'error',
    says: /docs is not a directory/,
  },
  {
    name: '`..` is no path in the tree (read)',
    prepare: () => {},
    op: 'read',
    path: '../secret',
    expected: 'error',
    says: /not a plain relative path/,
  },
  {
    name: '`..` is no path in the tree (write)',
    prepare: () => {},
    op: 'write',
    path: 'docs/../../secret',
    expected: 'error',
    says: /not a plain relative path/,
    after: secretUntouched,
  },
  {
    name: 'an absolute path is no path in the tree',
    prepare: () => {},
    op: 'read',
    path: '/etc/hostname',
    expected: 'error',
    says: /not a plain relative path/,
  },
  {
    name: 'an empty component is no path in the tree',
    prepare: () => {},
    op: 'write',
    path: 'docs//h.md',
    expected: 'error',
    says: /not a plain relative path/,
  },
  {
    name: 'a file over the cap is refused, not read in part',
    prepare: (root) => {
      writeFileSync(join(root, 'h.md'), '');
      truncateSync(join(root, 'h.md'), OVER_CAP_BYTES);
    },
    op: 'read',
    path: 'h.md',
    expected: 'refused',
    says: /over 4194304/,
  },
  {
    name: 'a new file gets the new mode, in a directory made on the way',
    prepare: () => {},
    op: 'write',
    path: 'docs/h.md',
    expected: 'written',
    after: (root) => expect(statSync(join(root, 'docs/h.md')).mode & 0o777).toBe(NEW_MODE),
  },
  {
    name: 'an existing file keeps its mode',
    prepare: (root) => writeFileSync(join(root, 'h.md'), 'old', { mode: 0o640 }),
    op: 'write',
    path: 'h.md',
    expected: 'written',
    after: (root) => expect(readFileSync(join(root, 'h.md'), 'utf8')).toBe('new content'),
  },
];

/** The mode each written case must end with: the new mode, or the existing file's. */
const EXPECTED_MODE: Record<string, number> = {
  'an existing file keeps its mode': 0o640,
  'a new file gets the new mode, in a directory made on the way': NEW_MODE,
};

/** Runs the table against one implementation. */
export function describeWorkTreeRule(name: string, impl: WorkTreeUnderTest): void {
  describe(`the no-symlink rule of the working tree (${name})`, () => {
    let base: string | undefined;
    afterEach(() => {
      if (base !== undefined) rmSync(base, { recursive: true, force: true });
      base = undefined;
    });

    it.each(WORK_TREE_CASES)('$name', async (testCase) => {
      base = mkdtempSync(join(tmpdir(), 'memd-work-tree-'));
      const root = join(base, 'repo');
      const outside = join(base, 'outside');
      mkdirSync(root);
      mkdirSync(outside);
      writeFileSync(join(outside, 'secret'), SECRET);
      testCase.prepare(root, outside);
      const outcome =
        testCase.op === 'read'
          ? await impl.read(root, testCase.path)
          : await impl.write(root, testCase.path, 'new content', NEW_MODE);
      expect(outcome.kind).toBe(testCase.expected);
      if (testCase.says !== undefined)
        expect(outcome.kind === 'refused' ? outcome.reason : outcome.kind === 'error' ? outcome.message : '').toMatch(
          testCase.says,
        );
      if (outcome.kind === 'written') expect(outcome.mode).toBe(EXPECTED_MODE[testCase.name]);
      testCase.after?.(root, outside);
    });
  });
}

/** A thrown error as an outcome. */
export function errorOutcome(error: unknown): Outcome {
  return { kind: 'error', message: (error as Error).message };
}
