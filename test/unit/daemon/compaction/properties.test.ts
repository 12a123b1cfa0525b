/**
 * Properties every compaction method keeps, over every fixture and generated sessions: roles
 * alternate from the user, every tool_use has its tool_result (and no result is orphaned), limits
 * hold, the same input gives the same output, and the input conversation is never modified.
 */
import { describe, expect, it } from 'vitest';
import { planCacheEdits } from '../../../../daemon/compaction/cache-edits.js';
import { planMicro } from '../../../../daemon/compaction/micro.js';
import { reactiveCompaction } from '../../../../daemon/compaction/reactive.js';
import { sessionMemoryCompaction } from '../../../../daemon/compaction/session-memory.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import {
  type ConversationMessage,
  estimateMessageTokens,
  toMessageParams,
  toolsArePaired,
} from '../../../../daemon/transcripts/messages.js';
import type { MessageParam } from '../../../../shared/protocol/messages.js';
import { ingestFixture, syntheticConversation } from '../../../helpers/compact.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

const MEMORY =
  '# Session Title\n_A short title_\n\nThe work so far\n\n# Current State\n_What is happening now_\n\nFixing things.\n';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function expectSendable(messages: MessageParam[]): void {
  expect(messages[0]?.role).toBe('user');
  for (const [index, message] of messages.entries())
    if (index > 0) expect(message.role).not.toBe(messages[index - 1]?.role);
  expect(toolsArePaired(messages)).toBe(true);
}

/** Every method on one conversation; each result checked, each run twice. */
function checkAll(messages: ConversationMessage[], loaded: LoadedEntry[], now: number): void {
  deepFreeze(messages);
  deepFreeze(loaded);
  const runs: [string, () => MessageParam[]][] = [
    [
      'micro',
      () => toMessageParams(planMicro(messages, loaded, { now, toolResultsDir: '/nonexistent/tool-results' }).messages),
    ],
    [
      'session-memory',
      () =>
        toMessageParams(
          sessionMemoryCompaction(messages, { memory: MEMORY, lastSummarizedUuid: null })?.messages ?? [],
        ),
    ],
    [
      'reactive',
      () => {
        const limit = Math.ceil(estimateMessageTokens(toMessageParams(messages)) * 0.6);
        try {
          const result = toMessageParams(reactiveCompaction(messages, limit).messages);
          expect(estimateMessageTokens(result)).toBeLessThanOrEqual(limit);
          return result;
        } catch (error) {
          expect((error as Error).message).toMatch(/over the limit/);
          return toMessageParams(messages);
        }
      },
    ],
  ];
  for (const [name, run] of runs) {
    const first = run();
    expect(run(), name).toEqual(first);
    if (first.length > 0) expectSendable(first);
  }
  const plan = planCacheEdits(messages, { triggerTokens: 100_000, price: null });
  expect(planCacheEdits(messages, { triggerTokens: 100_000, price: null })).toEqual(plan);
}

describe('compaction properties', () => {
  it.each(SCENARIOS)('hold for every method on %s', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    try {
      const conversation = fixture.conversation();
      checkAll(conversation.messages, conversation.loaded, Date.parse('2026-12-01T00:00:00Z'));
    } finally {
      fixture.close();
    }
  });

  it.each([5, 40, 150])('hold for every method on a generated session of %i rounds', (rounds) => {
    checkAll(syntheticConversation(rounds, 6_000), [], Date.parse('2026-12-01T00:00:00Z'));
  });

  it('session-memory compaction keeps 10,000 to 40,000 tokens of a long session', () => {
    const messages = syntheticConversation(200, 6_000);
    const result = sessionMemoryCompaction(messages, { memory: MEMORY, lastSummarizedUuid: null });
    const from = messages.findIndex((message) => message.uuids.includes(result?.keptFromUuid ?? ''));
    expect(from).toBeGreaterThan(0);
    const tokens = estimateMessageTokens(toMessageParams(messages.slice(from)));
    expect(tokens).toBeGreaterThanOrEqual(10_000);
    expect(tokens).toBeLessThanOrEqual(40_000);
  });
});
