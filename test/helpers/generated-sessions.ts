/**
 * Main transcripts in Claude Code's shapes, generated from a seed, for compaction tests: API
 * rounds of tool calls (parallel ones too) whose results run from a few lines to 90K-char Reads,
 * thinking now and then, typed prompts between rounds when asked, and optionally a compaction
 * first: a compact_boundary, the summary user entry (isCompactSummary), then rounds that go on
 * with no new prompt, as Claude Code continues after an auto-compaction in the middle of a task.
 * Every response records the usage of its request: `tokensPerEstimate` times JSON length / 4 of
 * what it was sent, plus the request's overhead (system prompt, tools: 3K unless the shape says).
 * The same shape gives the same bytes.
 */

import { type Line, mainPath, type ResponseUsage, TranscriptWriter, writeTranscript } from './real-shapes.js';
import { seededRandom } from './seeded-random.mjs';

export interface SessionShape {
  seed: number;
  /** Tool rounds after the first prompt (or after the summary). */
  rounds: number;
  /** Starts after an auto-compaction: the boundary, the summary, then rounds with no new prompt. */
  compacted: boolean;
  /** Now and then the assistant answers in text and the user types the next prompt. */
  prompts: boolean;
  /** The newest round: three parallel 90K-char Reads, answered; the request that was too large. */
  bigReads: boolean;
  /** Input tokens each response records per JSON-length / 4 token of the messages it was sent. */
  tokensPerEstimate: number;
  /** What every request carries besides its messages; Claude Code's own run 21K to 41K. */
  overheadTokens?: number;
}

export interface GeneratedSession {
  sessionId: string;
  cwd: string;
  writer: TranscriptWriter;
  shape: SessionShape;
}

const SYSTEM_PROMPT_TOKENS = 3_000; // what a short system prompt and a few tool definitions cost
const BIG_READ_CHARS = 90_000; // three of them in one message are the example
export const SUMMARY_OPENING = 'This session is being continued from a previous conversation that ran out of context.';

