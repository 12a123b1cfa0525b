import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SHARED = resolve(import.meta.dirname, '../../../../shared');
const DIR = join(SHARED, 'handoff');

describe('shared/handoff', () => {
  // memctl renders the partial handoff itself when no daemon answers: client code may import only shared/, and shared/ does no I/O.
  it.each(readdirSync(DIR).filter((name) => name.endsWith('.ts')))('%s imports nothing but shared/ modules', (name) => {
    const source = readFileSync(join(DIR, name), 'utf8');
    const specifiers = [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
      (match) => match[1] as string,
    );
    for (const specifier of specifiers) {
      expect(specifier.startsWith('.'), specifier).toBe(true);
      expect(resolve(DIR, specifier).startsWith(`${SHARED}/`), specifier).toBe(true);
    }
  });
});
