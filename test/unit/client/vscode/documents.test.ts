/** The read-only documents: a session's details, its memory, a compaction preview, a handoff's message. */
import { describe, expect, it } from 'vitest';
import type { CompactionResult, MemorySummaryResult } from '../../../../client/index.js';
import { renderCompaction } from '../../../../client/memctl/views/compaction.js';
import {
  compactionDocument,
  handoffMessage,
  sessionDocument,
  summaryDocument,
} from '../../../../client/vscode/src/documents.js';
import type { HandoffResult } from '../../../../shared/protocol/handoff.js';
import { reactiveThreshold, sampleSession } from './sample.js';

const NOW = Date.parse('2026-12-02T11:00:00.000Z');

describe('sessionDocument', () => {
  it('shows every figure of the session as Markdown', () => {
    const session = sampleSession({
      title: 'Fix | rounding',
      sessionMemory: {
        extractedAt: '2026-12-02T10:30:00.000Z',
        lock: { owner: 'claude-code', expiresAt: NOW },
        spentUsd: 0.25,
        spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        writer: null,
      },
    });
    const document = sessionDocument(session, NOW);
    expect(document.path).toBe(`/session/${session.sessionId}.md`);
    const text = document.content;
    expect(text.split('\n')[0]).toBe('# Fix \\| rounding (4be41908)');
    expect(text).toContain('`▕█░░░░░░░▏ 13% used of auto-compact · 146K left · 0 compactions · mem 30m · $0.38`');
    expect(text).toContain(`| session | ${session.sessionId} |`);
    expect(text).toContain('| context | 21,311 tokens (ok) |');
    expect(text).toContain('| tokens left | 145,689 until auto-compact |');
    expect(text).toContain('| main agent | 79 | 1,897 | 21,150 | 269,555 | 15 | $0.38 |');
    expect(text).toContain('| last extraction | 2026-12-02T10:30:00.000Z (30m ago) |');
    expect(text).toContain('| lock | held by claude-code until 2026-12-02T11:00:00.000Z |');
    expect(text).toContain('| extractions spent | $0.25 |');
    expect(text).toContain('| entries | 49 |');
  });

  it("shows what the last compaction's summary kept and what compactions and handoffs cost (issue 32)", () => {
    const session = sampleSession({
      lastCompaction: { kept: 41, lost: 2, recordedAt: '2026-12-02T10:50:00.000Z' },
      sessionMemory: {
        extractedAt: null,
        lock: null,
        spentUsd: 0,
        spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        spentByKind: [
          {
            kind: 'compaction',
            usd: 0.0046,
            runs: 1,
            tokens: { input: 2_000, output: 500, cacheRead: 1_000, cacheWrite: 0 },
          },
          { kind: 'handoff', usd: 0.0135, runs: 1, tokens: { input: 2_000, output: 500, cacheRead: 0, cacheWrite: 0 } },
        ],
        writer: null,
      },
    });
    const text = sessionDocument(session, NOW).content;
    expect(text).toContain('| facts kept | 41 of 43 by the last summary |');
    expect(text).toContain('last compaction kept 41/43');
    expect(text).toContain('| compactions spent | $0.00 |');
    expect(text).toContain('| handoffs spent | $0.01 |');
    const older = sessionDocument(sampleSession(), NOW).content;
    expect(older).not.toContain('facts kept');
    expect(older).not.toContain('compactions spent');
  });

  it('shows the window, and no threshold or blocking limit, when Claude Code compacts only once the API refuses', () => {
    const text = sessionDocument(
      sampleSession({ contextTokens: 32_700, threshold: reactiveThreshold(32_700) }),
      NOW,
    ).content;
    expect(text).toContain('`▕░░░░░░░░▏ 3% context used · 967K left · 0 compactions · mem - · $0.38`');
    expect(text).toContain('| tokens left | 967,300 until the window |');
    expect(text).toContain('| compacts | when the API refuses the request (at the window) |');
    expect(text).toContain('| warning / error at | 947,000 / 947,000 |');
    expect(text).toContain('| window | 1.0M (effective 980K) |');
    expect(text).not.toContain('auto-compact');
    expect(text).not.toContain('blocking');
  });

  it('says when the transcript is gone or only sub-agents were found', () => {
    expect(sessionDocument(sampleSession({ gone: true }), NOW).content).toContain(
      '| transcript | deleted (the index keeps its figures) |',
    );
    expect(sessionDocument(sampleSession({ hasMainTranscript: false }), NOW).content).toContain(
      '| transcript | only sub-agent files were found |',
    );
  });
});

