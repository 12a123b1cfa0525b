import { describe, expect, it } from 'vitest';
import {
  buildIndex,
  INDEX_MAX_CHARS,
  INDEX_MAX_LINES,
  type IndexedMemory,
  indexLine,
} from '../../../../shared/memdir/index-file.js';

const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 0, minute)).toISOString();

describe('MEMORY.md', () => {
  it('lists one line per memory, newest first, with its link and description', () => {
    const built = buildIndex([
      { name: 'style', description: 'House style', updated: at(1) },
      { name: 'testing/flaky tests', description: 'Which tests\nflake', updated: at(3) },
      { name: 'deploy', description: '', updated: at(2) },
    ]);
    expect(built.text).toBe(
      '- [testing/flaky tests](<testing/flaky tests.md>) — Which tests flake\n- [deploy](deploy.md)\n- [style](style.md) — House style\n',
    );
    expect(built).toMatchObject({ lines: 3, dropped: 0, chars: built.text.length });
  });

  it('escapes brackets in a name so the link stays a link', () => {
    expect(indexLine({ name: 'a]b', description: '', updated: at(0) })).toBe('- [a\\]b](a]b.md)');
  });

  it('leaves out the oldest beyond 200 lines, with a note that counts them', () => {
    const many: IndexedMemory[] = Array.from({ length: 250 }, (_, n) => ({
      name: `m${n}`,
      description: 'd',
      updated: at(n),
    }));
    const built = buildIndex(many);
    const lines = built.text.trimEnd().split('\n');
    expect(lines).toHaveLength(INDEX_MAX_LINES);
    expect(lines[0]).toBe('- [m249](m249.md) — d');
    expect(lines.at(-1)).toContain('51 older memories are not listed');
    expect(built.dropped).toBe(51);
  });

  it('keeps within 25,000 characters however long the descriptions are', () => {
    const long: IndexedMemory[] = Array.from({ length: 40 }, (_, n) => ({
      name: `m${n}`,
      description: 'x'.repeat(1_000),
      updated: at(n),
    }));
    const built = buildIndex(long);
    expect(built.chars).toBeLessThanOrEqual(INDEX_MAX_CHARS);
    expect(built.dropped).toBeGreaterThan(0);
    expect(built.text.trimEnd().split('\n').at(-1)).toContain(`${built.dropped} older memories`);
  });

  it('is empty for no memories', () => {
    expect(buildIndex([])).toEqual({ text: '', lines: 0, chars: 0, dropped: 0 });
  });
});
