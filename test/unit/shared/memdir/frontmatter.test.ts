import { describe, expect, it } from 'vitest';
import { type MemoryDocument, parseMemory, serializeMemory } from '../../../../shared/memdir/frontmatter.js';

const memory: MemoryDocument = {
  name: 'testing/flaky-tests',
  description: 'Which tests flake, and why',
  type: 'feedback',
  created: '2026-12-01T10:00:00.000Z',
  updated: '2026-12-02T11:30:00.000Z',
  content: 'Retry the socket tests once; never mark them skipped.\n',
};

describe('memory frontmatter', () => {
  it('writes the fields in order between --- lines, then the body', () => {
    expect(serializeMemory(memory)).toBe(
      '---\nname: testing/flaky-tests\ndescription: Which tests flake, and why\ntype: feedback\ncreated: 2026-12-01T10:00:00.000Z\nupdated: 2026-12-02T11:30:00.000Z\n---\nRetry the socket tests once; never mark them skipped.\n',
    );
  });

  it('reads back what it writes, whatever the text holds', () => {
    const tricky = [
      '',
      ' leading space',
      'a: b',
      'ends with:',
      'x #y',
      '[list]',
      '{map}',
      '%tag',
      '@at',
      '# not a comment',
      '"quoted"',
      'line\nbreak',
      '- dash',
      'ünïcødé ✓',
      "it's",
    ];
    for (const description of tricky) {
      const doc = { ...memory, description, name: `n${description.length}` };
      expect(parseMemory(serializeMemory(doc))).toEqual({ ok: true, memory: doc });
    }
    const noNewline = { ...memory, content: 'no newline at the end' };
    expect(parseMemory(serializeMemory(noNewline))).toMatchObject({
      ok: true,
      memory: { content: 'no newline at the end\n' },
    });
  });

  it('reads a hand-written file with plain values and CRLF lines, the times missing', () => {
    const parsed = parseMemory('---\r\nname: style\r\ndescription: House style\r\ntype: project\r\n---\r\nTabs.\r\n');
    expect(parsed).toMatchObject({
      ok: true,
      memory: { name: 'style', type: 'project', description: 'House style', created: '1970-01-01T00:00:00.000Z' },
    });
  });

  it('says why a file is not a memory', () => {
    expect(parseMemory('just text')).toEqual({ ok: false, reason: expect.stringContaining('no frontmatter') });
    expect(parseMemory('---\nname: x\ntype: project\n')).toEqual({
      ok: false,
      reason: expect.stringContaining('not closed'),
    });
    expect(parseMemory('---\nname: x\ntype: secret\n---\n')).toEqual({
      ok: false,
      reason: expect.stringContaining('type must be one of'),
    });
    expect(parseMemory('---\ntype: user\n---\n')).toEqual({ ok: false, reason: expect.stringContaining('no name') });
    expect(parseMemory('---\nname: x\ntype: user\njust words\n---\n')).toEqual({
      ok: false,
      reason: expect.stringContaining('not "key: value"'),
    });
    expect(parseMemory('---\nname: "x\ntype: user\n---\n')).toEqual({
      ok: false,
      reason: expect.stringContaining('not a valid quoted string'),
    });
  });
});
