import { describe, expect, it } from 'vitest';
import { estimateMargin } from '../../../../daemon/compaction/calibration.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { buildMessages, estimateMessageTokens, toMessageParams } from '../../../../daemon/transcripts/messages.js';
import { attachmentTexts, DEFAULT_ESTIMATE_MARGIN } from '../../../../shared/transcript/tokens.js';
import type { Usage } from '../../../../shared/transcript/types.js';
import { indexedEntry } from '../../../helpers/compact.js';

function usage(input: number, cacheCreation: number, cacheRead: number): Usage {
  return { input, output: 50, cacheCreation, cacheRead, cache5m: 0, cache1h: cacheCreation };
}

function user(uuid: string, content: unknown): LoadedEntry {
  return { entry: indexedEntry({ uuid }), raw: { type: 'user', uuid, message: { role: 'user', content } } };
}

function assistant(uuid: string, text: string, recorded: Usage | null): LoadedEntry {
  return {
    entry: indexedEntry({ type: 'assistant', uuid, messageId: `msg_${uuid}`, usage: recorded }),
    raw: { type: 'assistant', uuid, message: { role: 'assistant', id: `msg_${uuid}`, content: [{ type: 'text', text }] } },
  };
}

describe('the estimate margin', () => {
  it('is the newest response’s input + cache tokens over the estimate of what it was sent', () => {
    const loaded = [user('u1', 'x'.repeat(4_000)), assistant('a1', 'Done.', usage(10, 1_000, 2_000)), user('u2', 'Next one.'), assistant('a2', 'Also done.', usage(5, 500, 4_000))];
    const messages = buildMessages(loaded, attachmentTexts);
    const sent = estimateMessageTokens(toMessageParams(messages.slice(0, 3)));
    expect(estimateMargin(messages, loaded)).toEqual({ margin: 4_505 / sent, measured: 4_505 / sent });
  });

  it('skips responses that recorded no usage (Claude Code’s synthetic ones), and never goes below 4/3', () => {
    const loaded = [user('u1', 'x'.repeat(4_000)), assistant('a1', 'Done.', usage(1, 0, 1_000)), user('u2', 'Next one.'), assistant('a2', 'No response requested.', usage(0, 0, 0))];
    const messages = buildMessages(loaded, attachmentTexts);
    const measured = 1_001 / estimateMessageTokens(toMessageParams(messages.slice(0, 1)));
    expect(measured).toBeLessThan(DEFAULT_ESTIMATE_MARGIN);
    expect(estimateMargin(messages, loaded)).toEqual({ margin: DEFAULT_ESTIMATE_MARGIN, measured });
    expect(
      estimateMargin(
        messages,
        loaded.map(({ entry, raw }) => ({ entry: { ...entry, usage: null }, raw })),
      ),
    ).toEqual({ margin: DEFAULT_ESTIMATE_MARGIN, measured: null });
  });
});
