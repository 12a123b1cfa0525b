/**
 * A transcript in Claude Code 2.1.197's shape for the file facts of issue 32: prompts, replies and
 * Bash calls with their results, every entry in /home/u/shop.
 */
import type { LoadedEntry } from '../../daemon/transcripts/entries.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

export const SHOP = '/home/u/shop';

/** An index row of a transcript line written by hand: neutral defaults, the line's type, uuid and cwd. */
export function indexed(type: string, uuid: string, cwd = SHOP): IndexedEntry {
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
    cwd,
    gitBranch: 'main',
    title: null,
    compact: null,
  };
}

/** A transcript in Claude Code 2.1.197's shape: a failed Bash result starts "Exit code N" and has is_error. */
export function transcript() {
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
