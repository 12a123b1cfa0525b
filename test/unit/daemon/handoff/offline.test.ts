import { describe, expect, it } from 'vitest';
import { handoffFacts } from '../../../../daemon/handoff/facts.js';
import { offlineNarrative } from '../../../../daemon/handoff/offline.js';
import { factsOf } from './loaded.js';
import { type SessionWriter, session } from './session.js';

function narrate(writer: SessionWriter) {
  const main = factsOf(writer);
  const facts = handoffFacts({ main, sidechains: [], git: null, cwd: '/repo', realCwd: '/repo' });
  return offlineNarrative({ main, facts, sessionId: 's-1', cwd: '/repo' });
}

describe('offlineNarrative', () => {
  it('states what was decided, with the reason, and the resume prompt keeps it (issue 32)', () => {
    const writer = session('s', '/repo')
      .prompt('Add due dates to invoices.')
      .reply('Should dates go through moment or date-fns? I recommend date-fns because it is tree-shakeable.')
      .prompt('Use date-fns.')
      .reply('Decision: we will store amounts as integer cents, so that sums never round.')
      .tool('Edit', { file_path: '/repo/invoice.ts', old_string: 'a', new_string: 'b' }, 'ok');
    const narrative = narrate(writer);
    expect(narrative.currentState).toContain(
      'Decided (the user): “Use date-fns.” — because “I recommend date-fns because it is tree-shakeable.”',
    );
    expect(narrative.currentState).toContain(
      'Decided: “Decision: we will store amounts as integer cents, so that sums never round.”',
    );
    expect(narrative.resumePrompt).toContain('Keep what was decided: “Use date-fns.” “Decision: we will store amounts');
  });

  it('puts the literal next action first: an unanswered request, then work in progress, failing checks, pending todos', () => {
    const writer = session('s', '/repo')
      .prompt('Add the parser.')
      .tool('TodoWrite', {
        todos: [
          { content: 'Write the parser', status: 'in_progress' },
          { content: 'Document it', status: 'pending' },
        ],
      })
      .tool('Edit', { file_path: '/repo/p.ts', old_string: 'a', new_string: 'b' }, 'ok')
      .tool('Bash', { command: 'npm test' }, 'Exit code 1\nAssertionError: expected 3, got 4')
      .prompt('Also never commit generated files.');
    const narrative = narrate(writer);
    expect(narrative.nextSteps).toEqual([
      "Answer the user's last request, which has no reply yet: “Also never commit generated files.”",
      'Finish the task in progress: Write the parser',
      'Make `npm test` pass again (it fails with: AssertionError: expected 3, got 4), then re-run it to confirm.',
      'Do the pending task: Document it',
    ]);
    expect(narrative.issues).toEqual([
      'Bash `npm test` failed (exit 1): AssertionError: expected 3, got 4 — still failing',
    ]);
    expect(narrative.openQuestions).toEqual(['Pending: Document it']);
    expect(narrative.resumePrompt).toContain("Follow the user's rules: “Also never commit generated files.”");
    expect(narrative.resumePrompt).toContain("Start with: Answer the user's last request");
  });

  it('counts checks that pass after the edits and commits as completed, and failures fixed later as issues', () => {
    const writer = session('s', '/repo')
      .prompt('Fix the total.')
      .tool('Bash', { command: 'npm test' }, 'ok before any edit')
      .tool('Bash', { command: 'ls' }, 'a b')
      .tool('Edit', { file_path: '/repo/t.ts', old_string: 'a', new_string: 'b' }, 'ok')
      .tool('Bash', { command: 'npm test' }, 'Exit code 1\nError: boom')
      .tool('Bash', { command: 'npm test' }, '3 passed')
      .tool('Bash', { command: 'git commit -m "fix total"' }, '[main abc123] fix total')
      .reply('Done; committed.');
    const narrative = narrate(writer);
    expect(narrative.completedTasks).toEqual([
      '`npm test` passes (exit 0) after the edits',
      'Committed: `git commit -m "fix total"`',
    ]);
    expect(narrative.issues).toEqual(['Bash `npm test` failed (exit 1): Error: boom — succeeded later']);
    expect(narrative.nextSteps).toEqual([
      'Ask the user what to do next; the last request (“Fix the total.”) looks done.',
    ]);
    expect(narrative.currentState).toEqual([
      'Last request: “Fix the total.”',
      'Last assistant text: “Done; committed.”',
      '1 file changed (see Files Touched).',
      'The session ran in /repo on branch main.',
    ]);
  });

  it('names changes of plan in the task, and open questions both ways', () => {
    const asked = narrate(
      session('s', '/repo')
        .prompt('Build the importer.')
        .prompt('Actually, build the exporter first.')
        .reply('Should the exporter write CSV or JSON?'),
    );
    expect(asked.task).toBe('Build the importer. Change of plan: “Actually, build the exporter first.”');
    expect(asked.openQuestions).toEqual([
      'The assistant asked and awaits an answer: “Should the exporter write CSV or JSON?”',
    ]);
    expect(asked.nextSteps).toEqual(["Wait for the user's answer to: “Should the exporter write CSV or JSON?”"]);
    const unanswered = narrate(session('s', '/repo').prompt('Is the cache safe to delete?'));
    expect(unanswered.openQuestions).toEqual(['Unanswered question of the user: “Is the cache safe to delete?”']);
    expect(narrate(session('s', '/repo')).task).toMatch(/no request of the user is recorded/);
  });
});