describe('summaryDocument', () => {
  const base: MemorySummaryResult = {
    sessionId: 'abcdef0123',
    path: '/p/summary.md',
    text: null,
    lastUuid: null,
    extractedAt: null,
    summarizer: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
  };

  it('says how to get one when there is no session memory yet', () => {
    const document = summaryDocument(base, NOW);
    expect(document.path).toBe('/summary/abcdef0123.md');
    expect(document.content).toContain('# No session memory yet for abcdef0123');
    expect(document.content).toContain('`memctl memory extract abcdef01` makes one now. It will be at /p/summary.md.');
  });

  it('shows summary.md verbatim under a comment that says where it is from', () => {
    const document = summaryDocument(
      {
        ...base,
        text: '# Session Title\nFix rounding',
        extractedAt: '2026-12-02T10:58:00.000Z',
        summarizer: 'offline',
      },
      NOW,
    );
    expect(document.content).toBe(
      '<!-- memd: the session memory of abcdef0123, extracted 2026-12-02T10:58:00.000Z (2m ago) by the offline summarizer; /p/summary.md -->\n\n# Session Title\nFix rounding\n',
    );
  });
});

describe('compactionDocument', () => {
  it('is what memctl compact prints, without colour', () => {
    const result = {
      sessionId: 's1',
      method: 'summary',
      messages: [{ role: 'user', content: 'x' }],
      boundary: null,
      summary: 'sum',
      preTokens: 170_110,
      postTokens: 9_000,
      keptFromUuid: 'u-7',
      actions: [{ kind: 'summarized', id: 'a', tokensBefore: 1, tokensAfter: 0 }],
      lost: { userMessages: [], filePaths: ['/a.ts', '/b.ts'], identifiers: [], errors: ['boom'] },
    } as unknown as CompactionResult;
    const plain = {
      out: () => {},
      err: () => {},
      bold: (t: string) => t,
      green: (t: string) => t,
      red: (t: string) => t,
      yellow: (t: string) => t,
      dim: (t: string) => t,
    };
    const document = compactionDocument(result);
    expect(document.path).toBe('/compaction/s1.txt');
    expect(document.content).toBe(`${renderCompaction(result, plain).join('\n')}\n`);
    expect(document.content).toContain('tokens   170K → 9,000 (saves 161K)');
    expect(document.content).toContain('lost     3 items');
  });
});

describe('handoffMessage', () => {
  it('says where the handoff went and what it found', () => {
    const result = {
      sessionId: 's',
      cwd: '/w',
      path: '/w/docs/handoff-context.md',
      partial: false,
      summarizer: 'offline',
      gitignoreUpdated: true,
      pinned: '',
      facts: {
        git: { branch: 'main', porcelain: [' M a.ts'], diffStat: null },
        filesTouched: [{}, {}],
        commands: [{}],
        failing: [],
      },
    } as unknown as HandoffResult;
    expect(handoffMessage(result)).toBe(
      'A handoff by the offline summarizer was written to /w/docs/handoff-context.md (added to .gitignore): 2 files touched, git: 1 changed, 1 commands run, 0 failing.',
    );
    expect(handoffMessage({ ...result, partial: true })).toMatch(/^A partial handoff \(HANDOFF_AUTO_PARTIAL/);
  });
});
