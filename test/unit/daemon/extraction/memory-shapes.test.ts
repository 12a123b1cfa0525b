/**
 * Issue 32 item 1, the extraction's shapes: each seen on a real short session, written here as a
 * 2.1.197 transcript (test/helpers/memory-shapes.ts) and read back by the offline summarizer.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import {
  hasAllSections,
  SESSION_MEMORY_TEMPLATE,
  stripInstructions,
  templateSections,
} from '../../../../daemon/extraction/template.js';
import { userRules } from '../../../../shared/handoff/rules.js';
import { cartSession, correctedSession, ingestShape, type MemoryShape } from '../../../helpers/memory-shapes.js';

const HEADINGS = templateSections().map((section) => section.heading);

/** The memory of a shape, and its sections' bodies by their place in the template. */
async function memoryOf(shape: MemoryShape, previous?: string): Promise<{ memory: string; sections: string[] }> {
  const session = await ingestShape(mkdtempSync(join(tmpdir(), 'memd-shapes-')), shape);
  try {
    const memory = offlineSessionMemory({ loaded: session.conversation().loaded, previous: previous ?? null });
    const at = HEADINGS.map((heading) => memory.indexOf(`${heading}\n`));
    const sections = at.map((start, index) => memory.slice(start, at[index + 1] ?? memory.length));
    return { memory, sections };
  } finally {
    session.close();
  }
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('the offline session memory of short real-shaped sessions', () => {
  it('a first request is no user correction, and is stated once, in the task specification', async () => {
    const shape = cartSession();
    const { memory, sections } = await memoryOf(shape);
    const [, current, task, , , errors] = sections;
    const request = shape.prompts[0] as string;
    expect(errors).not.toContain('User correction');
    expect(errors).toContain('- None yet.');
    expect(occurrences(memory, request)).toBe(1);
    expect(occurrences(task ?? '', 'Check that cart.js computes the total right')).toBe(1);
    expect(task).toContain(`- First request: ${request}`);
    // The only request is not repeated as the last one.
    expect(current).not.toContain('Last request');
    expect(current).toContain('- Last assistant text: total() ignores the discount');
  });

  it('a memory written before the fix, carried as the previous one, leaves its wrong lines behind', async () => {
    const shape = cartSession();
    const request = shape.prompts[0] as string;
    const old = SESSION_MEMORY_TEMPLATE.replace(
      '_What is being worked on right now, what is still pending, and the immediate next steps_\n',
      `$&\n- Last request: ${request}\n`,
    ).replace(
      '_Errors met and how they were fixed, corrections from the user, approaches that failed_\n',
      `$&\n- User correction: "${request}"\n`,
    );
    const { memory, sections } = await memoryOf(shape, old);
    expect(sections[5]).not.toContain('User correction');
    expect(sections[1]).not.toContain('Last request');
    expect(occurrences(memory, request)).toBe(1);
  });

  it("user rules are the user's constraints, whole sentences, not the task sentence", async () => {
    const { sections } = await memoryOf(cartSession());
    const task = sections[2] ?? '';
    expect(task).toContain('- User rule: "Never touch package.json."');
    expect(task).not.toContain('User rule: "Check that');
    expect(userRules(cartSession().prompts)).toEqual({ constraints: ['Never touch package.json.'], ruledOut: [] });
  });

  it('a correction is the user correcting the agent after it acted; a standing rule is a rule', async () => {
    const shape = correctedSession();
    const { sections } = await memoryOf(shape);
    const [, , task, , , errors] = sections;
    expect(errors).toContain(`- User correction: "${shape.prompts[1]}"`);
    expect(occurrences(errors ?? '', 'User correction')).toBe(1);
    // A request with a rule word inside ("so it always rounds") is the request; a clause of its own is a rule.
    expect(userRules(shape.prompts)).toEqual({
      constraints: [
        'Use Math.round on the total instead.',
        'From now on, only change cart.js and its test.',
        'Prefer small commits.',
        'Add a test for an empty cart, and do not add dependencies.',
      ],
      ruledOut: ["No, that's wrong: round once at the end, not per item."],
    });
    expect(task).toContain('- User rule: "From now on, only change cart.js and its test."');
    expect(task).toContain('- User rule: "Prefer small commits."');
    expect(task).not.toContain('User rule: "Fix the total');
  });

  it("summary.md keeps the headings and none of the template's italic instructions", async () => {
    const { memory } = await memoryOf(correctedSession());
    expect(hasAllSections(memory)).toBe(true);
    for (const section of templateSections()) {
      expect(memory).toContain(`${section.heading}\n\n`);
      for (const line of section.description) expect(memory).not.toContain(line);
    }
  });

  it('reading a memory written with the instructions strips them, and nothing else', () => {
    const old = SESSION_MEMORY_TEMPLATE.replace(
      '_A short, distinctive title for the session in 5 to 10 words_\n',
      '_A short, distinctive title for the session in 5 to 10 words_\n\nCart totals\n',
    ).replace(
      '# Worklog\n_Step by step, what was tried and done, one terse line each_\n',
      '# Worklog\n_Step by step, what was tried and done, one terse line each_\n\n- Read cart.js\n_emphasis kept in the body_\n',
    );
    const stripped = stripInstructions(old);
    expect(stripped.startsWith('# Session Title\n\nCart totals\n\n# Current State\n\n# Task specification\n')).toBe(
      true,
    );
    expect(stripped).toContain('# Worklog\n\n- Read cart.js\n_emphasis kept in the body_\n');
    expect(stripped).not.toContain('_A short');
    // A custom template's or Claude Code's own instruction under a heading goes too.
    expect(stripInstructions('## Name\n*What to call it*\n\nCart\n')).toBe('## Name\n\nCart\n');
    expect(stripInstructions(stripped)).toBe(stripped);
  });
});
