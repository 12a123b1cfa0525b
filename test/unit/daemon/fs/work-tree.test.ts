/** The daemon's working-tree rule against the shared table of hostile trees (test/helpers/work-tree-cases.ts). */
import { statSync } from 'node:fs';
import { readInWorkTree, writeInWorkTree } from '../../../../daemon/fs/work-tree.js';
import { describeWorkTreeRule, errorOutcome } from '../../../helpers/work-tree-cases.js';

describeWorkTreeRule('daemon/fs/work-tree.ts', {
  read: (root, relativePath) =>
    readInWorkTree(root, relativePath).then(
      (read) => (read.kind === 'file' ? { kind: 'file', text: read.text } : read),
      errorOutcome,
    ),
  write: (root, relativePath, content, newMode) =>
    writeInWorkTree(root, relativePath, content, newMode).then(
      (path) => ({ kind: 'written', mode: statSync(path).mode & 0o777 }),
      errorOutcome,
    ),
});
