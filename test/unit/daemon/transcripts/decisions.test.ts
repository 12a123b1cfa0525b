/**
 * Decisions and outcomes (issue 32): on a planning session, both offline summarizers carry what
 * was decided (the user's choice and the reason given for it, the assistant's own decision), the
 * recorded plan step by step and the checks' results, quoted from the transcript; tool counts at
 * most one line. Before issue 32 they named the tools and left the plan out.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSummary } from '../../../../daemon/compaction/offline-summary.js';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import { templateSections } from '../../../../daemon/extraction/template.js';
import { readOutcomes } from '../../../../daemon/transcripts/decisions.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { type Call, readTranscript, type Said } from '../../../../daemon/transcripts/facts.js';
import { SUMMARY_SECTIONS } from '../../../../shared/transcript/compaction-texts.js';
import { type IngestedSession, ingestWritten } from '../../../helpers/compact.js';
import {
  PLANNING_FACTS,
  PLANNING_SESSION_ID,
  planningSession,
  writePlanningSession,
} from '../../../helpers/planning-session.js';
import { growingUsage, mainPath, TranscriptWriter, writeTranscript } from '../../../helpers/real-shapes.js';

let session: IngestedSession;
let loaded: readonly LoadedEntry[];
/** Every string the transcript's lines hold: a quoted fact must be inside one of them. */
let said: string[];

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memd-decisions-'));
  writePlanningSession(dir);
  session = await ingestWritten(dir, PLANNING_SESSION_ID);
  loaded = session.conversation().loaded;
  said = strings(planningSession().lines);
});
afterAll(() => session.close());

/** The texts a summary quotes ("…"), for the check that each is the transcript's. */
function quotes(text: string): string[] {
  return [...text.matchAll(/"([^"\n]+)"/g)].map((match) => match[1] ?? '');
}

const toolCountLines = (text: string) =>
  text.split('\n').filter((line) => /\b[A-Z][A-Za-z]+ ×\d|\b\d+ tool calls?\b/.test(line));

