/** The compaction summary's files (issue 32 item 1): a file a Bash command read or changed is one. */
import { describe, expect, it } from 'vitest';
import { offlineSummary } from '../../../../daemon/compaction/offline-summary.js';
import { transcript } from '../../../helpers/bash-session.js';

describe('the offline compaction summary, Files and Code Sections', () => {
  it('lists the files Bash commands read and changed, and no file of a failed command', () => {
    const { loaded } = transcript()
      .prompt('Check that cart.js computes the total right.')
      .bash('cat cart.js', 'export const total = (items) => items.reduce((s, i) => s + i.price, 0);')
      .bash("sed -i 's/i.price/i.price * i.qty/' cart.js", '')
      .bash('cat missing.js', 'Exit code 1\ncat: missing.js: No such file or directory')
      .reply('cart.js now multiplies by the quantity.');
    const summary = offlineSummary(loaded);
    expect(summary).toContain('- /home/u/shop/cart.js: read by Bash; edited by Bash');
    expect(summary).not.toContain('/home/u/shop/missing.js');
  });
});
