/**
 * The offline session memory on transcripts it was not tuned to (issue 12 part 6): the key line of
 * an error found by its shape at the end of a long output, no code or old headings as bullets, no
 * pending item that later work finished, one entry per file with its final status. The outputs
 * are written here in the shapes test runners and compilers print them.
 */
import { describe, expect, it } from 'vitest';
import { offlineSessionMemory } from '../../../../daemon/summarize/offline-memory.js';
import { errorKeyLine } from '../../../../daemon/summarize/transcript-facts.js';
import { SUMMARY_SECTIONS } from '../../../../daemon/summarize/compact-summary.js';
import { sections, transcript } from '../../../helpers/loaded-transcript.js';

const many = (count: number, line: (n: number) => string) => Array.from({ length: count }, (_, n) => line(n)).join('\n');

/** Failing outputs and the key line each must yield; early lines carry words like "error" and "fail" that are not the failure. */
const OUTPUTS: [string, string, string][] = [
  [
    'pytest, assertion',
    [
      'Exit code 1',
      '============================= test session starts ==============================',
      'platform linux -- Python 3.12.1, pytest-8.0.0',
      'collected 312 items',
      '',
      many(40, (n) => `tests/test_error_pages_${n}.py ........                                      [ ${n}%]`),
      'tests/test_cart.py ....F...                                              [ 99%]',
      '',
      '=================================== FAILURES ===================================',
      '________________________________ test_total ____________________________________',
      '',
      '    def test_total():',
      '        cart = Cart([Item(1), Item(2)])',
      '>       assert cart.total() == 4',
      'E       AssertionError: assert 3 == 4',
      'E        +  where 3 = <bound method Cart.total of <cart.Cart object>>()',
      '',
      'tests/test_cart.py:12: AssertionError',
      '=========================== short test summary info ============================',
      'FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4',
      '======================== 1 failed, 311 passed in 2.41s =========================',
    ].join('\n'),
    'FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4',
  ],
  [
    'unittest, not raised',
    [
      'Exit code 1',
      many(60, (n) => `test_error_case_${n} (tests.test_errors.ErrorsTest) ... ok`),
      'test_rejects_negative (tests.test_price.PriceTest) ... FAIL',
      '',
      '======================================================================',
      'FAIL: test_rejects_negative (tests.test_price.PriceTest)',
      '----------------------------------------------------------------------',
      'Traceback (most recent call last):',
      '  File "/repo/tests/test_price.py", line 9, in test_rejects_negative',
      '    with self.assertRaises(ValueError):',
      'AssertionError: ValueError not raised',
      '',
      '----------------------------------------------------------------------',
      'Ran 61 tests in 0.012s',
      '',
      'FAILED (failures=1)',
    ].join('\n'),
    'AssertionError: ValueError not raised',
  ],
  [
    'tsc',
    [
      'Exit code 2',
      '> shop@1.0.0 build',
      '> tsc -p tsconfig.json && node scripts/check-error-codes.js',
      '',
      many(30, (n) => `Compiling src/errors/handler-${n}.ts`),
      "src/cart.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
      '',
      'Found 1 error in src/cart.ts:12',
    ].join('\n'),
    "src/cart.ts(12,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
  ],
  [
    'node stack trace',
    [
      'Exit code 1',
      many(20, (n) => `[info] loaded error-reporter plugin ${n}`),
      '/repo/src/cart.js:3',
      '  return cart.total();',
      '              ^',
      '',
      'TypeError: cart.total is not a function',
      '    at checkout (/repo/src/cart.js:3:15)',
      '    at Object.<anonymous> (/repo/src/main.js:7:1)',
      '    at Module._compile (node:internal/modules/cjs/loader:1256:14)',
      '',
      'Node.js v20.20.0',
    ].join('\n'),
    'TypeError: cart.total is not a function',
  ],
  [
    'vitest',
    [
      'Exit code 1',
      many(25, (n) => ` ✓ test/errors-${n}.test.ts (3 tests) 4ms`),
      ' ❯ test/cart.test.ts (2 tests | 1 failed) 6ms',
      '   × cart > applies the discount 3ms',
      '',
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      '',
      ' FAIL  test/cart.test.ts > cart > applies the discount',
      'AssertionError: expected 90 to be 81 // Object.is equality',
      ' ❯ test/cart.test.ts:14:25',
      '',
      ' Test Files  1 failed | 25 passed (26)',
      '      Tests  1 failed | 76 passed (77)',
    ].join('\n'),
    'AssertionError: expected 90 to be 81 // Object.is equality',
  ],
  [
    'cargo test',
    [
      'Exit code 101',
      many(15, (n) => `   Compiling error-chain-${n} v0.1.${n}`),
      'running 4 tests',
      'test tests::parses ... ok',
      'test tests::adds ... FAILED',
      '',
      'failures:',
      '',
      '---- tests::adds stdout ----',
      "thread 'tests::adds' panicked at src/lib.rs:10:5:",
      'assertion `left == right` failed',
      '  left: 3',
      ' right: 4',
      '',
      'test result: FAILED. 3 passed; 1 failed; 0 ignored',
    ].join('\n'),
    "thread 'tests::adds' panicked at src/lib.rs:10:5:",
  ],
  [
    'go test',
    ['Exit code 1', many(10, (n) => `=== RUN   TestErrorPath${n}\n--- PASS: TestErrorPath${n} (0.00s)`), '=== RUN   TestTotal', '    cart_test.go:12: got 3, want 4', '--- FAIL: TestTotal (0.00s)', 'FAIL', 'FAIL\tshop/cart\t0.004s'].join('\n'),
    '--- FAIL: TestTotal (0.00s)',
  ],
];

