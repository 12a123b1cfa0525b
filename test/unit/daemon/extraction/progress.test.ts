/**
 * The files of the offline session memory (issue 32 item 1): a Bash command that reads, writes or
 * removes a file makes it a file of the session, as a file tool does.
 */
import { describe, expect, it } from 'vitest';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import { fileEntries } from '../../../../daemon/extraction/progress.js';
import { readTranscript } from '../../../../daemon/transcripts/facts.js';
import { transcript } from '../../../helpers/bash-session.js';

const section = (memory: string, heading: string) =>
  memory.slice(memory.indexOf(`${heading}\n`)).split('\n\n# ')[0] ?? '';

describe('the files of the offline session memory', () => {
  it('"Files and Functions" names the file `cat cart.js` read, not "None yet."', () => {
    const { loaded } = transcript()
      .prompt('Check that cart.js computes the total right. Never touch package.json.')
      .bash('cat cart.js', 'export const total = (items) => items.reduce((s, i) => s + i.price, 0);')
      .reply('cart.js sums the prices but ignores the quantities.');
    const files = section(offlineSessionMemory({ loaded }), '# Files and Functions');
    expect(files).toContain('- `/home/u/shop/cart.js` — read');
    expect(files).not.toContain('None yet.');
    expect(files).not.toContain('package.json');
  });

  it('Bash writes, edits and removals give each file its final status; failed commands name none', () => {
    const { loaded } = transcript()
      .bash("sed -i 's/price/price * qty/' cart.js", '')
      .bash('echo "# Notes" > notes.md && cat notes.md', '# Notes')
      .bash('cp cart.js cart.bak.js && rm cart.bak.js', '')
      .bash('cat missing.js', 'Exit code 1\ncat: missing.js: No such file or directory')
      .bash('git diff -- cart.js', 'diff --git a/cart.js b/cart.js');
    const { calls, cwd } = readTranscript(loaded);
    const entries = [...fileEntries(calls, cwd).values()].map((file) => `${file.path} ${file.status}`);
    expect(entries).toEqual([
      '/home/u/shop/cart.js edited',
      '/home/u/shop/notes.md written',
      '/home/u/shop/cart.bak.js deleted',
    ]);
  });
});
