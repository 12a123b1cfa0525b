/** memctl's context bar and session detail (memctl sessions, status, watch) in both of Claude Code 2.1.197's modes. */
import { describe, expect, it } from 'vitest';
import { renderSessionList } from '../../../../../client/memctl/mcp/tools/sessions.js';
import { createOutput } from '../../../../../client/memctl/output.js';
import { renderSessionDetail } from '../../../../../client/memctl/views/session-detail.js';
import { contextBar } from '../../../../../client/memctl/views/sessions.js';
import { computeThresholds } from '../../../../../shared/transcript/thresholds.js';
import { sampleSession } from '../../vscode/sample.js';

const plain = createOutput({ NO_COLOR: '1' });
const NOW = Date.parse('2026-12-02T11:00:00.000Z');

/** Claude Code 2.1.197's default, Opus 4.8 at 1M with no auto-compact window: it compacts when the API refuses. */
const reactive = (tokens: number) => computeThresholds({ model: 'claude-opus-4-8', tokens, env: {} });
/** The same session with a 200K auto-compact window set: it compacts ahead, at 167K. */
const atThreshold = (tokens: number) =>
  computeThresholds({
    model: 'claude-opus-4-8',
    tokens,
    env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' },
    window: 200_000,
  });

describe('contextBar', () => {
  it('is the share of the auto-compact threshold in threshold mode', () => {
    expect(contextBar(140_000, atThreshold(140_000))).toBe('▕███████░▏ 84% used of auto-compact · 140K/167K, 27K left');
  });

  it('is the share of the window, "context used", in reactive mode', () => {
    expect(contextBar(32_700, reactive(32_700))).toBe('▕░░░░░░░░▏ 3% context used · 33K/1.0M, 967K left');
    expect(contextBar(950_000, reactive(950_000))).toBe('▕████████▏ 95% context used · 950K/1.0M, 50K left');
  });

  it('is the share of the effective window when auto-compaction is off, in either mode', () => {
    const off = computeThresholds({ model: 'claude-opus-4-8', tokens: 490_000, env: { DISABLE_AUTO_COMPACT: '1' } });
    expect(contextBar(490_000, off)).toBe('▕████░░░░▏ 50% of window used (auto-compact off) · 490K/980K, 487K left');
  });
});

describe('renderSessionDetail', () => {
  const stateLine = (lines: string[]) => lines.find((line) => line.startsWith('  state'));

  it('names the blocking limit in threshold mode', () => {
    const session = sampleSession({ contextTokens: 140_000, threshold: atThreshold(140_000) });
    expect(stateLine(renderSessionDetail(session, plain, NOW))).toBe(
      "  state     ok, 27K tokens left · warning/error at 147K (Claude Code's warning and error buffers are both 20,000) · blocking 177K · window 200K",
    );
  });

  it('says the session compacts when the API refuses, at the window, in reactive mode', () => {
    const session = sampleSession({ contextTokens: 32_700, threshold: reactive(32_700) });
    const lines = renderSessionDetail(session, plain, NOW);
    expect(stateLine(lines)).toBe(
      "  state     ok, 967K tokens left · warning/error at 947K (Claude Code's warning and error buffers are both 20,000) · compacts when the API refuses the request (at the window) · window 1.0M",
    );
    expect(lines.join('\n')).not.toContain('auto-compact');
  });
});

describe('the MCP list_sessions text', () => {
  it('words the share as Claude Code does in each mode', () => {
    const list = (threshold: ReturnType<typeof reactive>, contextTokens: number) =>
      renderSessionList(
        { sessions: [sampleSession({ contextTokens, threshold })], total: 1, hidden: 0, nextCursor: null },
        'invoice-service',
        false,
        NOW,
      );
    expect(list(reactive(32_700), 32_700)).toContain('context 33K tokens (3% context used, window 1.0M)');
    expect(list(atThreshold(140_000), 140_000)).toContain('context 140K tokens (84% used of auto-compact at ');
  });
});
