import { describe, expect, it } from 'vitest';
import { markedSnippet, SNIPPET_CHARS } from '../../../../daemon/search/snippet.js';

describe('markedSnippet', () => {
  it('goes where most of the terms are, not to the first match (a written file found by a function of it, issue 28)', () => {
    const text = `Write /shop/tests/test_refund.py\n${'def test_refund_case(client):\n    assert client.refund().ok\n'.repeat(40)}def test_refund_retries_after_gateway_timeout(client):\n    pass\n`;
    const snippet = markedSnippet(text, ['test', 'refund', 'retries', 'after', 'gateway', 'timeout']);
    expect(snippet).toContain('«test»_«refund»_«retries»_«after»_«gateway»_«timeout»');
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS + 60);
  });

  it('keeps to the first match when no window holds more terms, and to the start when none matches', () => {
    expect(markedSnippet(`${'x '.repeat(300)}alpha ${'y '.repeat(300)}alpha`, ['alpha'])).toMatch(/^….*«alpha» y/);
    expect(markedSnippet('no match here', ['zebra'])).toBe('no match here');
  });

  it('marks whole words only, folded as the index folds them, and prefixes', () => {
    expect(markedSnippet('Café retries, a retry and preretry', ['cafe', 'retry'])).toBe(
      '«Café» retries, a «retry» and preretry',
    );
    expect(markedSnippet('the retrying job retried', ['retr*'])).toBe('the «retrying» job «retried»');
  });

  it('marks no piece of a word the window cuts', () => {
    const snippet = markedSnippet(
      `${'pad '.repeat(100)}alphabeta ${'pad '.repeat(10)}beta gamma beta gamma`,
      ['beta', 'gamma'],
      60,
    );
    expect(snippet).not.toMatch(/«beta»(?=[a-z])|[a-z]«beta»/);
    expect(snippet).toContain('«beta» «gamma»');
  });
});
