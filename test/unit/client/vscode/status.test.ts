/** The status bar item: the shared context string for the workspace's session, or why there is none. */
import { describe, expect, it } from 'vitest';
import { factsFromSummary } from '../../../../client/memctl/quick/statusline.js';
import type { LinkState } from '../../../../client/vscode/src/link.js';
import {
  contextLine,
  reportedFacts,
  type StatusInput,
  samePath,
  sessionName,
  statusFacts,
  statusView,
} from '../../../../client/vscode/src/status.js';
import type { ReportedState } from '../../../../shared/protocol/reports.js';
import { formatStatusLine } from '../../../../shared/statusline/format.js';
import { reactiveThreshold, sampleSession, threshold } from './sample.js';

const NOW = Date.parse('2026-12-02T11:00:00.000Z');
const connected: LinkState = {
  kind: 'connected',
  daemon: { name: 'memd', version: '0.1.0', protocol: 1, capabilities: [] },
  generation: 1,
};
const input = (overrides: Partial<StatusInput> = {}): StatusInput => ({
  link: connected,
  folders: ['/home/user/src/invoice-service'],
  session: sampleSession(),
  columns: 82,
  now: NOW,
  ...overrides,
});

describe('the status line', () => {
  it('is the shared context string, without colour, after a codicon', () => {
    const session = sampleSession({
      compactions: { count: 2, lastTrigger: 'auto', lastPreTokens: 1, lastPostTokens: 1 },
      sessionMemory: {
        extractedAt: '2026-12-02T10:57:00.000Z',
        lock: null,
        spentUsd: 0,
        spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        writer: null,
      },
    });
    const view = statusView(input({ session }));
    expect(view.text).toBe('$(pulse) ▕█░░░░░░░▏ 13% used of auto-compact · 146K left · 2 compactions · mem 3m · $0.38');
    expect(view.text.slice('$(pulse) '.length)).toBe(
      formatStatusLine(statusFacts(session), { color: false, columns: 80, now: NOW }),
    );
    expect(view.text).not.toContain('\x1b[');
    expect(view.severity).toBe('none');
    expect(view.command).toEqual({ id: 'memd.openSession', args: [session.sessionId] });
    expect(view.tooltip).toContain('context 21,311 tokens, auto-compact at 167,000 (ok)');
    expect(view.tooltip).toContain('cwd /home/user/src/invoice-service');
  });

  it('says "context used" of the window in reactive mode (Claude Code 2.1.197 on Opus 4.8)', () => {
    const view = statusView(
      input({ session: sampleSession({ contextTokens: 32_700, threshold: reactiveThreshold(32_700) }) }),
    );
    expect(view.text).toBe('$(pulse) ▕░░░░░░░░▏ 3% context used · 967K left · 0 compactions · mem - · $0.38');
    expect(view.tooltip).toContain(
      'context 32,700 of 1,000,000 tokens, compacts when the API refuses the request (ok)',
    );
    expect(view.tooltip).not.toContain('auto-compact');
  });

  it('drops its least useful parts to fit the columns, never the percentage', () => {
    const session = sampleSession();
    expect(statusView(input({ columns: 40 })).text).toBe(`$(pulse) ${contextLine(session, 38, NOW)}`);
    // The codicon renders as one glyph: with its space, two of the 40 columns.
    expect([...statusView(input({ columns: 40 })).text.replace('$(pulse) ', '')].length).toBeLessThanOrEqual(38);
    expect(statusView(input({ columns: 20 })).text).toContain('13% used of auto-compact');
  });

  it('shows the reasoning effort Claude Code reported beside the model, first, and no model without one (issue 31)', () => {
    const effort = { value: { level: 'high' }, provenance: 'official' as const, sessionId: 's', reportedAt: 'now' };
    const reported = { rateLimits: null, accountRateLimits: null, promptCache: null };
    const session = sampleSession({ model: 'claude-opus-4-8', reported: { ...reported, effort } });
    expect(statusView(input({ session, columns: 120 })).text).toMatch(/^\$\(pulse\) Opus 4\.8 \(high\) · ▕/);
    expect(statusFacts(sampleSession({ reported })).model).toBeUndefined();
    expect(statusFacts(sampleSession()).model).toBeUndefined();
  });

  it('says "mem -" before the first extraction and ignores an unreadable time', () => {
    expect(statusFacts(sampleSession()).memoryAt).toBeNull();
    expect(
      statusFacts(
        sampleSession({
          sessionMemory: {
            extractedAt: 'yesterday',
            lock: null,
            spentUsd: 0,
            spentTokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            writer: null,
          },
        }),
      ).memoryAt,
    ).toBeNull();
    expect(statusView(input()).text).toContain('mem -');
  });

  it.each([
    ['ok', 'none'],
    ['warning', 'warning'],
    ['error', 'warning'],
    ['autocompact', 'error'],
    ['blocking', 'error'],
  ] as const)('colours %s as %s', (state, severity) => {
    expect(statusView(input({ session: sampleSession({ threshold: threshold(150_000, state) }) })).severity).toBe(
      severity,
    );
  });

  it('says when memd is not answering, and when it will try again', () => {
    const view = statusView(
      input({ link: { kind: 'disconnected', reason: 'memd is not running', retryInMs: 1_500 }, session: null }),
    );
    expect(view.text).toBe('$(debug-disconnect) memd');
    expect(view.tooltip).toBe(
      'memd is not answering: memd is not running\nRetrying in 2 s; memd: Start the Daemon starts it.',
    );
    expect(view.command.id).toBe('memd.sessions.focus');
    expect(statusView(input({ link: { kind: 'connecting' } })).text).toBe('$(sync~spin) memd');
  });

  it('says when no folder is open, or the folder has no session', () => {
    expect(statusView(input({ folders: [], session: null })).tooltip).toBe(
      'memd: open a folder to see its Claude Code session.',
    );
    const none = statusView(input({ session: null }));
    expect(none.text).toBe('$(pulse) memd: no session');
    expect(none.tooltip).toBe('memd knows no Claude Code session of /home/user/src/invoice-service.');
  });
});

