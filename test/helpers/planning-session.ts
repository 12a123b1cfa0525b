/**
 * A planning session in Claude Code 2.1.197's shape, our own text (issue 32: on a real 44K-token
 * planning session the compaction summary named the tools but not what was decided). The user
 * asks for a plan before any code; the agent reads the code, runs the tests once, proposes four
 * steps and two libraries with its recommendation; the user picks one and drops a step; the agent
 * states a decision of its own, records the plan in docs/plan.md and as a TodoWrite list, does
 * step 1 and runs its test. `expected` lists the facts a summary must carry, in the transcript's
 * words. Deterministic.
 */

import { join } from 'node:path';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from './real-shapes.js';

export const PLANNING_CWD = '/home/user/src/signup-api';
export const PLANNING_SESSION_ID = '5e0c1a2b-7d3f-4c1e-9a8b-2f6d4e8c0a11';

const PLAN_REPLY = `I have read the handler and the tests. Here is my plan:

1. Add a schema module \`src/validation/signup-schema.js\` that describes the signup body.
2. Validate \`req.body\` in \`src/routes/signup.js\` before the user is created, answering 400 with the field errors.
3. Add tests for a missing email, a short password and unknown fields in \`test/signup.test.js\`.
4. Document the error format in \`docs/api.md\`.

For the schema library there are two options:
- **zod**: no dependencies, readable errors.
- **joi**: mature, but heavier, and its errors need reshaping for our format.

I recommend zod because it has no dependencies and its \`safeParse\` result maps directly onto our 400 response. Which do you prefer?`;

const PLAN_FILE = `# Signup validation plan

Library: zod (chosen by the user; no dependencies, safeParse maps onto the 400 response).

1. Add a schema module \`src/validation/signup-schema.js\` that describes the signup body.
2. Validate \`req.body\` in \`src/routes/signup.js\` before the user is created, answering 400 with the field errors.
3. Add tests for a missing email, a short password and unknown fields in \`test/signup.test.js\`.

Step 4 (docs/api.md) is left out: the docs are being rewritten.
`;

export interface PlanningFacts {
  /** Sentences a summary quotes as decisions. */
  decisions: string[];
  /** The reason given for the chosen library. */
  reason: string;
  /** The recorded plan's steps, and where it was recorded. */
  plan: { source: string; steps: string[] };
  /** Check commands with the line that gives their last result. */
  checks: { command: string; passed: boolean; line: string }[];
}

export const PLANNING_FACTS: PlanningFacts = {
  decisions: [
    'Go with zod.',
    'The plan looks good, but skip step 4 for now — the docs are being rewritten.',
    "We'll go with one 400 response that lists every failing field, not just the first one, since the signup form shows errors per field.",
  ],
  reason:
    'I recommend zod because it has no dependencies and its `safeParse` result maps directly onto our 400 response.',
  plan: {
    source: `${PLANNING_CWD}/docs/plan.md`,
    steps: [
      'Add a schema module `src/validation/signup-schema.js` that describes the signup body.',
      'Validate `req.body` in `src/routes/signup.js` before the user is created, answering 400 with the field errors.',
      'Add tests for a missing email, a short password and unknown fields in `test/signup.test.js`.',
    ],
  },
  checks: [
    { command: 'npm test', passed: true, line: 'Tests: 12 passed, 12 total' },
    {
      command: 'npx vitest run test/signup-schema.test.js',
      passed: true,
      line: 'Tests 4 passed (4)',
    },
  ],
};

