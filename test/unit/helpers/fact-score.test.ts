import { describe, expect, it } from 'vitest';
import { type FactTruth, scoreText, sectionsOf, seededTruth } from '../../helpers/fact-score.js';
import { seededSession } from '../../helpers/seeded-facts.js';

const TRUTH: FactTruth = {
  cwd: '/repo',
  changed: [{ path: '/repo/src/cart.js', status: 'modified' }],
  touched: ['/repo/src/cart.js', '/repo/src/tax.js'],
  commands: ['tail -n 50 logs/build.log'],
  errors: ['AssertionError: expected 120 to equal 100'],
  todos: ['Add a test for refunds'],
  rules: ['Never touch package.json'],
  corrections: ['Never touch package.json.'],
  decisions: [{ text: 'store amounts as integer cents', key: ['integer cents'] }],
};

describe('scoreText', () => {
  it('counts what a faithful memory states as found and supported', () => {
    const text = [
      '# Current State',
      '- Pending: Add a test for refunds',
      '# Files and Functions',
      '- `/repo/src/cart.js` — edited',
      '- `src/tax.js` — read',
      '- `/repo/logs/build.log` — read by Bash',
      '# Errors & Corrections',
      '- Bash `npm test` failed (exit 1): AssertionError: expected 120 to equal 100',
      '  - Fixed: the same command succeeded later.',
      '- User correction: "Never touch package.json."',
      '## Constraints',
      'User rules, verbatim:',
      '- Never touch package.json.',
      '# Key results',
      '- Decision: we will store amounts as integer cents.',
    ].join('\n');
    const score = scoreText(text, TRUTH);
    for (const kind of ['files', 'errors', 'todos', 'rules', 'decisions'] as const) {
      expect(score[kind].found, kind).toBe(score[kind].seeded);
      expect(score[kind].unsupported, kind).toEqual([]);
    }
    expect(score.files.stated).toBe(3);
    expect(score.errors.stated).toBe(2); // the Fixed detail is part of its error, not a statement
  });

  it('flags the shapes issue 32 saw: the request as a correction, a pre-existing file as changed, the task as a rule, a done todo as pending', () => {
    const text = [
      '# Files and Functions',
      '- `package.json` — untracked',
      '- `src/cart.js` — read',
      '# Errors & Corrections',
      '- User correction: "Check that cart.js computes the total right."',
      '# Current State',
      '- Pending: Fix the total in src/cart.js',
      '## Constraints',
      '- Check that cart.js computes the total right.',
    ].join('\n');
    const score = scoreText(text, TRUTH);
    expect(score.files.unsupported).toEqual(['`package.json` — untracked']);
    expect(score.files.missed).toEqual(['src/cart.js (modified)']); // listed, but not as changed
    expect(score.errors.unsupported).toHaveLength(1);
    expect(score.todos.unsupported).toEqual(['Pending: Fix the total in src/cart.js']);
    expect(score.rules.unsupported).toEqual(['Check that cart.js computes the total right.']);
    expect(score.decisions.missed).toEqual(['store amounts as integer cents']);
  });

  it('reads numbered sections (the compaction summary) and table rows (the handoff)', () => {
    const sections = sectionsOf(
      [
        '3. Files and Code Sections:',
        '   - /repo/src/cart.js: edited',
        '## Files Touched',
        '| Path | Status |',
        '|---|---|',
        '| `src/a.js` | created |',
      ].join('\n'),
    );
    expect(sections.map((section) => [section.kind, section.items])).toEqual([
      ['files', ['/repo/src/cart.js: edited']],
      ['files', ['`src/a.js` | created |']],
    ]);
  });
});

describe('seededSession', () => {
  it('gives the same transcript and truth for the same seed, and different ones for another', () => {
    expect(seededSession(7).writer.text()).toBe(seededSession(7).writer.text());
    expect(seededSession(7).truth).toEqual(seededSession(7).truth);
    expect(seededSession(8).writer.text()).not.toBe(seededSession(7).writer.text());
  });

  it('seeds every kind, changes by Bash among them, and keeps the distractors out of the truth', () => {
    const session = seededSession(3);
    const truth = seededTruth(session);
    expect(truth.changed).toHaveLength(4);
    expect(truth.errors).toHaveLength(1);
    expect(truth.todos).toHaveLength(2);
    expect(truth.rules).toHaveLength(2);
    expect(truth.decisions).toHaveLength(2);
    const text = session.writer.text();
    expect(text).toContain('sed -i');
    expect(text).toMatch(/echo '[^']*' > src\//);
    expect(truth.changed.map((file) => file.path)).not.toContain(`${truth.cwd}/package.json`);
    expect(truth.corrections).not.toContain(session.truth.prompts[0]);
  });
});