describe("the survival score of Claude Code's last compaction (issue 32)", () => {
  it('shows "last compaction kept 41/43" as memctl statusline does, and nothing from an older memd', () => {
    const session = sampleSession({ lastCompaction: { kept: 41, lost: 2, recordedAt: '2026-12-02T10:50:00.000Z' } });
    const view = statusView(input({ session, columns: 120 }));
    expect(view.text).toContain(' · last compaction kept 41/43 · ');
    expect(statusFacts(session).lastKept).toEqual(factsFromSummary(session, null)?.lastKept);
    expect(statusView(input({ session: sampleSession(), columns: 120 })).text).not.toContain('last compaction');
  });
});

describe('the plan, cache and deletion segments (issue 31)', () => {
  const reported = (overrides: Partial<ReportedState> = {}): ReportedState => ({
    rateLimits: null,
    accountRateLimits: null,
    promptCache: null,
    ...overrides,
  });
  const report = <T>(value: T, sessionId = sampleSession().sessionId) => ({
    value,
    provenance: 'official' as const,
    sessionId,
    reportedAt: new Date(NOW - 180_000).toISOString(),
  });

  it('shows the 5h window, the cache and the deletions as memctl statusline does, each tooltip line saying whose', () => {
    const session = sampleSession({
      deletedNotHeld: 2,
      reported: reported({
        rateLimits: report({
          fiveHour: { usedPercent: 42.4, resetsAt: NOW + 6_720_000 },
          sevenDay: { usedPercent: 8, resetsAt: null },
        }),
        promptCache: report({ warm: true, expiresAt: NOW + 240_000, ttl: '5m' }),
      }),
    });
    const view = statusView(input({ session, columns: 200 }));
    expect(view.text).toBe(
      '$(pulse) ▕█░░░░░░░▏ 13% used of auto-compact · 5h 42% ↻1h52m · 146K left · cache 4m · 0 compactions · mem - · $0.38 · 2 deleted, not kept',
    );
    expect(view.text.slice('$(pulse) '.length)).toBe(
      formatStatusLine(factsFromSummary(session, null) ?? statusFacts(sampleSession()), {
        color: false,
        columns: 198,
        now: NOW,
      }),
    );
    expect(view.tooltip).toContain('5h window 42.4% used, resets in 1h52m (official: Claude Code reported it 3m ago)');
    expect(view.tooltip).toContain('prompt cache warm, expires in 4m (official: Claude Code reported it 3m ago)');
    expect(view.tooltip).toContain(
      'Claude Code deleted 2 sessions in the last 7 days that memd did not hold (memd saw the files go; memctl archive deleted lists them)',
    );
  });

  it('takes the account’s window when the session reported none, and says which session did', () => {
    const session = sampleSession({
      reported: reported({
        accountRateLimits: report({ fiveHour: { usedPercent: 91, resetsAt: null } }, 'c0ffee00-aaaa'),
        promptCache: report({ warm: false, lastMissCauses: ['tools_changed', 'ttl_expired_5m'] }),
      }),
    });
    const view = statusView(input({ session, columns: 200 }));
    expect(view.text).toContain('· 5h 91% ·');
    expect(view.text).toContain('· cache cold: tools ·');
    expect(view.tooltip).toContain('5h window 91% used (official: Claude Code reported it 3m ago (session c0ffee00))');
    expect(view.tooltip).toContain(
      'prompt cache cold, last miss: tools_changed, ttl_expired_5m (official: Claude Code reported it 3m ago)',
    );
  });

  it('marks a cache reported warm whose expiry has passed as memd’s reading (estimated)', () => {
    const session = sampleSession({
      reported: reported({ promptCache: report({ warm: true, expiresAt: NOW - 1_000 }) }),
    });
    const view = statusView(input({ session, columns: 200 }));
    expect(view.text).toContain('cache cold: expired');
    expect(view.tooltip).toContain('prompt cache cold, its expiry has passed (estimated: reported warm)');
  });

  it('shows none of them for a list row or an older memd (no reported, no deletedNotHeld)', () => {
    const view = statusView(input({ columns: 200 }));
    expect(view.text).not.toMatch(/5h|cache|deleted/);
    expect(view.tooltip).not.toMatch(/5h window|prompt cache|deleted/);
    expect(reportedFacts(undefined)).toEqual({});
  });
});

describe('names and paths', () => {
  it('names a session by its title, else its folder, with the short id', () => {
    expect(sessionName(sampleSession())).toBe('invoice-service (4be41908)');
    expect(sessionName(sampleSession({ title: '  Fix rounding \n' }))).toBe('Fix rounding (4be41908)');
    expect(sessionName(sampleSession({ cwd: null }))).toBe('-home-user-src-invoice-service (4be41908)');
    // Titles are often the first prompt, whole.
    const prompt =
      'Customers are being overcharged when an invoice has a fixed discount and tax.\nFind and fix the bug.';
    expect(sessionName(sampleSession({ title: prompt }))).toBe(
      'Customers are being overcharged when an invoice h… (4be41908)',
    );
  });

  it('compares folders without their trailing slashes', () => {
    expect(samePath('/a/b/', '/a/b')).toBe(true);
    expect(samePath('/', '/')).toBe(true);
    expect(samePath('/a/b', '/a/bc')).toBe(false);
  });
});
