import { describe, expect, it } from 'vitest';
import { HANDOFF_RELATIVE_PATH, ignoresPath, withIgnoredPath } from '../../../../shared/handoff/gitignore.js';

describe('ignoresPath', () => {
  const ignoring = [
    'docs',
    'docs/',
    '/docs',
    '/docs/',
    'docs/*',
    'docs/*.md',
    'docs/**',
    '**/docs',
    '**/handoff-context.md',
    'handoff-context.md',
    '*.md',
    'handoff-*.md',
    'docs/handoff-context.md',
    '/docs/handoff-context.md',
    'd?cs/',
    'doc[st]/',
    '# c\ndocs/handoff-context.md   ',
    '!docs/handoff-context.md\ndocs/',
  ];
  it.each(ignoring)('%j ignores the handoff', (text) => {
    expect(ignoresPath(text)).toBe(true);
  });

  const notIgnoring = [
    '',
    '# docs/',
    'doc',
    '/handoff-context.md',
    'other/docs/',
    'docs/handoff-context.md/',
    'docs/*.txt',
    '\\#docs',
    'docs/*\n!docs/handoff-context.md',
    '*.md\n!handoff-context.md',
    'src/docs/',
  ];
  it.each(notIgnoring)('%j does not', (text) => {
    expect(ignoresPath(text)).toBe(false);
  });

  it('a file under an ignored directory stays ignored whatever later lines say', () => {
    expect(ignoresPath('docs/\n!docs/handoff-context.md')).toBe(true);
  });

  it('takes CRLF line ends', () => {
    expect(ignoresPath('node_modules\r\ndocs/\r\n')).toBe(true);
  });
});

describe('withIgnoredPath', () => {
  it('appends the line once, on a line of its own', () => {
    expect(withIgnoredPath(null)).toBe(`${HANDOFF_RELATIVE_PATH}\n`);
    expect(withIgnoredPath('node_modules')).toBe(`node_modules\n${HANDOFF_RELATIVE_PATH}\n`);
    const once = withIgnoredPath('node_modules\n') as string;
    expect(once).toBe(`node_modules\n${HANDOFF_RELATIVE_PATH}\n`);
    expect(withIgnoredPath(once)).toBeNull();
    expect(withIgnoredPath('docs/\n')).toBeNull();
  });
});
