import { relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SESSION_MEMORY_MAX_TOKENS, SESSION_SECTION_MAX_TOKENS } from '../../../../daemon/extraction/budget.js';
import { offlineSessionMemory } from '../../../../daemon/extraction/offline-summary.js';
import {
  hasAllSections,
  isBareTemplate,
  SESSION_MEMORY_TEMPLATE,
  templateSections,
} from '../../../../daemon/extraction/template.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { estimateTokens } from '../../../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexed as indexedEntry } from '../../../helpers/bash-session.js';
import { ingestFixture } from '../../../helpers/compact.js';
import type { Manifest } from '../../../helpers/fixtures.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

/** The parts of manifest.json this test reads; fixtures.ts types only the common ones. */
interface FactsManifest extends Manifest {
  files: { read: string[]; edited: string[]; written: string[] };
  errors: { message: string; sidechain: boolean }[];
  todos: { content: string; status: string }[] | null;
  tasks: { subject: string; status: string }[] | null;
  constraints: { text: string }[];
  taskChanges: { text: string }[];
}

const HEADINGS = templateSections().map((section) => section.heading);

/** Section texts (heading included) by their place in the template, checking the order. */
function sections(text: string, headings: readonly string[] = HEADINGS): string[] {
  const at = headings.map((heading) => text.indexOf(`${heading}\n`));
  at.forEach((position, index) =>
    expect(position, headings[index]).toBeGreaterThan(index === 0 ? -1 : (at[index - 1] as number)),
  );
  return at.map((position, index) => text.slice(position, (at[index + 1] ?? text.length + 2) - 2));
}

const indexed = (type: string, uuid: string): IndexedEntry => indexedEntry(type, uuid, '/repo');

/** A synthetic transcript, built turn by turn. */
function transcript() {
  const loaded: LoadedEntry[] = [];
  let serial = 0;
  const push = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) => {
    const uuid = `${type[0]}${serial++}`;
    loaded.push({ entry: indexed(type, uuid), raw: { type, uuid, message: { role: type, content }, ...extra } });
  };
  const builder = {
    loaded,
    prompt(text: string) {
      push('user', text);
      return builder;
    },
    reply(text: string) {
      push('assistant', [{ type: 'text', text }]);
      return builder;
    },
    /** A tool call and its result; a result starting "Exit code N" is a failure, as Claude Code writes it. */
    tool(name: string, input: Record<string, unknown>, result = 'ok', meta?: unknown) {
      const id = `toolu_${serial}`;
      push('assistant', [{ type: 'tool_use', id, name, input }]);
      const failed = /^Exit code [1-9]/.test(result);
      push(
        'user',
        [{ type: 'tool_result', tool_use_id: id, content: result, ...(failed ? { is_error: true } : {}) }],
        meta === undefined ? {} : { toolUseResult: meta },
      );
      return builder;
    },
  };
  return builder;
}

/** A long session: `turns` prompts, each with an edit, a read, tests (every third failing first) and a reply. */
function hugeSession(turns: number): LoadedEntry[] {
  const session = transcript();
  for (let n = 0; n < turns; n++) {
    session.prompt(
      `Request ${n}: refactor module ${n} so that handler_${n} validates its event before dispatching. ${'Keep the public API unchanged. '.repeat(8)}`,
    );
    session.tool('Read', { file_path: `/repo/src/pkg_${n}/module_${n}.py` }, 'def handler(): pass');
    session.tool(
      'Edit',
      {
        file_path: `/repo/src/pkg_${n}/module_${n}.py`,
        old_string: 'pass',
        new_string: `def handler_${n}(event):\n    return validate(event)`,
      },
      'updated',
    );
    const command = `pytest tests/test_module_${n}.py -q`;
    if (n % 3 === 0) session.tool('Bash', { command }, `Exit code 1\nE   AssertionError: expected ${n}, got ${n + 1}`);
    session.tool('Bash', { command }, '1 passed in 0.01s');
    if (n % 50 === 49)
      session.tool(
        'Bash',
        { command: `git commit -am "module ${n}"` },
        `[main ${String(n).padStart(7, '0')}] module ${n}`,
      );
    session.reply(`Turn ${n} done: handler_${n} now validates the event. ${'The tests pass. '.repeat(10)}`);
  }
  return session.tool('TodoWrite', { todos: [{ content: 'Release the refactor', status: 'pending' }] }).loaded;
}

