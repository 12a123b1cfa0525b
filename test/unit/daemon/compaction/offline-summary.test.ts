import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createOfflineCompactionSummarizer,
  offlineSummary,
  USER_MESSAGES_MAX_TOKENS,
} from '../../../../daemon/compaction/offline-summary.js';
import { continuationText } from '../../../../daemon/compaction/session-memory.js';
import { stripAnalysis } from '../../../../daemon/compaction/summary.js';
import type { LoadedEntry } from '../../../../daemon/transcripts/entries.js';
import { errorKeyLine, fitUserMessages } from '../../../../daemon/transcripts/facts.js';
import {
  CONTINUATION_CLOSING,
  CONTINUATION_OPENING,
  RECENT_PRESERVED,
  SUMMARY_SECTIONS,
} from '../../../../shared/transcript/compaction-texts.js';
import { roughTokens } from '../../../../shared/transcript/tokens.js';
import type { IndexedEntry } from '../../../../shared/transcript/types.js';
import { indexedEntry, ingestFixture } from '../../../helpers/compact.js';
import type { Manifest } from '../../../helpers/fixtures.js';
import { SCENARIOS } from '../../../helpers/ingest.js';

interface FullManifest extends Manifest {
  prompts: { text: string; isCommand: boolean }[];
  files: { read: string[]; edited: string[]; written: string[] };
  errors: { message: string; sidechain: boolean }[];
  todos: { content: string; status: string }[] | null;
  tasks: { subject: string; status: string }[] | null;
}

/** Section bodies by number, checking that all nine headings are there, in order. */
function sections(summary: string): string[] {
  const at = SUMMARY_SECTIONS.map((title, index) => summary.indexOf(`${index + 1}. ${title}:\n`));
  for (const [index, position] of at.entries()) {
    expect(position, SUMMARY_SECTIONS[index]).toBeGreaterThanOrEqual(0);
    if (index > 0) expect(position).toBeGreaterThan(at[index - 1] as number);
  }
  return at.map((position, index) => summary.slice(position, at[index + 1] ?? summary.length));
}

function indexed(type: string, uuid: string, overrides: Partial<IndexedEntry> = {}): IndexedEntry {
  return indexedEntry({ type, uuid, sessionId: 's', ...overrides });
}

let serial = 0;
const prompt = (text: string, overrides: Partial<IndexedEntry> = {}): LoadedEntry => {
  const uuid = `u${serial++}`;
  return {
    entry: indexed('user', uuid, overrides),
    raw: { type: 'user', uuid, message: { role: 'user', content: text } },
  };
};
const assistant = (content: unknown[]): LoadedEntry => {
  const uuid = `a${serial++}`;
  return {
    entry: indexed('assistant', uuid, { messageId: uuid }),
    raw: { type: 'assistant', uuid, message: { role: 'assistant', content } },
  };
};
const toolResult = (
  id: string,
  content: string,
  extra: Record<string, unknown> = {},
  toolUseResult: unknown = undefined,
): LoadedEntry => {
  const uuid = `r${serial++}`;
  return {
    entry: indexed('user', uuid),
    raw: {
      type: 'user',
      uuid,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...extra }] },
      toolUseResult,
    },
  };
};
const bash = (id: string, command: string) => assistant([{ type: 'tool_use', id, name: 'Bash', input: { command } }]);
describe('the offline summary of each fixture', () => {
  it.each(SCENARIOS)(
    '%s: nine sections, every prompt verbatim, every changed file, every error, open tasks',
    async (scenario) => {
      const fixture = await ingestFixture(scenario);
      try {
        const manifest = fixture.manifest as FullManifest;
        const conversation = fixture.conversation();
        const summarizer = createOfflineCompactionSummarizer();
        const raw = await summarizer.summarize({ messages: conversation.messages, loaded: conversation.loaded });
        // Wrapped as a model's summary is, so that tags in what it quotes are never taken for it.
        expect(raw).toMatch(/^<summary>\n[\s\S]*\n<\/summary>$/);
        const summary = stripAnalysis(raw);
        const bodies = sections(summary);
        expect(summary).toMatch(/^1\. Primary Request and Intent:\n {3}\S/);
        // Claude Code's own summaries (and this one) quote every user message in section 6.
        for (const { text } of manifest.prompts.filter((candidate) => !candidate.isCommand))
          expect(bodies[5]).toContain(`"${text}"`);
        for (const path of [...manifest.files.edited, ...manifest.files.written]) {
          // Before the last boundary, files are known only from the earlier summary, which names them relative to the project.
          if (scenario === 'compactions')
            expect(summary.includes(path) || summary.includes(relative(manifest.cwd, path))).toBe(true);
          else expect(bodies[2]).toContain(path);
        }
        for (const error of manifest.errors.filter((candidate) => !candidate.sidechain))
          expect(bodies[3]).toContain(error.message);
        if (manifest.errors.length === 0) expect(bodies[3]).toContain('- None.');
        const open = [
          ...(manifest.todos ?? []).map((todo) => ({ status: todo.status, text: todo.content })),
          ...(manifest.tasks ?? []).map((task) => ({ status: task.status, text: task.subject })),
        ].filter((task) => task.status !== 'completed');
        for (const task of open) expect(bodies[6]).toContain(task.text);
        expect(bodies[8]).toContain(open[0] === undefined ? 'Wait for the next request.' : open[0].text);
        // Deterministic.
        expect(await summarizer.summarize({ messages: conversation.messages, loaded: conversation.loaded })).toBe(raw);
      } finally {
        fixture.close();
      }
    },
  );

  it('coding-loop: languages, commands, edits, fixes and the current work', async () => {
    const fixture = await ingestFixture('coding-loop');
    try {
      const summary = offlineSummary(fixture.conversation().loaded, 'keep every edited file path');
      const bodies = sections(summary);
      expect(bodies[0]).toContain('Focus requested: keep every edited file path');
      expect(bodies[1]).toContain('JavaScript (.js)');
      expect(bodies[1]).toContain('`node`');
      expect(bodies[2]).toContain('/home/user/src/invoice-service/src/totals.js: read; edited ×2');
      expect(bodies[2]).toContain('`return Math.round(discounted * (1 + taxRateFor(invoice.region)));`');
      expect(bodies[3]).toContain(
        'Bash `node test/run.js` failed (Exit code 1): AssertionError [fixed discount is applied before tax]: expected 10353, got 10638',
      );
      expect(bodies[3]).toContain(
        'Fixed: the same command succeeded later after changes to /home/user/src/invoice-service/src/totals.js.',
      );
      expect(bodies[6]).toContain('[pending] Add a regression test for zero-quantity invoice lines');
      expect(bodies[6]).not.toContain('Fix computeTotal');
      expect(bodies[7]).toContain(
        'Last request: "Does formatCurrency have the same rounding problem? Check before we ship."',
      );
      expect(bodies[7]).toContain('prints `EUR 103.53`');
    } finally {
      fixture.close();
    }
  });

  it('compactions: carries the earlier summary forward without repeating a preserved prompt', async () => {
    const fixture = await ingestFixture('compactions');
    try {
      const bodies = sections(offlineSummary(fixture.conversation().loaded));
      expect(bodies[0]).toContain('Earlier (from the previous summary):');
      expect(bodies[1]).toContain('Python (.py)');
      expect(bodies[1]).toContain('`python3 -m unittest`');
      expect(bodies[2]).toContain('payments/store.py — get_idempotent / remember_idempotent');
      expect(bodies[5]?.match(/Also log a warning whenever a duplicate key is replayed\./g)).toHaveLength(1);
      expect(bodies[5]).not.toContain('/compact');
    } finally {
      fixture.close();
    }
  });
});

