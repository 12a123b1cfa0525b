import { describe, expect, it } from 'vitest';
import { toMessageParams, toolsArePaired } from '../../../../daemon/transcripts/messages.js';
import { ingestFixture } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

describe('the active conversation as API messages', () => {
  it.each(SCENARIOS)(
    '%s: starts with the user, alternates roles, pairs every tool_use, has no empty text',
    async (scenario) => {
      const fixture = await ingestFixture(scenario);
      try {
        const conversation = fixture.conversation();
        const messages = toMessageParams(conversation.messages);
        expect(messages.length).toBeGreaterThan(0);
        expect(messages[0]?.role).toBe('user');
        for (const [index, message] of messages.entries())
          if (index > 0) expect(message.role).not.toBe(messages[index - 1]?.role);
        expect(toolsArePaired(messages)).toBe(true);
        for (const message of messages) {
          for (const block of message.content as { type: string; text?: string }[])
            if (block.type === 'text') expect(block.text?.trim()).not.toBe('');
        }
        // Split entries of one response are one message: no message id appears twice.
        const ids = conversation.messages
          .filter((message) => message.messageId !== null)
          .map((message) => message.messageId);
        expect(new Set(ids).size).toBe(ids.length);
        // Every tool call of the active conversation survives, with its result.
        const uses = conversation.loaded.flatMap(({ entry }) => entry.toolUses.map((use) => use.id));
        const answered = new Set(
          conversation.loaded.flatMap(({ entry }) => entry.toolResults.map((result) => result.id)),
        );
        const kept = new Set(
          messages.flatMap((message) =>
            (message.content as { type: string; id?: string }[])
              .filter((block) => block.type === 'tool_use')
              .map((block) => block.id),
          ),
        );
        for (const id of uses) if (answered.has(id)) expect(kept.has(id)).toBe(true);
      } finally {
        fixture.close();
      }
    },
  );
});
