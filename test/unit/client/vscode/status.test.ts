/** The status bar item: the shared context string for the workspace's session, or why there is none. */
import { describe, expect, it } from 'vitest';
import type { LinkState } from '../../../../client/vscode/src/link.js';
import {
  contextLine,
  type StatusInput,
  samePath,
  sessionName,
  statusFacts,
  statusView,
} from '../../../../client/vscode/src/status.js';
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
      sessionMemory: { extractedAt: '2026-12-02T10:57:00.000Z', lock: null, spentUsd: 0, writer: null },
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
      statusFacts(sampleSession({ sessionMemory: { extractedAt: 'yesterday', lock: null, spentUsd: 0, writer: null } }))
        .memoryAt,
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
