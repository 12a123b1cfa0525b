import { describe, expect, it } from 'vitest';
import { sentencesOf, userRules, verbatimRules } from '../../../../shared/handoff/rules.js';

describe('userRules', () => {
  it('quotes rules and ruled-out approaches sentence by sentence, each once', () => {
    const prompts = [
      'Write src/extract.js with extractPrices(html).',
      'No — never use regex to parse HTML. Use the parser in lib/htmlparser.js instead.',
      'Good. From now on, always run npm test before committing.',
      "Don't touch package-lock.json.\nThat approach didn't work, so stop using sed for this.",
      'Make docs/flags.md a table instead of a list.',
      'Return the original charge instead of charging again.',
      'From now on, always run npm test before committing.',
      `Log: ${'never '.repeat(100)}`,
    ];
    expect(userRules(prompts)).toEqual({
      constraints: [
        'Use the parser in lib/htmlparser.js instead.',
        'From now on, always run npm test before committing.',
        "Don't touch package-lock.json.",
      ],
      ruledOut: ['No — never use regex to parse HTML.', "That approach didn't work, so stop using sed for this."],
    });
  });

  it('splits sentences at their ends, not inside paths or numbers', () => {
    expect(sentencesOf('Use lib/htmlparser.js instead. Version 1.2 is fine! Ok?\nNext line')).toEqual([
      'Use lib/htmlparser.js instead.',
      'Version 1.2 is fine!',
      'Ok?',
      'Next line',
    ]);
  });
});

describe('verbatimRules', () => {
  it('keeps only quotes that are in a prompt word for word and are not known yet', () => {
    const prompts = ['Fix the pagination in src/crawl.js first.  Never   skip a page.'];
    expect(
      verbatimRules(
        ['Never skip a page.', 'Never skip pages.', 'Fix the pagination', 'Never skip a page.', ''],
        prompts,
        ['Fix the pagination in src/crawl.js first.'],
      ),
    ).toEqual(['Never skip a page.']);
  });
});