export function planningSession(): TranscriptWriter {
  const main = new TranscriptWriter({
    sessionId: PLANNING_SESSION_ID,
    cwd: PLANNING_CWD,
    version: '2.1.197',
    model: 'claude-opus-4-8',
  });
  let n = 0;
  const usage = () => growingUsage(n++);
  main.prompt(
    'We need input validation on the signup endpoint. Read the handler and the tests, then propose a plan before writing any code.',
  );
  main.toolRound(
    'Read',
    { file_path: `${PLANNING_CWD}/src/routes/signup.js` },
    '     1\texport async function signup(req, res) {\n     2\t  const user = await users.create(req.body);\n     3\t  res.status(201).json({ id: user.id });\n     4\t}\n',
    usage(),
    'Let me read the handler first.',
  );
  main.toolRound(
    'Read',
    { file_path: `${PLANNING_CWD}/package.json` },
    '     1\t{\n     2\t  "name": "signup-api",\n     3\t  "scripts": { "test": "vitest run" },\n     4\t  "dependencies": { "express": "^4.19.2" }\n     5\t}\n',
    usage(),
    'And the dependencies.',
  );
  main.toolRound(
    'Grep',
    { pattern: 'req\\.body', path: `${PLANNING_CWD}/src` },
    'src/routes/signup.js:2:  const user = await users.create(req.body);',
    usage(),
    'Where is the body used?',
  );
  main.toolRound(
    'Bash',
    { command: 'npm test', description: 'Run the tests before any change' },
    ' RUN  v2.1.9 /home/user/src/signup-api\n\n ✓ test/signup.test.js (12 tests) 41ms\n\nTests: 12 passed, 12 total',
    usage(),
    'The tests pass before any change; I will keep them so.',
  );
  main.response([{ type: 'text', text: PLAN_REPLY }], usage());
  main.prompt('Go with zod. The plan looks good, but skip step 4 for now — the docs are being rewritten.');
  main.response(
    [
      {
        type: 'text',
        text: "Understood: zod, and no docs change. We'll go with one 400 response that lists every failing field, not just the first one, since the signup form shows errors per field. I'll record the plan in docs/plan.md.",
      },
    ],
    usage(),
  );
  main.toolRound(
    'Write',
    { file_path: `${PLANNING_CWD}/docs/plan.md`, content: PLAN_FILE },
    `File created successfully at: ${PLANNING_CWD}/docs/plan.md`,
    usage(),
    'Writing the plan down.',
  );
  main.toolRound(
    'TodoWrite',
    {
      todos: [
        { content: 'Add the zod signup schema', status: 'in_progress', activeForm: 'Adding the zod signup schema' },
        { content: 'Validate req.body in the signup route', status: 'pending', activeForm: 'Validating req.body' },
        { content: 'Add tests for invalid signup bodies', status: 'pending', activeForm: 'Adding tests' },
      ],
    },
    'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable',
    usage(),
    'Tracking the steps.',
  );
  main.toolRound(
    'Write',
    {
      file_path: `${PLANNING_CWD}/src/validation/signup-schema.js`,
      content:
        "import { z } from 'zod';\n\nexport const signupSchema = z\n  .object({ email: z.string().email(), password: z.string().min(12) })\n  .strict();\n",
    },
    `File created successfully at: ${PLANNING_CWD}/src/validation/signup-schema.js`,
    usage(),
    'Step 1: the schema.',
  );
  main.toolRound(
    'Bash',
    { command: 'npx vitest run test/signup-schema.test.js', description: 'Run the schema tests' },
    ' RUN  v2.1.9 /home/user/src/signup-api\n\n ✓ test/signup-schema.test.js (4 tests) 9ms\n\n Test Files  1 passed (1)\n      Tests 4 passed (4)',
    usage(),
    'Checking the schema.',
  );
  main.response(
    [
      {
        type: 'text',
        text: 'Step 1 is done: `src/validation/signup-schema.js` exports `signupSchema`, and its 4 tests pass. Next is step 2, the route.',
      },
    ],
    usage(),
  );
  return main;
}

/** The planning session written under `<dir>/projects` as Claude Code lays it out. */
export function writePlanningSession(dir: string): void {
  writeTranscript(mainPath(join(dir, 'projects'), PLANNING_CWD, PLANNING_SESSION_ID), planningSession());
}