const WORDS = [
  'charge',
  'retry',
  'budget',
  'key',
  'store',
  'expire',
  'ledger',
  'refund',
  'invoice',
  'gateway',
  'amount',
  'cents',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** `chars` of Read output: numbered source lines, as Claude Code's Read returns them. */
function readOutput(random: () => number, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let n = 1; length < chars; n++) {
    const line = `${String(n).padStart(6)}\t    ${pick(random, WORDS)}_${n} = ${pick(random, WORDS)}(${pick(random, WORDS)}, ${Math.floor(random() * 1000)})`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

function bashOutput(random: () => number, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let n = 0; length < chars; n++) {
    const line = `${n} INFO ${pick(random, WORDS)} handled in ${Math.floor(random() * 90)}ms ${'.'.repeat(Math.floor(random() * 40))}`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n').slice(0, chars - 20)}\nFAILED: 1 of ${chars % 97} tests`;
}

/** Mostly small results, some medium, a few large (up to the 90K of a big Read). */
function resultChars(random: () => number): number {
  const draw = random();
  if (draw < 0.7) return 100 + Math.floor(random() * 1_900);
  if (draw < 0.9) return 2_000 + Math.floor(random() * 18_000);
  return 20_000 + Math.floor(random() * 70_000);
}

export function generateSession(shape: SessionShape): GeneratedSession {
  const random = seededRandom(shape.seed);
  const hex = (shape.seed >>> 0).toString(16).padStart(8, '0');
  const sessionId = `${hex}-5e55-4000-8000-${hex.padStart(12, '0')}`;
  const cwd = `/home/user/src/payments-${shape.seed}`;
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.197' });
  // JSON length of what the next request carries, as memd builds it (close enough: one message per line).
  let sent = 0;
  const track = (line: Line) => {
    const message = line.message as { role: string; content: unknown };
    // memd sends a typed prompt as a text block: count it so, as the API would be sent it.
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    sent += JSON.stringify({ role: message.role, content }).length + 1;
  };
  const usage = (): ResponseUsage => {
    const total = Math.ceil((sent / 4) * shape.tokensPerEstimate) + (shape.overheadTokens ?? SYSTEM_PROMPT_TOKENS);
    const cacheWrite = Math.floor(total / 10);
    return { input: 3, cacheWrite, cacheRead: total - 3 - cacheWrite, output: 150 + Math.floor(random() * 300) };
  };
  const respond = (blocks: Line[]) => {
    const { entries } = writer.response(blocks, usage());
    entries.forEach(track);
  };
  const results = (calls: { id: string; text: string }[]) => {
    for (const call of calls) track(writer.toolResult(call.id, call.text));
  };
  let toolCounter = 0;
  const toolRound = (calls: { name: string; input: Line; text: string }[], lead: string | null) => {
    const withIds = calls.map((call) => ({ ...call, id: `toolu_g${hex}${String(++toolCounter).padStart(5, '0')}` }));
    const blocks: Line[] = [];
    if (random() < 0.15)
      blocks.push({
        type: 'thinking',
        thinking: `The ${pick(random, WORDS)} path needs checking first.`,
        signature: `sig${toolCounter}`,
      });
    if (lead !== null) blocks.push({ type: 'text', text: lead });
    for (const call of withIds) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
    respond(blocks);
    results(withIds);
  };
  const randomCall = (n: number) => {
    const chars = resultChars(random);
    const kind = random();
    if (kind < 0.5)
      return {
        name: 'Read',
        input: { file_path: `${cwd}/src/${pick(random, WORDS)}_${n}.py` },
        text: readOutput(random, chars),
      };
    if (kind < 0.8)
      return {
        name: 'Bash',
        input: { command: `python3 -m unittest tests/test_${n}.py` },
        text: bashOutput(random, chars),
      };
    return {
      name: 'Grep',
      input: { pattern: `${pick(random, WORDS)}_${n}` },
      text: `src/${pick(random, WORDS)}.py:${n}: ${pick(random, WORDS)}`,
    };
  };

  if (shape.compacted) {
    // What came before the boundary is not in the active conversation; it is there as on disk.
    track(writer.prompt('Add idempotency keys to create_charge'));
    toolRound([randomCall(0)], 'Let me look.');
    const boundaryUuid = String(writer.compactBoundary(180_000, `${hex}-0000-4000-9000-000000000001`).uuid);
    sent = 0;
    const summary = `${SUMMARY_OPENING} The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent:\n   Idempotency keys for create_charge (seed ${shape.seed}).\n\n9. Optional Next Step:\n   Keep going with the ${pick(random, WORDS)} tests.`;
    track(writer.user(summary, { parentUuid: boundaryUuid, isCompactSummary: true, isVisibleInTranscriptOnly: true }));
  } else {
    track(writer.prompt(`Fix the ${pick(random, WORDS)} rounding bug in create_charge (seed ${shape.seed})`));
  }
  for (let n = 1; n <= shape.rounds; n++) {
    const parallel = random() < 0.6 ? 1 : random() < 0.6 ? 2 : 3;
    toolRound(
      Array.from({ length: parallel }, (_, index) => randomCall(n * 10 + index)),
      random() < 0.5 ? 'Let me check.' : null,
    );
    if (shape.prompts && random() < 0.2) {
      respond([{ type: 'text', text: `Round ${n} is done: the ${pick(random, WORDS)} tests pass.` }]);
      track(writer.prompt(`Now make the ${pick(random, WORDS)} handling strict (step ${n})`));
    }
  }
  if (shape.bigReads) {
    toolRound(
      [0, 1, 2].map((index) => ({
        name: 'Read',
        input: { file_path: `${cwd}/data/ledger-${index}.csv` },
        text: readOutput(random, BIG_READ_CHARS),
      })),
      'Reading the three ledgers.',
    );
  } else if (random() < 0.5) {
    respond([{ type: 'text', text: 'All tests pass now.' }]);
  }
  return { sessionId, cwd, writer, shape };
}

export function writeGeneratedSession(projectsDir: string, session: GeneratedSession): void {
  writeTranscript(mainPath(projectsDir, session.cwd, session.sessionId), session.writer);
}