describe('the key line of an error, by its shape', () => {
  it.each(OUTPUTS)('%s', (_what, output, key) => {
    expect(errorKeyLine(output)).toBe(key);
  });

  it.each(OUTPUTS)('%s: the key line is in Errors & Corrections', (_what, output, key) => {
    const loaded = transcript().prompt('Make the tests pass').tool('Bash', { command: 'make check' }, output).loaded;
    const errors = sections(offlineSessionMemory({ loaded }))[5] ?? '';
    expect(errors).toContain(`- Bash \`make check\` failed (exit ${/^Exit code (\d+)/.exec(output)?.[1]}): ${key}`);
  });

  it('never picks a stack frame, a banner or a quoted source line', () => {
    expect(errorKeyLine('Exit code 1\n    at run (/a.js:1:1)\n=== FAILURES ===\n>   assert f() == 2\nsomething broke here')).toBe('something broke here');
  });
});

/** A compaction summary as a model writes it: numbered sections, sub-headings and code blocks. */
function modelSummary(pending: string[]): string {
  const body: Record<number, string[]> = {
    1: ['The user asked to fix cart totals.'],
    3: ['### src/cart.ts', '- src/cart.ts: applyDiscount rounds per line', '```ts', 'export function applyDiscount(total: number) {', '  return Math.round(total * 0.9);', '}', '```', 'const TAX = 0.2;'],
    7: pending.map((item) => `- ${item}`),
  };
  return SUMMARY_SECTIONS.map((title, index) => [`${index + 1}. ${title}:`, ...(body[index + 1] ?? ['- none'])].join('\n')).join('\n\n');
}

function compacted(pending: string[]) {
  const session = transcript();
  session.loaded.push({
    entry: { ...(transcript().prompt('x').loaded[0]?.entry as never), isCompactSummary: true, cwd: '/repo' },
    raw: { type: 'user', message: { role: 'user', content: `This session is being continued from a previous conversation.\n\n${modelSummary(pending)}` } },
  });
  return session;
}

describe('what the memory is made of', () => {
  it('carries no code lines or sub-headings from a model summary, and no code from a reply', () => {
    const loaded = compacted([])
      .prompt('Continue')
      .reply('Done. The fix:\n```ts\nconst total = items.reduce((sum, item) => sum + item.price, 0);\n```\nTotals round once now.')
      .loaded;
    const memory = offlineSessionMemory({ loaded });
    const bullets = memory.split('\n').filter((line) => line.startsWith('- '));
    for (const bullet of bullets) {
      expect(bullet).not.toMatch(/```|^- #{1,6} |^- (?:export |const |return |\})/);
    }
    expect(memory).toContain('- src/cart.ts: applyDiscount rounds per line');
    expect(memory).toContain('Last assistant text: Done. The fix: Totals round once now.');
  });

  it('drops a pending item that later work finished', () => {
    const loaded = compacted(['Add a regression test for zero-quantity lines', 'Update src/format.ts to round once', 'Document the discount rules'])
      .prompt('Go on')
      .tool('Edit', { file_path: '/repo/src/format.ts', old_string: 'a', new_string: 'b' }, 'updated')
      .tool('Write', { file_path: '/repo/tests/test_zero.py', content: 'def test_zero(): pass' }, 'created')
      .tool('Bash', { command: 'pytest tests -q' }, '12 passed in 0.2s', { exitCode: 0 })
      .loaded;
    const current = sections(offlineSessionMemory({ loaded }))[1] ?? '';
    expect(current).toContain('Pending at the last compaction: Document the discount rules');
    expect(current).not.toContain('zero-quantity');
    expect(current).not.toContain('src/format.ts');
  });

  it('lists each file once with its final status, however the summary named it', () => {
    const loaded = compacted([])
      .prompt('Finish the cart')
      .tool('Read', { file_path: '/repo/src/cart.ts' })
      .tool('Edit', { file_path: '/repo/src/cart.ts', old_string: 'a', new_string: 'function applyDiscount() {}' }, 'updated')
      .tool('Write', { file_path: '/repo/scratch.txt', content: 'notes' }, 'created')
      .tool('Bash', { command: 'rm -f scratch.txt' }, '', { exitCode: 0 })
      .loaded;
    loaded.forEach((item) => (item.entry = { ...item.entry, cwd: '/repo' }));
    const files = (sections(offlineSessionMemory({ loaded }))[3] ?? '').split('\n').filter((line) => line.startsWith('- '));
    expect(files.filter((line) => line.includes('src/cart.ts'))).toEqual(['- `/repo/src/cart.ts` — edited, read; defines `applyDiscount`']);
    expect(files).toContain('- `/repo/scratch.txt` — deleted (was written)');
  });
});
