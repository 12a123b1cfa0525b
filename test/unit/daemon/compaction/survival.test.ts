import { describe, expect, it } from 'vitest';
import { sessionFacts, survivalOf } from '../../../../daemon/compaction/survival.js';
import type { Call, TranscriptFacts } from '../../../../daemon/transcripts/facts.js';

const CWD = '/home/user/src/shop';

let at = 0;
function call(
  name: string,
  input: Record<string, unknown>,
  result: { text: string; failed?: boolean; meta?: unknown },
) {
  at += 2;
  return {
    name,
    input,
    at,
    result: { failed: result.failed ?? false, exit: null, text: result.text, at: at + 1, meta: result.meta ?? null },
  } satisfies Call;
}

/** A session that changed two files, failed a test run then fixed it, set rules, todos and a decision. */
function session(): TranscriptFacts {
  return {
    prompts: [
      { at: 0, text: 'Fix the total in cart.js. Never touch package.json. Always run npm test before committing.' },
    ],
    replies: [{ at: 1, text: 'I read the code. We will use decimal.js for money instead of floats.' }],
    calls: [
      call('Read', { file_path: `${CWD}/cart.js` }, { text: 'const total = ...' }),
      call('Edit', { file_path: `${CWD}/cart.js`, old_string: 'a', new_string: 'b' }, { text: 'ok' }),
      call('Write', { file_path: `${CWD}/src/money.js`, content: 'x' }, { text: 'ok', meta: { type: 'create' } }),
      call(
        'Bash',
        { command: 'npm test' },
        { text: 'Exit code 1\nAssertionError: expected 0.30000000000000004 to equal 0.3', failed: true },
      ),
      call('Bash', { command: 'npm test' }, { text: 'all passed' }),
      call(
        'TodoWrite',
        {
          todos: [
            { content: 'Fix rounding in cart total', status: 'completed' },
            { content: 'Add a test for discounts on empty carts', status: 'pending' },
          ],
        },
        { text: 'ok' },
      ),
    ],
    summaries: [],
    cwd: CWD,
    branch: 'main',
  };
}

describe('the facts a survival score counts', () => {
  it('reads files changed with status, errors with their fix, rules verbatim, open todos and decisions', () => {
    const facts = sessionFacts(session()).map(({ kind, text }) => ({ kind, text }));
    expect(facts).toEqual([
      { kind: 'file', text: 'cart.js (modified)' },
      { kind: 'file', text: 'src/money.js (created)' },
      { kind: 'error', text: 'AssertionError: expected 0.30000000000000004 to equal 0.3 (fixed)' },
      { kind: 'rule', text: 'Never touch package.json.' },
      { kind: 'rule', text: 'Always run npm test before committing.' },
      { kind: 'todo', text: 'Add a test for discounts on empty carts' },
      { kind: 'decision', text: 'We will use decimal.js for money instead of floats.' },
    ]);
  });
});

describe('which facts survived', () => {
  const facts = sessionFacts(session());

  it('keeps every fact a summary states, verbatim or in other words, and counts them', () => {
    const summary = [
      '## Files and Functions',
      '- `cart.js`: total now uses decimal arithmetic',
      '- src/money.js: new helper',
      '## Errors & Corrections',
      '- npm test failed: AssertionError: expected 0.30000000000000004 to equal 0.3; fixed with decimal.js',
      '## User rules, verbatim',
      '- "Never touch package.json."',
      '- "Always run `npm test` before committing."',
      '## Pending tasks',
      '- add a test for discounts on empty carts',
      '## Key results',
      '- Decided to use decimal.js for money rather than floats',
    ].join('\n');
    const survival = survivalOf(facts, summary);
    expect(survival.items.filter((item) => !item.kept)).toEqual([]);
    expect({ kept: survival.kept, lost: survival.lost }).toEqual({ kept: 7, lost: 0 });
  });

  it('names what a thin summary lost, the lost first', () => {
    const survival = survivalOf(facts, 'The user asked to fix cart.js. Tools used: Read ×1, Edit ×1, Bash ×2.');
    expect({ kept: survival.kept, lost: survival.lost }).toEqual({ kept: 1, lost: 6 });
    expect(survival.items.map((item) => [item.kind, item.kept])).toEqual([
      ['file', false],
      ['error', false],
      ['rule', false],
      ['rule', false],
      ['todo', false],
      ['decision', false],
      ['file', true],
    ]);
  });

  it('does not take a longer name or a passing mention of a few words for the fact', () => {
    const survival = survivalOf(facts, 'Edited old-cart.js and src/money.jsx. The user mentioned package.json once.');
    expect(survival.kept).toBe(0);
  });
});
