/** A small report model for the renderers' tests: untrusted text where it can hurt, a compaction, a failed call. */
import type { ReportModel } from '../../../../shared/export/model.js';

export const HOSTILE_PROMPT = 'Why does <script>alert("x")</script> run? & what about <img src=x onerror=alert(1)>';

export function sampleModel(overrides: Partial<ReportModel> = {}): ReportModel {
  return {
    session: {
      sessionId: 'cf9834e4-97c5-434d-84d9-f987c788a79e',
      title: 'Fix the <b>charges</b>',
      project: '-home-user-src-payments-api',
      cwd: '/home/user/src/payments-api',
      gitBranch: 'main',
      model: 'claude-opus-4-8',
      firstActivity: '2026-12-02T10:26:08.000Z',
      lastActivity: '2026-12-02T10:30:00.000Z',
    },
    conversation: {
      items: [
        { kind: 'prompt', at: '2026-12-02T10:26:08.000Z', text: HOSTILE_PROMPT, cutChars: 0 },
        { kind: 'assistant', at: '2026-12-02T10:26:09.000Z', text: 'Running the tests.', cutChars: 0 },
        {
          kind: 'tool',
          at: '2026-12-02T10:26:10.000Z',
          call: {
            id: 'toolu_1',
            name: 'Bash',
            label: 'npm test',
            input: { text: '{\n  "command": "npm test"\n}', cutChars: 0 },
            result: { text: 'FAIL ```fenced``` </details> <script>x</script>', cutChars: 1234, failed: true, exit: 1 },
          },
        },
        { kind: 'compaction', at: '2026-12-02T10:27:00.000Z', trigger: 'auto', preTokens: 189_483 },
        { kind: 'summary', at: '2026-12-02T10:27:00.000Z', text: 'The user asked for a fix.', cutChars: 0 },
        { kind: 'thinking', at: '2026-12-02T10:27:01.000Z', text: 'Hmm.', cutChars: 0 },
      ],
      omittedItems: 0,
      offBranchMessages: 0,
      cutTexts: 1,
      limits: { toolOutputChars: 2_000, textChars: 20_000, totalChars: 8_000_000 },
    },
    chart: {
      points: [
        { at: '2026-12-02T10:26:09.000Z', tokens: 20_000 },
        { at: '2026-12-02T10:26:10.000Z', tokens: 189_483 },
        { at: '2026-12-02T10:27:02.000Z', tokens: 18_000 },
      ],
      compactions: [{ after: 2, at: '2026-12-02T10:27:00.000Z', trigger: 'auto', preTokens: 189_483 }],
      autoCompactAt: 167_000,
      window: 200_000,
      autoCompactMode: 'threshold',
    },
    costs: {
      rows: [
        {
          model: 'claude-opus-4-8',
          responses: 3,
          input: 100,
          output: 200,
          cacheCreation: 300,
          cacheRead: 600,
          costUsd: 1.5,
        },
      ],
      total: {
        model: 'total',
        responses: 3,
        input: 100,
        output: 200,
        cacheCreation: 300,
        cacheRead: 600,
        costUsd: 1.5,
      },
      cacheHitRate: 0.6,
    },
    files: [
      { path: '/home/user/src/payments-api/payments/charges.py', reads: 2, edits: 1, writes: 0 },
      { path: '/etc/<hosts>', reads: 1, edits: 0, writes: 0 },
    ],
    errors: [{ at: '2026-12-02T10:26:10.000Z', tool: 'Bash', label: 'npm test', line: 'AssertionError: <expected> 1' }],
    omittedErrors: 0,
    ...overrides,
  };
}
