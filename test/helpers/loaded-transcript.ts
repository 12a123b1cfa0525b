/**
 * Hand-written sessions as loaded entries for the offline summarizers' tests, and the section
 * texts of a session memory.
 */
import { expect } from 'vitest';
import type { LoadedEntry } from '../../daemon/compact/content.js';
import { templateSections } from '../../daemon/summarize/memory-template.js';
import type { IndexedEntry } from '../../shared/transcript/types.js';

export const HEADINGS = templateSections().map((section) => section.heading);

/** Section texts (heading included) by their place in the template, checking the order. */
export function sections(text: string, headings: readonly string[] = HEADINGS): string[] {
  const at = headings.map((heading) => text.indexOf(`${heading}\n`));
  at.forEach((position, index) => expect(position, headings[index]).toBeGreaterThan(index === 0 ? -1 : (at[index - 1] as number)));
  return at.map((position, index) => text.slice(position, (at[index + 1] ?? text.length + 2) - 2));
}

export function indexed(type: string, uuid: string): IndexedEntry {
  return {
    offset: 0, length: 0, type, subtype: null, uuid, parentUuid: null, logicalParentUuid: null, timestamp: null, sessionId: 's', chars: 0, estTokens: 0,
    messageId: type === 'assistant' ? uuid : null, requestId: null, model: null, usage: null, toolUses: [], toolResults: [], isSidechain: false, isMeta: false,
    isCompactSummary: false, cwd: '/repo', gitBranch: 'main', title: null, compact: null,
  };
}

/** A synthetic transcript, built turn by turn. */
export function transcript() {
  const loaded: LoadedEntry[] = [];
  let serial = 0;
  const push = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) => {
    const uuid = `${type[0]}${serial++}`;
    loaded.push({ entry: indexed(type, uuid), raw: { type, uuid, message: { role: type, content }, ...extra } });
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
    /** A tool call and its result; a result starting "Exit code N" is a failure, as Claude Code writes it. */
    tool(name: string, input: Record<string, unknown>, result = 'ok', meta?: unknown) {
      const id = `toolu_${serial}`;
      push('assistant', [{ type: 'tool_use', id, name, input }]);
      const failed = /^Exit code [1-9]/.test(result);
      push('user', [{ type: 'tool_result', tool_use_id: id, content: result, ...(failed ? { is_error: true } : {}) }], meta === undefined ? {} : { toolUseResult: meta });
      return builder;
    },
  };
  return builder;
}