describe('decisions and outcomes of a planning session', () => {
  it('reads the choices, the reason, the recorded plan and the checks, in the transcript words', () => {
    const facts = readTranscript(loaded);
    const outcomes = readOutcomes(facts.prompts, facts.replies, facts.calls);
    expect(outcomes.decisions.map((decision) => decision.text)).toEqual(PLANNING_FACTS.decisions);
    expect(outcomes.decisions[0]?.reason).toBe(PLANNING_FACTS.reason);
    expect(outcomes.decisions.map((decision) => decision.who)).toEqual(['user', 'user', 'assistant']);
    // The plan as written to docs/plan.md: step 4, which the user dropped, is not in it.
    expect(outcomes.plan).toMatchObject({ source: PLANNING_FACTS.plan.source, steps: PLANNING_FACTS.plan.steps });
    expect(outcomes.checks.map(({ command, passed, line }) => ({ command, passed, line }))).toEqual(
      PLANNING_FACTS.checks,
    );
  });

  it('compaction: section 5 carries the decisions, the plan and the checks; one line of tool counts', () => {
    const summary = offlineSummary(loaded);
    const start = summary.indexOf(`5. ${SUMMARY_SECTIONS[4]}:`);
    const problemSolving = summary.slice(start, summary.indexOf(`6. ${SUMMARY_SECTIONS[5]}:`));
    for (const decision of PLANNING_FACTS.decisions) expect(problemSolving).toContain(`"${decision}"`);
    expect(problemSolving).toContain(`the assistant's reason: "${PLANNING_FACTS.reason}"`);
    expect(problemSolving).toContain(`Plan (written to ${PLANNING_FACTS.plan.source}):`);
    PLANNING_FACTS.plan.steps.forEach((step, index) => expect(problemSolving).toContain(`   ${index + 1}. ${step}`));
    expect(problemSolving).not.toContain('Document the error format');
    for (const check of PLANNING_FACTS.checks)
      expect(problemSolving).toContain(`\`${check.command}\` ${check.passed ? 'passed' : 'failed'}: ${check.line}`);
    expect(toolCountLines(summary)).toHaveLength(1);
    for (const quote of quotes(problemSolving))
      expect(
        said.some((text) => text.includes(quote)),
        quote,
      ).toBe(true);
  });

  it('session memory: Key results carries them; Current State follows the todo list, not the plan', () => {
    const memory = offlineSessionMemory({ loaded });
    const headings = templateSections().map((section) => section.heading);
    const body = (heading: string) => {
      const at = memory.indexOf(`${heading}\n`);
      const next = headings.map((other) => memory.indexOf(`${other}\n`)).find((position) => position > at);
      return memory.slice(at, next ?? memory.length);
    };
    const results = body('# Key results');
    expect(results).toContain(`- "Go with zod." (user's decision; the assistant's reason: "${PLANNING_FACTS.reason}")`);
    expect(results).toContain(`- "${PLANNING_FACTS.decisions[2]}" (assistant's decision)`);
    expect(results).toContain(`- Plan: written to ${PLANNING_FACTS.plan.source}, 3 steps`);
    PLANNING_FACTS.plan.steps.forEach((step, index) => expect(results).toContain(`- Plan step ${index + 1}: ${step}`));
    expect(results).toContain('- `npm test` passed — Tests: 12 passed, 12 total');
    for (const quote of quotes(results))
      expect(
        said.some((text) => text.includes(quote)),
        quote,
      ).toBe(true);
    const current = body('# Current State');
    expect(current).toContain('- In progress: Add the zod signup schema');
    expect(current).not.toContain('- Next:');
    // The Workflow's "Tools used" is the one line of counts; the worklog says what each turn did.
    expect(toolCountLines(memory)).toEqual([expect.stringMatching(/^- Tools used: /)]);
    expect(body('# Worklog')).toContain(
      '— changed docs/plan.md, src/validation/signup-schema.js; ran `npx vitest run test/signup-schema.test.js` (exit 0); updated the todo list; Step 1 is done',
    );
  });
});

describe('a plan no todo list tracks', () => {
  it('its steps that later calls did not do are the next steps: the memory and the compaction summary', async () => {
    const cwd = '/home/user/src/queue';
    const sessionId = '7a1b2c3d-0000-4000-8000-00000000beef';
    const main = new TranscriptWriter({ sessionId, cwd, version: '2.1.197' });
    main.prompt('Plan the move from cron to a queue; no code yet.');
    main.response(
      [
        {
          type: 'text',
          text: 'The steps:\n1. Add `src/queue.js` with the job table.\n2. Move the retries into the queue worker.\n3. Remove the cron entry.\nShall I start?',
        },
      ],
      growingUsage(0),
    );
    main.prompt('Yes, go ahead.');
    main.toolRound(
      'Write',
      { file_path: `${cwd}/src/queue.js`, content: 'export const jobs = [];\n' },
      `File created successfully at: ${cwd}/src/queue.js`,
      growingUsage(1),
    );
    const dir = mkdtempSync(join(tmpdir(), 'memd-plan-'));
    writeTranscript(mainPath(join(dir, 'projects'), cwd, sessionId), main);
    const queue = await ingestWritten(dir, sessionId);
    try {
      const memory = offlineSessionMemory({ loaded: queue.conversation().loaded });
      const current = memory.slice(memory.indexOf('# Current State'), memory.indexOf('# Task specification'));
      expect(current).not.toContain('- Next: Add `src/queue.js`');
      expect(current).toContain('- Next: Move the retries into the queue worker.');
      expect(current).toContain('- Next: Remove the cron entry.');
      expect(memory).toContain('- "Yes, go ahead." (user\'s decision)');
      const summary = offlineSummary(queue.conversation().loaded);
      const pending = summary.slice(summary.indexOf('7. Pending Tasks:'), summary.indexOf('8. Current Work:'));
      expect(pending).not.toContain('Add `src/queue.js`');
      expect(pending).toContain(
        '   - [planned] Move the retries into the queue worker.\n   - [planned] Remove the cron entry.',
      );
      expect(summary).toContain('9. Optional Next Step:\n   Continue with: Move the retries into the queue worker.');
    } finally {
      queue.close();
    }
  });
});

