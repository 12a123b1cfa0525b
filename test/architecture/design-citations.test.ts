/**
 * The docs stand on their own: DESIGN.md (the design contract memd was built to) is not in this
 * repository, so a doc may not send a reader to one of its sections (`DESIGN.md §5`); each doc that
 * names it says it is not here (issue 29).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

describe('the docs cite what the repository has', () => {
  it.each(DOCS)('%s sends no reader to a section of DESIGN.md', (path) => {
    const text = readFileSync(path, 'utf8');
    expect(text.match(/DESIGN\.md\s*§\s*\d+/g) ?? []).toEqual([]);
    if (text.includes('DESIGN.md')) expect(text.replace(/\s+/g, ' ')).toMatch(/not in this repository/);
  });
});