describe('the offline summary of generated transcripts', () => {
  it('counts a non-zero exit as a failure even without is_error, and says when it was not fixed', () => {
    const loaded = [
      prompt('build it'),
      bash('t1', 'make'),
      toolResult('t1', 'Exit code 2\nmake: *** No rule to make target'),
      bash('t2', 'make'),
      toolResult('t2', 'Exit code 2\nstill broken'),
    ];
    const bodies = sections(offlineSummary(loaded));
    expect(bodies[3]).toContain('Bash `make` failed (Exit code 2): make: *** No rule to make target');
    expect(bodies[3]).toContain('Not resolved in this part of the conversation.');
    // Problem Solving carries decisions and outcomes, not tool counts (issue 32).
    expect(bodies[4]).not.toMatch(/tool calls/);
  });

  it('counts a failure reported in the structured result', () => {
    const loaded = [
      prompt('check'),
      bash('t1', 'ls'),
      toolResult('t1', 'nothing', {}, { exitCode: 3, stdout: '', stderr: '' }),
    ];
    expect(sections(offlineSummary(loaded))[3]).toContain('Bash `ls` failed: nothing');
  });

  it('leaves out meta messages, command plumbing and tool results from the user messages', () => {
    const loaded = [
      prompt('real request'),
      prompt('Continue from where you left off.', { isMeta: true }),
      prompt('<command-name>/exit</command-name>'),
      prompt('<local-command-stdout>Bye</local-command-stdout>'),
      prompt('<command-args>pay.py</command-args>'),
      bash('t1', 'true'),
      toolResult('t1', 'tool output text'),
    ];
    const section = sections(offlineSummary(loaded))[5] ?? '';
    expect(section).toContain('"real request"');
    for (const text of ['Continue from', '/exit', 'Bye', 'pay.py', 'tool output text'])
      expect(section).not.toContain(text);
  });

  it('keeps all user messages within 20,000 tokens: the newest whole, the oldest shortened', () => {
    const prompts = Array.from(
      { length: 40 },
      (_, index) => `prompt ${String(index).padStart(2, '0')} ${'w'.repeat(4_000)}`,
    );
    const section = sections(offlineSummary(prompts.map((text) => prompt(text))))[5] ?? '';
    const quoted = section.split('\n').filter((line) => line.startsWith('   - "'));
    expect(quoted).toHaveLength(40);
    expect(roughTokens(quoted.reduce((chars, line) => chars + line.length - '   - ""'.length, 0))).toBeLessThanOrEqual(
      USER_MESSAGES_MAX_TOKENS,
    );
    expect(quoted.at(-1)).toBe(`   - "${prompts.at(-1)}"`);
    expect(quoted[0]).toMatch(/^ {3}- "prompt 00 w+…"$/);
  });

  it('reads TodoWrite lists and TaskCreate/TaskUpdate tasks', () => {
    const loaded = [
      prompt('plan'),
      assistant([
        {
          type: 'tool_use',
          id: 't1',
          name: 'TodoWrite',
          input: { todos: [{ content: 'old list item', status: 'pending' }] },
        },
      ]),
      toolResult('t1', 'ok'),
      assistant([
        {
          type: 'tool_use',
          id: 't2',
          name: 'TodoWrite',
          input: {
            todos: [
              { content: 'done item', status: 'completed' },
              { content: 'doing item', status: 'in_progress' },
              { content: 'later item', status: 'pending' },
            ],
          },
        },
      ]),
      toolResult('t2', 'ok'),
      assistant([
        { type: 'tool_use', id: 't3', name: 'TaskCreate', input: { subject: 'Ship it', description: 'release 1.0' } },
      ]),
      toolResult('t3', 'Task #7 created', {}, { task: { id: '7', subject: 'Ship it' } }),
      assistant([{ type: 'tool_use', id: 't4', name: 'TaskCreate', input: { subject: 'Finished task' } }]),
      toolResult('t4', 'Task #8 created', {}, { task: { id: '8', subject: 'Finished task' } }),
      assistant([{ type: 'tool_use', id: 't5', name: 'TaskUpdate', input: { taskId: '8', status: 'completed' } }]),
      toolResult('t5', 'Updated'),
    ];
    const bodies = sections(offlineSummary(loaded));
    expect(bodies[6]).toContain('[in_progress] doing item');
    expect(bodies[6]).toContain('[pending] later item');
    expect(bodies[6]).toContain('[pending] #7 Ship it (release 1.0)');
    for (const gone of ['old list item', 'done item', 'Finished task']) expect(bodies[6]).not.toContain(gone);
    expect(bodies[7]).toContain('In progress: doing item');
    expect(bodies[8]).toContain('Continue with: doing item');
  });

  it('carries an earlier session-memory summary (no numbered sections) into the primary request', () => {
    const memory = '# Session Title\n_t_\nInvoice rounding fix\n\n# Current State\n_s_\nTests pass.';
    const summaryText = continuationText(memory, { transcriptPath: '/x.jsonl', recentMessagesPreserved: true });
    const loaded = [prompt(summaryText, { isCompactSummary: true }), prompt('next thing')];
    const bodies = sections(offlineSummary(loaded));
    expect(bodies[0]).toContain('Earlier (from the previous summary):\n      # Session Title');
    expect(bodies[0]).toContain('Tests pass.');
    for (const wrapper of [CONTINUATION_OPENING, RECENT_PRESERVED, CONTINUATION_CLOSING, '/x.jsonl'])
      expect(bodies.join('')).not.toContain(wrapper);
    expect(bodies[5]).toBe('6. All user messages:\n   - "next thing"\n\n');
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the client'));
    await expect(
      createOfflineCompactionSummarizer().summarize({ messages: [], loaded: [], signal: controller.signal }),
    ).rejects.toThrow('cancelled by the client');
  });
});