describe('what is not a decision', () => {
  let serial = 0;
  const prompt = (text: string): Said => ({ at: serial++, text });
  const reply = (text: string): Said => ({ at: serial++, text });

  it('the first request, a rule, and a prompt answering no proposal decide nothing', () => {
    const prompts = [prompt('Use the cart module and check that it computes the total right.')];
    const replies = [reply('The total is right: 3 items, 42.00.')];
    prompts.push(prompt('Never touch package.json. Use two decimals everywhere.'));
    replies.push(reply('Done. Want the same for the orders table?'));
    prompts.push(prompt('Then make the cart page use the same helper.'));
    const outcomes = readOutcomes(prompts, replies, []);
    expect(outcomes.decisions).toEqual([]);
    replies.push(reply('Should dates go through moment or date-fns?'));
    prompts.push(prompt('Use date-fns.'));
    expect(readOutcomes(prompts, replies, []).decisions.map((decision) => decision.text)).toEqual(['Use date-fns.']);
    expect(outcomes.plan).toBeNull();
  });

  it('"skip" inside a request says what the code should do; as its first word it is a choice', () => {
    const replies = [reply('The parser is done. Should it also handle the CSV export?')];
    const prompts = [prompt('Also make the ledger parser skip empty lines.')];
    expect(readOutcomes(prompts, replies, []).decisions).toEqual([]);
    replies.push(reply('Do you want the migration now or later?'));
    prompts.push(prompt('Skip the migration for now.'));
    expect(readOutcomes(prompts, replies, []).decisions.map((decision) => decision.text)).toEqual([
      'Skip the migration for now.',
    ]);
  });

  it('an approval of a recommendation quotes the recommendation as its reason', () => {
    const replies = [
      reply('Two ways: a cron job or a queue. I recommend the queue because retries come for free. OK?'),
    ];
    const prompts = [prompt('Yes, go ahead.')];
    expect(readOutcomes(prompts, replies, []).decisions).toEqual([
      {
        at: prompts[0]?.at,
        who: 'user',
        text: 'Yes, go ahead.',
        reason: 'I recommend the queue because retries come for free.',
      },
    ]);
  });

  it('a list of options is no plan; "I\'ll use Grep" is no decision; plan mode is a plan', () => {
    const replies = [reply("There are two options:\n- zod\n- joi\nI'll use Grep to find the callers.")];
    const calls: Call[] = [
      {
        name: 'ExitPlanMode',
        input: { plan: '## Plan\n1. Add the queue\n2. Move the retries into it' },
        at: serial++,
        result: { failed: false, exit: null, text: 'User has approved your plan.', at: serial++, meta: null },
      },
    ];
    const withoutPlanMode = readOutcomes([], replies, []);
    expect(withoutPlanMode.plan).toBeNull();
    expect(withoutPlanMode.decisions).toEqual([]);
    expect(readOutcomes([], replies, calls).plan).toMatchObject({
      source: 'plan mode (approved)',
      steps: ['Add the queue', 'Move the retries into it'],
    });
  });

  it('a check counts with its last run: failed after passing is failed', () => {
    const run = (command: string, text: string, failed: boolean): Call => ({
      name: 'Bash',
      input: { command },
      at: serial++,
      result: { failed, exit: failed ? 1 : 0, text, at: serial++, meta: null },
    });
    const calls = [
      run('npm test', 'Tests: 3 passed', false),
      run('npm test', 'Exit code 1\nAssertionError: expected 2, got 3', true),
      run('git checkout -b plan', "Switched to a new branch 'plan'", false),
    ];
    expect(readOutcomes([], [], calls).checks).toMatchObject([
      { command: 'npm test', passed: false, line: 'AssertionError: expected 2, got 3' },
    ]);
  });
});
