/**
 * The files of the offline session memory (issue 32 item 1): a Bash command that reads, writes or
 * removes a file makes it a file of the session, as a file tool does.
 */
import { describe, expect, it } from 'vitest';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import { fileEntries } from '../../../../daemon/extraction/progress.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { readTranscript } from '../../../../daemon/transcripts/facts.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';

function indexed(type: string, uuid: string): IndexedEntry {
  return {
    offset: 0,
    length: 0,
    type,
    subtype: null,
    uuid,
    parentUuid: null,
    logicalParentUuid: null,
    timestamp: null,
    sessionId: 's',
    chars: 0,
    estTokens: 0,
    messageId: type === 'assistant' ? uuid : null,
    requestId: null,
    model: null,
    usage: null,
    toolUses: [],
    toolResults: [],
    isSidechain: false,
    isMeta: false,
    isCompactSummary: false,
    cwd: '/home/u/shop',
    gitBranch: 'main',
    title: null,
    compact: null,
  };
}

/** A transcript in Claude Code 2.1.197's shape: a failed Bash result starts "Exit code N" and has is_error. */
function transcript() {
  const loaded: LoadedEntry[] = [];
  let serial = 0;
  const push = (type: 'user' | 'assistant', content: unknown) => {
    const uuid = `${type[0]}${serial++}`;
    loaded.push({ entry: indexed(type, uuid), raw: { type, uuid, message: { role: type, content } } });
  };
  const builder = {
    loaded,
    prompt(text: string) {
      push('user', text);
      return builder;
    },
    reply(text: string) {
      push('assistant', [{ type: 'text', text }]);
      return builder;
    },
    bash(command: string, result: string) {
      const id = `toolu_${serial}`;
      push('assistant', [{ type: 'tool_use', id, name: 'Bash', input: { command } }]);
      const failed = /^Exit code [1-9]/.test(result);
      push('user', [{ type: 'tool_result', tool_use_id: id, content: result, ...(failed ? { is_error: true } : {}) }]);
      return builder;
    },
  };
  return builder;
}

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
