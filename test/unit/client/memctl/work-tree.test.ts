import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readInWorkTree, writeInWorkTree } from '../../../../client/memctl/work-tree.js';
import { describeWorkTreeRule, errorOutcome, type Outcome } from '../../../helpers/work-tree-cases.js';

/** Not the usual 022, so that following it shows. */
const USER_UMASK = 0o002;
const PRIVATE_FILE_MODE = 0o600;

describe("the hook's handoff in the working tree", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  it("makes docs/ as the user's mkdir would (their umask), the handoff itself private", () => {
    root = mkdtempSync(join(tmpdir(), 'memd-work-tree-'));
    const previous = process.umask(USER_UMASK);
    try {
      writeInWorkTree(root, 'docs/handoff-context.md', '# handoff\n', PRIVATE_FILE_MODE);
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(root, 'docs')).mode & 0o777).toBe(0o777 & ~USER_UMASK);
    expect(statSync(join(root, 'docs', 'handoff-context.md')).mode & 0o777).toBe(PRIVATE_FILE_MODE);
  });
});

describeWorkTreeRule('client/memctl/work-tree.ts', {
  read: async (root, relativePath): Promise<Outcome> => {
    try {
      const read = readInWorkTree(root, relativePath);
      return read.kind === 'file' ? { kind: 'file', text: read.text } : read;
    } catch (error) {
      return errorOutcome(error);
    }
  },
  write: async (root, relativePath, content, newMode): Promise<Outcome> => {
    try {
      return { kind: 'written', mode: statSync(writeInWorkTree(root, relativePath, content, newMode)).mode & 0o777 };
    } catch (error) {
      return errorOutcome(error);
    }
  },
});
