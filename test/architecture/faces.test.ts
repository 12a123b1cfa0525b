/**
 * A folder with a face is reached through it only: other folders import the files it names and
 * none of the others, which stay free to move and split (issue 30: ingest lent its insides to
 * five folders). Checked on the real tree, and on a fake import list that breaks the rule once.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectImports, type Import } from './imports.js';

/** Folder → the files other folders may import from it. */
const FACES: Record<string, readonly string[]> = {
  // search-line.ts apart from index.ts: the snippet reader runs in search processes, which must not load the ingestor and chokidar.
  'daemon/ingest/': ['daemon/ingest/index.ts', 'daemon/ingest/search-line.ts'],
};

const REPO_ROOT = resolve(import.meta.dirname, '../..');

function faceViolations(imports: readonly Import[]): string[] {
  const found: string[] = [];
  for (const [folder, face] of Object.entries(FACES)) {
    for (const { from, to } of imports) {
      if (to.startsWith(folder) && !from.startsWith(folder) && !face.includes(to))
        found.push(`${from} imports ${to}: ${folder} is reached through ${face.join(', ')}`);
    }
  }
  return found;
}

describe('faces', () => {
  it('the real tree reaches every folder with a face through it', () => {
    expect(faceViolations(collectImports(REPO_ROOT))).toEqual([]);
  });

  it('an import of a file behind the face is reported, one of the face and within the folder are not', () => {
    const imports: Import[] = [
      { from: 'daemon/search/builder.ts', to: 'daemon/ingest/chunk-parser.ts' },
      { from: 'daemon/search/builder.ts', to: 'daemon/ingest/index.ts' },
      { from: 'daemon/ingest/index.ts', to: 'daemon/ingest/chunk-parser.ts' },
    ];
    expect(faceViolations(imports)).toEqual([
      expect.stringContaining('daemon/search/builder.ts imports daemon/ingest/chunk-parser.ts'),
    ]);
  });
});