describe('pieces of the summary', () => {
  it('errorKeyLine picks the line that says what failed', () => {
    expect(errorKeyLine('Exit code 1\nok - a\nnot ok - b\n  AssertionError [b]: expected 1, got 2\n# 1/2 passed')).toBe(
      'AssertionError [b]: expected 1, got 2',
    );
    expect(errorKeyLine('Exit code 1\n\n> pkg test\nnot ok - x\n  x: expected [1], got [2]')).toBe(
      'x: expected [1], got [2]',
    );
    expect(errorKeyLine('<tool_use_error>String to replace not found in file.</tool_use_error>')).toBe(
      'String to replace not found in file.',
    );
    expect(
      errorKeyLine(
        'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n    f()\nValueError: bad price',
      ),
    ).toBe('Traceback (most recent call last): … ValueError: bad price');
    expect(errorKeyLine('\n  something odd\nmore')).toBe('something odd');
    expect(errorKeyLine('Exit code 137')).toBe('Exit code 137');
  });

  it('fitUserMessages shortens the oldest first and never exceeds the budget', () => {
    expect(fitUserMessages(['a', 'b'], 100)).toEqual(['a', 'b']);
    const fitted = fitUserMessages(['x'.repeat(500), 'y'.repeat(500), 'z'.repeat(300)], 1_000);
    expect(fitted[2]).toBe('z'.repeat(300));
    expect(fitted.join('').length).toBeLessThanOrEqual(1_000);
    expect(fitted[0]?.endsWith('…')).toBe(true);
    // Many messages: each keeps a share.
    const many = fitUserMessages(
      Array.from({ length: 100 }, () => 'm'.repeat(100)),
      1_000,
    );
    expect(many.every((message) => message.length >= 10)).toBe(true);
    expect(many.join('').length).toBeLessThanOrEqual(1_000);
  });
});
