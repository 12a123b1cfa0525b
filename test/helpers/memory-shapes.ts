/**
 * Short sessions in Claude Code 2.1.197's shape (our own text) for the shapes issue 32 saw the
 * offline session memory get wrong: a first request holding a rule, read by `cat`; a correction
 * after the agent acted; a request with rule words that is no rule. Written with TranscriptWriter.
 */
import { type IngestedSession, ingestWritten } from './compact.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from './real-shapes.js';

export const SHAPES_CWD = '/home/user/src/shop';
const VERSION = '2.1.197';

export interface MemoryShape {
  sessionId: string;
  prompts: string[];
  writer: TranscriptWriter;
}

/** A one-request session: the request (with a rule) and one `cat`, then the finding. */
export function cartSession(): MemoryShape {
  const sessionId = '3c2a7e10-5b1d-4c6e-9f00-000000000032';
  const writer = new TranscriptWriter({ sessionId, cwd: SHAPES_CWD, version: VERSION });
  const prompts = [
    'Check that cart.js computes the total right, with the 10% discount on orders over 100. Never touch package.json.',
  ];
  writer.prompt(prompts[0] as string);
  writer.toolRound(
    'Bash',
    { command: 'cat cart.js', description: 'Show cart.js' },
    'function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\nmodule.exports = { total };',
    growingUsage(1),
    "I'll read cart.js.",
  );
  writer.response(
    [{ type: 'text', text: 'total() ignores the discount: an order of 120 comes to 120 instead of 108.' }],
    growingUsage(2),
  );
  return { sessionId, prompts, writer };
}

/** The request, an edit, the user's correction of it, a fix, then a standing rule and a task with rule words inside. */
export function correctedSession(): MemoryShape {
  const sessionId = '3c2a7e10-5b1d-4c6e-9f00-000000000033';
  const writer = new TranscriptWriter({ sessionId, cwd: SHAPES_CWD, version: VERSION });
  const file = `${SHAPES_CWD}/cart.js`;
  const prompts = [
    'Fix the total in cart.js so it always rounds to cents.',
    "No, that's wrong: round once at the end, not per item. Use Math.round on the total instead.",
    'Good. From now on, only change cart.js and its test. Prefer small commits.',
    'Add a test for an empty cart, and do not add dependencies.',
  ];
  writer.prompt(prompts[0] as string);
  writer.toolRound(
    'Edit',
    { file_path: file, old_string: 'sum + item.price', new_string: 'sum + Math.round(item.price * 100) / 100' },
    `The file ${file} has been updated successfully.`,
    growingUsage(1),
  );
  writer.response([{ type: 'text', text: 'Each price is now rounded to cents.' }], growingUsage(2));
  writer.prompt(prompts[1] as string);
  writer.toolRound(
    'Edit',
    { file_path: file, old_string: 'sum + Math.round(item.price * 100) / 100', new_string: 'sum + item.price' },
    `The file ${file} has been updated successfully.`,
    growingUsage(3),
  );
  writer.response([{ type: 'text', text: 'The total is rounded once, at the end.' }], growingUsage(4));
  writer.prompt(prompts[2] as string);
  writer.response([{ type: 'text', text: 'Understood.' }], growingUsage(5));
  writer.prompt(prompts[3] as string);
  writer.toolRound(
    'Write',
    { file_path: `${SHAPES_CWD}/test/cart.test.js`, content: "test('empty cart', () => {});\n" },
    `File created successfully at: ${SHAPES_CWD}/test/cart.test.js`,
    growingUsage(6),
  );
  writer.response([{ type: 'text', text: 'Added the empty-cart test.' }], growingUsage(7));
  return { sessionId, prompts, writer };
}

/** Writes the shape under `<dir>/projects` and indexes it. */
export async function ingestShape(dir: string, shape: MemoryShape): Promise<IngestedSession> {
  writeTranscript(mainPath(`${dir}/projects`, SHAPES_CWD, shape.sessionId), shape.writer);
  return ingestWritten(dir, shape.sessionId);
}
