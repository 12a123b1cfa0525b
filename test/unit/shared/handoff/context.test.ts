import { describe, expect, it } from 'vitest';
import {
  fitHandoff,
  HANDOFF_SECTION_PRIORITY,
  handoffContextBlock,
  SESSION_START_MAX_CHARS,
} from '../../../../shared/handoff/context.js';

const PATH = '/work/app/docs/handoff-context.md';
const section = (title: string, chars: number) => `## ${title}\n\n${'x'.repeat(chars)}`;
const handoff = (sections: string[]) =>
  ['# Handoff — session s — 2026-12-02T10:00:00.000Z — trigger: auto', '_Written by memd._', ...sections].join('\n\n');

describe('fitHandoff', () => {
  it('keeps a handoff that fits whole', () => {
    const text = handoff([section('Task', 10)]);
    expect(fitHandoff(text, 1_000)).toEqual({ text, omitted: [] });
  });

  it('keeps whole sections by priority, in the file order, and names those left out', () => {
    const text = handoff([
      section('Completed Tasks', 500),
      section('Current State', 300),
      section('Constraints', 100),
      section('Next Steps', 100),
    ]);
    const fitted = fitHandoff(text, 700);
    expect(fitted.omitted).toEqual(['Completed Tasks']);
    expect(fitted.text.indexOf('## Current State')).toBeLessThan(fitted.text.indexOf('## Constraints'));
    expect(fitted.text).toContain('## Next Steps');
    expect(fitted.text).not.toContain('_Written by memd._');
    expect(fitted.text.length).toBeLessThanOrEqual(700);
  });

  it('ranks every section memd writes', () => {
    expect(HANDOFF_SECTION_PRIORITY.slice(0, 3)).toEqual(['Constraints', 'Next Steps', 'Current State']);
  });
});

describe('handoffContextBlock', () => {
  it('fits a long handoff in the characters Claude Code keeps, the note after the quote', () => {
    const text = handoff([section('Files Touched', 20_000), section('Constraints', 200), section('Next Steps', 200)]);
    const block = handoffContextBlock(text, PATH, SESSION_START_MAX_CHARS, '[cut]');
    expect(block.length).toBeLessThanOrEqual(SESSION_START_MAX_CHARS);
    expect(block).toContain('## Constraints');
    expect(block).toContain('## Next Steps');
    expect(block.endsWith(`Files Touched. Read them in ${PATH}.]`)).toBe(true);
  });

  it('cuts inside the quote when not even one section fits', () => {
    const block = handoffContextBlock(handoff([section('Task', 50_000)]), PATH, SESSION_START_MAX_CHARS, '[cut]');
    expect(block.length).toBeLessThanOrEqual(SESSION_START_MAX_CHARS);
    expect(block).toMatch(/\[cut\]\n<<<end memd-data/);
  });
});