const recall: string[] = [];
afterAll(() => console.log(`offline session memory, fact recall per fixture:\n${recall.join('\n')}`));

describe('the offline session memory of each fixture', () => {
  it.each(SCENARIOS)(
    '%s: names every changed file, error key line, open todo and user constraint',
    async (scenario) => {
      const fixture = await ingestFixture(scenario);
      try {
        const manifest = fixture.manifest as FactsManifest;
        const { loaded } = fixture.conversation();
        const memory = offlineSessionMemory({ loaded });
        const [, current, task, files, , errors] = sections(memory);
        const facts: { kind: string; found: boolean }[] = [];
        for (const path of new Set([...manifest.files.edited, ...manifest.files.written])) {
          // Before the last boundary a file is known only from the compaction summary, which names it relative to the project.
          facts.push({
            kind: `file ${path}`,
            found:
              files?.includes(path) === true ||
              (scenario === 'compactions' && files?.includes(relative(manifest.cwd, path)) === true),
          });
        }
        // The loaded conversation is the main transcript's: a subagent's errors are its own.
        for (const error of manifest.errors.filter((candidate) => !candidate.sidechain))
          facts.push({ kind: `error ${error.message}`, found: errors?.includes(error.message) === true });
        const open = [
          ...(manifest.todos ?? []).map((todo) => ({ status: todo.status, text: todo.content })),
          ...(manifest.tasks ?? []).map((task) => ({ status: task.status, text: task.subject })),
        ];
        for (const task of open.filter(
          (candidate) => candidate.status === 'pending' || candidate.status === 'in_progress',
        ))
          facts.push({ kind: `todo ${task.text}`, found: current?.includes(task.text) === true });
        // A rule is a user rule in the task specification; a correction of the approach is in Errors & Corrections too.
        for (const constraint of manifest.constraints)
          facts.push({
            kind: `constraint ${constraint.text}`,
            found: task?.toLowerCase().includes(constraint.text.toLowerCase()) === true,
          });
        const found = facts.filter((fact) => fact.found).length;
        recall.push(`  ${scenario}: ${found}/${facts.length}${facts.length === 0 ? ' (nothing listed)' : ''}`);
        expect(facts.filter((fact) => !fact.found).map((fact) => fact.kind)).toEqual([]);

        for (const change of manifest.taskChanges) expect(memory).toContain(`Change of plan: Actually, ${change.text}`);
        expect(hasAllSections(memory)).toBe(true);
        expect(isBareTemplate(memory)).toBe(false);
        expect(estimateTokens(memory.length)).toBeLessThanOrEqual(SESSION_MEMORY_MAX_TOKENS);
        // Deterministic, and its own output as `previous` changes nothing.
        expect(offlineSessionMemory({ loaded })).toBe(memory);
        expect(offlineSessionMemory({ loaded, previous: memory })).toBe(memory);
        // The memory as it stood before the last prompt, as `previous`, leaves nothing stale behind.
        const lastPrompt = loaded.findLastIndex(
          ({ entry, raw }) =>
            entry.type === 'user' && typeof (raw.message as { content?: unknown } | undefined)?.content === 'string',
        );
        expect(lastPrompt).toBeGreaterThan(0);
        expect(
          offlineSessionMemory({ loaded, previous: offlineSessionMemory({ loaded: loaded.slice(0, lastPrompt) }) }),
        ).toBe(memory);
      } finally {
        fixture.close();
      }
    },
  );

  it('coding-loop: title, current state, workflow with exits, learnings, key results, one worklog line per turn', async () => {
    const fixture = await ingestFixture('coding-loop');
    try {
      const memory = offlineSessionMemory({ loaded: fixture.conversation().loaded });
      const [title, current, task, files, workflow, errors, codebase, learnings, results, worklog] = sections(memory);
      expect(title).toContain('\n\nCustomers are being overcharged when an invoice has a fixed discount and tax.');
      expect(current).toContain(
        '- Last request: Does formatCurrency have the same rounding problem? Check before we ship.',
      );
      expect(current).toContain('- Last assistant text: No. `formatCurrency` only accepts integer cents');
      expect(current).toContain('- Pending: Add a regression test for zero-quantity invoice lines');
      expect(current).not.toContain('Fix computeTotal so');
      expect(task).toContain('- First request: Customers are being overcharged');
      expect(task).toContain('- Then: Does formatCurrency');
      expect(files).toContain('- `/home/user/src/invoice-service/src/totals.js` — edited\n');
      expect(files).toContain('Grep `computeTotal`');
      expect(workflow).toContain('- `node test/run.js` — ran 3×: exit 1 ×2, then exit 0');
      expect(errors).toContain(
        '- Bash `node test/run.js` failed (exit 1): AssertionError [fixed discount is applied before tax]: expected 10353, got 10638',
      );
      expect(codebase).toContain('- Working directory: /home/user/src/invoice-service');
      expect(codebase).toContain('- Test commands: `node test/run.js`');
      expect(learnings).toContain(
        '`node test/run.js` failed (AssertionError [fixed discount is applied before tax]: expected 10353, got 10638), then passed after changes to /home/user/src/invoice-service/src/totals.js.',
      );
      expect(results).toContain('- `node test/run.js` passed — # 3/3 passed');
      expect(worklog?.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(2);
      // What each turn did, not its tool counts (issue 32).
      expect(worklog).toContain(
        '— read src/totals.js, test/run.js; changed src/totals.js; ran `node test/run.js` (exit 1 ×2, then exit 0); searched `src/**/*.js`, `computeTotal`; updated the todo list; Fixed `computeTotal`',
      );
      expect(worklog).not.toMatch(/tool calls?\b/);
    } finally {
      fixture.close();
    }
  });

  it('corrections: user corrections quoted verbatim, the change of plan, the open task', async () => {
    const fixture = await ingestFixture('corrections');
    try {
      const [, current, task, files, , errors] = sections(
        offlineSessionMemory({ loaded: fixture.conversation().loaded, title: 'Extract product prices' }),
      );
      expect(errors).toContain(
        '- User correction: "No — never use regex to parse HTML. Use the parser in lib/htmlparser.js instead."',
      );
      expect(task).toContain('- Change of plan: Actually, stop working on prices for now');
      expect(current).toContain('- Pending: Support multiple currencies');
      expect(files).toContain('- `/home/user/src/price-scraper/src/extract.js` — created; defines `extractPrices`');
    } finally {
      fixture.close();
    }
  });

  it('compactions: carries the compaction summary, labelling what was current then', async () => {
    const fixture = await ingestFixture('compactions');
    try {
      const [title, current, task, files, , , codebase, , , worklog] = sections(
        offlineSessionMemory({ loaded: fixture.conversation().loaded }),
      );
      expect(title).toContain('Idempotency-key support for create_charge');
      // Pending then, done since: the user asked for it again and the turn changed charges.py with the tests passing.
      expect(current).not.toContain('Log a warning when a duplicate idempotency key is replayed.');
      // The compaction's line on charges.py and the new one are one entry.
      expect(files).toContain(
        '- `/home/user/src/payments-api/payments/charges.py` — edited; earlier: idempotency short-circuit in create_charge',
      );
      expect(files).not.toContain('- payments/charges.py');
      expect(task).toContain('"Stored idempotency keys should expire after 24 hours."');
      expect(task).not.toContain('First request:');
      expect(files).toContain('- payments/store.py — get_idempotent / remember_idempotent');
      expect(codebase).toContain('- Injectable clock for tests');
      expect(worklog).toContain('- Before the last compaction: About to add a warning log');
      for (const body of [current, task, files, worklog]) expect(body).not.toContain('This session is being continued');
    } finally {
      fixture.close();
    }
  });
});

describe('the template', () => {
  it('keeps every heading in order, none of their italic instructions, and says none yet where there is nothing', () => {
    const memory = offlineSessionMemory({ loaded: transcript().prompt('just a question').loaded });
    expect(memory.startsWith('# Session Title\n\njust a question\n')).toBe(true);
    for (const section of templateSections()) {
      expect(memory).toContain(`${section.heading}\n\n`);
      for (const line of section.description) expect(memory).not.toContain(line);
    }
    expect(memory.split('\n').filter((line) => /^_.*_$/.test(line))).toEqual([]);
    expect(sections(memory)[5]).toContain('- None yet.');
    expect(hasAllSections(memory)).toBe(true);
    expect(offlineSessionMemory({ loaded: [], title: 'Named' })).toContain('\n\nNamed\n');
  });

  it('hasAllSections rejects a missing heading and a wrong order; descriptions may be there or not', () => {
    expect(hasAllSections(SESSION_MEMORY_TEMPLATE)).toBe(true);
    const memory = offlineSessionMemory({ loaded: transcript().prompt('fix it').loaded });
    expect(hasAllSections(memory)).toBe(true);
    expect(hasAllSections(memory.replace('# Learnings\n', ''))).toBe(false);
    const [first = '', second = '', ...rest] = sections(memory);
    expect(hasAllSections([second, first, ...rest].join('\n\n'))).toBe(false);
  });

  it('uses a custom template: its headings (not its descriptions), content by section name, else by place', () => {
    const renamed = SESSION_MEMORY_TEMPLATE.replace(
      '# Session Title\n_A short, distinctive title for the session in 5 to 10 words_',
      '## Name\n_What to call it_',
    );
    const session = transcript()
      .prompt('Port the parser to Rust.')
      .tool('Bash', { command: 'cargo test' }, 'test result: ok. 3 passed')
      .reply('Ported.');
    const memory = offlineSessionMemory({ loaded: session.loaded, template: renamed });
    expect(memory.startsWith('## Name\n\nPort the parser to Rust.\n')).toBe(true);
    expect(hasAllSections(memory, renamed)).toBe(true);
    expect(hasAllSections(memory)).toBe(false);

    const blocks = SESSION_MEMORY_TEMPLATE.trim().split('\n\n');
    const reordered = `${[blocks.at(-1), ...blocks.slice(0, -1)].join('\n\n')}\n\n# Open questions\n_Anything unresolved_\n`;
    const text = offlineSessionMemory({ loaded: session.loaded, template: reordered });
    expect(text.startsWith('# Worklog\n\n- Port the parser to Rust. — ran `cargo test` (exit 0); Ported.\n')).toBe(
      true,
    );
    expect(text.endsWith('# Open questions\n\n- None yet.\n')).toBe(true);
    expect(hasAllSections(text, reordered)).toBe(true);
    // An override file without headings is no template: the default one is used.
    expect(hasAllSections(offlineSessionMemory({ loaded: session.loaded, template: '' }))).toBe(true);
  });
});

describe('limits', () => {
  const loaded = hugeSession(500);

  it('500 turns: at most 2,000 tokens a section and 12,000 in all; the oldest worklog lines go first', () => {
    const started = performance.now();
    const memory = offlineSessionMemory({ loaded });
    console.log(
      `offline session memory of ${loaded.length} entries: ${Math.round(performance.now() - started)} ms, ${estimateTokens(memory.length)} tokens`,
    );
    expect(estimateTokens(memory.length)).toBeLessThanOrEqual(SESSION_MEMORY_MAX_TOKENS);
    const bodies = sections(memory);
    for (const body of bodies) expect(estimateTokens(body.length)).toBeLessThanOrEqual(SESSION_SECTION_MAX_TOKENS);
    expect(hasAllSections(memory)).toBe(true);

    const [, current, task, , , , , , results, worklog = ''] = bodies;
    expect(current).toContain('- Last request: Request 499:');
    expect(current).toContain('- Pending: Release the refactor');
    expect(task).toContain('- First request: Request 0: refactor module 0');
    expect(task).toContain('Request 499:');
    expect(results).toContain('- `git commit -am "module 499"` committed — [main 0000499] module 499');
    // What is left of the worklog is its newest lines, in order, after a count of what went.
    const kept = worklog.split('\n').filter((line) => line.startsWith('- Request'));
    const numbers = kept.map((line) => Number(/^- Request (\d+):/.exec(line)?.[1]));
    expect(numbers.at(-1)).toBe(499);
    expect(numbers).toEqual(numbers.map((_, index) => 500 - numbers.length + index));
    expect(worklog).toContain(`- (${500 - kept.length} older entries left out)`);
    expect(offlineSessionMemory({ loaded })).toBe(memory);
  });

  it('over the total, old worklog lines are shortened before any other section loses a line', () => {
    // Five sections nearly full from the previous memory (this transcript adds little to them), and a worklog at its own limit.
    const filler = (name: string) =>
      Array.from({ length: 36 }, (_, index) => `- ${name} fact ${String(index).padStart(2, '0')}: ${'x'.repeat(170)}`);
    const filled = [
      '# Files and Functions',
      '# Errors & Corrections',
      '# Codebase and System Documentation',
      '# Learnings',
      '# Key results',
    ];
    const previous = SESSION_MEMORY_TEMPLATE.trim()
      .split('\n\n')
      .map((block) =>
        filled.some((heading) => block.startsWith(`${heading}\n`))
          ? `${block}\n\n${filler(block.split('\n')[0] ?? '').join('\n')}`
          : block,
      )
      .join('\n\n');
    const session = transcript();
    for (let n = 0; n < 60; n++)
      session
        .prompt(`Step ${n}: ${'tune the cache. '.repeat(6)}`)
        .tool('Bash', { command: 'make' }, 'done')
        .reply(`Step ${n} finished. ${'Numbers look fine. '.repeat(8)}`);
    const memory = offlineSessionMemory({ loaded: session.loaded, previous });
    expect(estimateTokens(memory.length)).toBeLessThanOrEqual(SESSION_MEMORY_MAX_TOKENS);
    for (const heading of filled) for (const line of filler(heading)) expect(memory).toContain(line);
    const worklog = (sections(memory)[9] ?? '').split('\n').filter((line) => line.startsWith('- Step'));
    expect(worklog.at(-1)).toMatch(/^- Step 59: .* — ran `make` \(exit 0\); Step 59 finished\./);
    expect(worklog[0]?.length).toBeLessThanOrEqual(80);
  });
});

describe('reading the transcript', () => {
  it('carries a previous memory: lines not rebuilt stay, a file seen again takes its new line, the title stays', () => {
    const first = offlineSessionMemory({
      loaded: transcript()
        .prompt('Set up the project.')
        .tool('Read', { file_path: '/repo/a.py' })
        .tool('Write', { file_path: '/repo/old.py', content: 'class Old:\n  pass' }).loaded,
    });
    const next = offlineSessionMemory({
      loaded: transcript()
        .prompt('Now change a.py.')
        .tool('Edit', { file_path: '/repo/a.py', old_string: 'x', new_string: 'def run():' }).loaded,
      previous: first,
    });
    const [title, , task, files] = sections(next);
    expect(title).toContain('\n\nSet up the project.');
    expect(task).toContain('- First request: Set up the project.\n- Then: Now change a.py.');
    expect(files).toContain('- `/repo/old.py` — created; defines `Old`');
    expect(files).toContain('- `/repo/a.py` — edited; defines `run`');
    expect(files).not.toContain('- `/repo/a.py` — read');
  });

  it('exit statuses, failures without a header, commits and unknown results', () => {
    const session = transcript()
      .prompt("Build it, but don't touch the config.")
      .tool('Bash', { command: 'make' }, 'Exit code 2\nmake: *** No rule to make target')
      .tool('Bash', { command: 'ls' }, 'nothing', { exitCode: 3, stdout: '', stderr: '' })
      .tool('Edit', { file_path: '/repo/b.ts', old_string: 'a', new_string: 'b' }, 'Exit code 1')
      .tool('Bash', { command: 'git commit -m "fix"' }, '[main abc1234] fix\n 1 file changed');
    session.loaded.push(...transcript().tool('Bash', { command: 'sleep 100' }).loaded.slice(0, 1));
    const [, , task, files, workflow, errors, , learnings, results] = sections(
      offlineSessionMemory({ loaded: session.loaded }),
    );
    expect(workflow).toContain('- `make` — exit 2');
    expect(workflow).toContain('- `ls` — exit 3');
    expect(workflow).toContain('- `sleep 100` — no result yet');
    // The request is no correction; its rule is the user's.
    expect(errors).not.toContain('User correction');
    expect(task).toContain('- User rule: "Build it, but don\'t touch the config."');
    expect(errors).toContain('- Bash `make` failed (exit 2): make: *** No rule to make target');
    expect(errors).toContain('- Bash `ls` failed (exit 3): nothing');
    expect(files).not.toContain('/repo/b.ts');
    expect(learnings).toContain('- None yet.');
    expect(results).toContain('- `git commit -m "fix"` committed — [main abc1234] fix');
  });

  it('leaves out meta messages, command plumbing and interruptions from the requests', () => {
    const session = transcript()
      .prompt('real request')
      .prompt('<command-name>/clear</command-name>')
      .prompt('[Request interrupted by user]');
    session.loaded.push({
      ...(transcript().prompt('Continue from where you left off.').loaded[0] as LoadedEntry),
      entry: { ...indexed('user', 'meta'), isMeta: true },
    });
    const [, , task, , , , , , , worklog] = sections(offlineSessionMemory({ loaded: session.loaded }));
    expect(task).toContain('- First request: real request');
    for (const text of ['/clear', 'interrupted', 'Continue from']) {
      expect(task).not.toContain(text);
      expect(worklog).not.toContain(text);
    }
  });
});
