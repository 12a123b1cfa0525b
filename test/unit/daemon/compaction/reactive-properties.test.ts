/**
 * Reactive compaction over every fixture and generated sessions, for limits from the stated
 * minimum up to the session's size: the result always fits, is valid Messages API input, keeps
 * the summary, the first prompt and the newest assistant message, drops only the oldest rounds
 * and previews only the newest round's results; one token below the minimum it refuses, saying
 * that minimum. The tally is printed for the record (issue 12 part 3).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionConversation } from '../../../../daemon/transcripts/conversation.js';
import { estimateMessageTokens, toMessageParams } from '../../../../daemon/transcripts/messages.js';
import { RpcError } from '../../../../shared/protocol/errors.js';
import type { ContentBlock, MessageParam } from '../../../../shared/protocol/messages.js';
import type { CompactionResult } from '../../../../shared/protocol/results.js';
import { compactionService, ingestFixture, ingestWritten, type IngestedSession } from '../../../helpers/compact.js';
import { generateSession, writeGeneratedSession, type SessionShape } from '../../../helpers/generated-sessions.js';
import { SCENARIOS } from '../../../helpers/ingest.js';
import { validateMessagesRequest } from '../../../helpers/messages-api.js';

const DEFAULT_MARGIN = 4 / 3;
const STEPS = 24; // limits tried between the minimum and the size, besides the edges
const RATES = [1, 1.2, 4 / 3, 1.5, 2];

const SHAPES: SessionShape[] = [
  ...Array.from({ length: 16 }, (_, index) => {
    const seed = index + 1;
    return { seed, rounds: 5 + ((seed * 7) % 36), compacted: seed % 2 === 0, prompts: seed % 3 !== 0, bigReads: seed % 4 < 2, tokensPerEstimate: RATES[seed % RATES.length] as number };
  }),
  // The smallest: the summary and the three Reads alone; a first prompt and one answer.
  { seed: 101, rounds: 0, compacted: true, prompts: false, bigReads: true, tokensPerEstimate: 1 },
  { seed: 102, rounds: 0, compacted: false, prompts: false, bigReads: false, tokensPerEstimate: 1 },
];

const tally = { sessions: 0, cases: 0, fit: 0, refusedInRange: 0, refusedBelow: 0 };
afterAll(() => {
  console.log(
    `reactive sweep: ${tally.sessions} sessions, ${tally.cases} (session, limit) cases: ${tally.fit} fit, ${tally.refusedInRange} refused at or above the stated minimum, ${tally.refusedBelow} refused one token below it`,
  );
});

function tokensAt(messages: readonly MessageParam[], factor: number): number {
  return Math.ceil((JSON.stringify(messages).length * factor) / 4);
}

/** The margin the documentation promises: max(4/3, newest response's input tokens / estimate of what it was sent). */
function documentedMargin(conversation: SessionConversation): number {
  const usage = new Map(conversation.loaded.map(({ entry }) => [entry.uuid, entry.usage]));
  const { messages } = conversation;
  for (let index = messages.length - 1; index > 0; index--) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    for (const uuid of message.uuids) {
      const recorded = usage.get(uuid);
      const input = recorded ? recorded.input + recorded.cacheCreation + recorded.cacheRead : 0;
      if (input > 0) return Math.max(DEFAULT_MARGIN, input / estimateMessageTokens(toMessageParams(messages.slice(0, index))));
    }
  }
  return DEFAULT_MARGIN;
}

function texts(content: string | ContentBlock[]): string[] {
  if (typeof content === 'string') return [content];
  return content.flatMap((block) => (block.type === 'text' ? [(block as { text: string }).text] : []));
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function checkResult(conversation: SessionConversation, result: CompactionResult, limit: number, margin: number, rate: number | null): void {
  const before = toMessageParams(conversation.messages);
  const after = result.messages;
  expect(validateMessagesRequest({ model: 'claude-sonnet-4-5-20250929', max_tokens: 1024, messages: after })).toEqual([]);
  const estimate = result.estimate as { tokens: number; margin: number };
  expect(estimate.margin).toBeCloseTo(margin, 9);
  expect(estimate.tokens).toBe(tokensAt(after, estimate.margin));
  expect(estimate.tokens).toBeLessThanOrEqual(limit);
  // A generated session's API counts `rate` per estimated token: it must fit at that rate too.
  if (rate !== null) expect(tokensAt(after, rate)).toBeLessThanOrEqual(limit);
  if (conversation.active.boundary !== null) expect(texts(after[0]?.content ?? '')[0]).toContain('This session is being continued');
  const firstPrompt = conversation.messages.find((message) => message.isPrompt);
  const kept = new Set(after.flatMap((message) => texts(message.content)));
  for (const text of firstPrompt ? texts(firstPrompt.content) : []) expect(kept.has(text)).toBe(true);
  // Whole rounds go, oldest first: the assistant messages kept are the newest, unchanged.
  const assistants = (messages: MessageParam[]) => messages.filter((message) => message.role === 'assistant').map(json);
  const keptAssistants = assistants(after);
  expect(keptAssistants.length).toBeGreaterThan(before.length > 1 ? 0 : -1);
  expect(keptAssistants).toEqual(assistants(before).slice(assistants(before).length - keptAssistants.length));
  // Only the newest round's results are previewed; every other block is as it was.
  const previewed = result.actions.filter((action) => action.kind === 'previewed').map((action) => action.id);
  const newestUser = before.length > 1 && before.at(-1)?.role === 'user' ? before.at(-1) : undefined;
  const newestResults = new Set(
    Array.isArray(newestUser?.content) ? newestUser.content.flatMap((block) => (block.type === 'tool_result' ? [(block as { tool_use_id: string }).tool_use_id] : [])) : [],
  );
  for (const id of previewed) expect(newestResults.has(id)).toBe(true);
  if (limit >= tokensAt(before, margin)) {
    expect(result.actions).toEqual([]);
    expect(after).toEqual(before);
  }
}

function limitsFrom(minimum: number, size: number): number[] {
  const limits = new Set([minimum, minimum + 1, size - 1, size, size + 1]);
  for (let step = 1; step < STEPS; step++) limits.add(Math.round(minimum + ((size - minimum) * step) / STEPS));
  return [...limits].filter((limit) => limit >= minimum).sort((a, b) => a - b);
}

async function sweep(session: IngestedSession, rate: number | null): Promise<void> {
  const service = compactionService(session);
  const conversation = await service.conversation(session.sessionId);
  const margin = documentedMargin(conversation);
  const size = tokensAt(toMessageParams(conversation.messages), margin);
  let minimum = 1;
  try {
    await service.reactive(session.sessionId, 1);
  } catch (error) {
    if (!(error instanceof RpcError) || error.kind !== 'LimitTooSmall') throw error;
    minimum = error.data.minimumTokens as number;
    expect(error.data.margin).toBeCloseTo(margin, 9);
  }
  tally.sessions += 1;
  if (minimum > 1) {
    tally.cases += 1;
    let refused: unknown = null;
    try {
      await service.reactive(session.sessionId, minimum - 1);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).data).toMatchObject({ kind: 'LimitTooSmall', minimumTokens: minimum, limitTokens: minimum - 1 });
    tally.refusedBelow += 1;
  }
  for (const limit of limitsFrom(minimum, size)) {
    tally.cases += 1;
    let result: CompactionResult;
    try {
      result = await service.reactive(session.sessionId, limit);
    } catch (error) {
      tally.refusedInRange += 1;
      throw new Error(`refused a limit of ${limit} at or above the minimum of ${minimum} (size ${size}): ${(error as Error).message}`);
    }
    checkResult(conversation, result, limit, margin, rate);
    tally.fit += 1;
  }
}

describe('reactive compaction fits every limit from the minimum up', () => {
  it.each(SCENARIOS)('on the %s fixture', async (scenario) => {
    const fixture = await ingestFixture(scenario);
    try {
      await sweep(fixture, null);
    } finally {
      fixture.close();
    }
  });

  it.each(
    SHAPES.map(
      (shape) =>
        [
          `${shape.seed}: ${shape.rounds} rounds${shape.compacted ? ', compacted' : ''}${shape.prompts ? ', prompts' : ''}${shape.bigReads ? ', 3×90K Reads last' : ''}, ×${shape.tokensPerEstimate.toFixed(2)}`,
          shape,
        ] as const,
    ),
  )('on generated session %s', async (_name, shape) => {
    const dir = mkdtempSync(join(tmpdir(), 'memd-reactive-sweep-'));
    const generated = generateSession(shape);
    writeGeneratedSession(join(dir, 'projects'), generated);
    const session = await ingestWritten(dir, generated.sessionId);
    try {
      await sweep(session, shape.tokensPerEstimate);
    } finally {
      session.close();
    }
  });
});
