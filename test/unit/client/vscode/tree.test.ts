/** The sessions view's model: pages, updates in place, and the nodes the tree shows. */
import { describe, expect, it } from 'vitest';
import type { SessionList } from '../../../../client/index.js';
import { contextBar, SessionsModel, sessionNode } from '../../../../client/vscode/src/tree.js';
import { otherSession, reactiveThreshold, sampleSession, threshold } from './sample.js';

const NOW = Date.parse('2026-12-02T11:00:00.000Z');
const page = (sessions: SessionList['sessions'], nextCursor: string | null = null): SessionList => ({
  sessions,
  total: null,
  hidden: 0,
  nextCursor,
});
const ids = (model: SessionsModel) => model.all.map((session) => session.sessionId);

describe('SessionsModel', () => {
  it('shows nothing before the first page, and says so when memd knows no session', () => {
    const model = new SessionsModel();
    expect(model.nodes(NOW)).toEqual([]);
    model.reset(page([]));
    expect(model.nodes(NOW)).toEqual([
      { kind: 'message', id: 'memd.empty', label: 'memd knows no Claude Code session yet', icon: 'info' },
    ]);
  });

  it('pages with a Load more node and shows no session twice', () => {
    const model = new SessionsModel();
    model.reset(page([otherSession('c', '2026-12-03'), otherSession('b', '2026-12-02')], 'cursor-1'));
    expect(model.nodes(NOW).map((node) => node.kind)).toEqual(['session', 'session', 'more']);
    expect(model.nodes(NOW).at(-1)).toMatchObject({ label: 'Load more sessions…', command: { id: 'memd.loadMore' } });
    model.append(page([otherSession('b', '2026-12-02'), otherSession('a', '2026-12-01')]));
    expect(ids(model)).toEqual(['c', 'b', 'a']);
    expect(model.hasMore).toBe(false);
    expect(model.nodes(NOW).map((node) => node.kind)).toEqual(['session', 'session', 'session']);
  });

  it('moves an updated session up when its activity is newer, and replaces it in place otherwise', () => {
    const model = new SessionsModel();
    model.reset(
      page([otherSession('c', '2026-12-03'), otherSession('b', '2026-12-02'), otherSession('a', '2026-12-01')]),
    );
    expect(model.update(otherSession('a', '2026-12-04', 90_000))).toBe(true);
    expect(ids(model)).toEqual(['a', 'c', 'b']);
    expect(model.find('a')?.contextTokens).toBe(90_000);
    model.update(otherSession('b', '2026-12-02', 120_000));
    expect(ids(model)).toEqual(['a', 'c', 'b']);
    expect(model.find('b')?.contextTokens).toBe(120_000);
  });

  it('adds a new session where the loaded pages cover its place, and leaves it to a later page otherwise', () => {
    const model = new SessionsModel();
    expect(model.update(otherSession('x', '2026-12-09'))).toBe(false);
    model.reset(page([otherSession('c', '2026-12-03'), otherSession('b', '2026-12-02')], 'more'));
    expect(model.update(otherSession('new', '2026-12-05'))).toBe(true);
    expect(ids(model)).toEqual(['new', 'c', 'b']);
    expect(model.update(otherSession('old', '2026-11-01'))).toBe(false);
    expect(ids(model)).toEqual(['new', 'c', 'b']);
    model.clear();
    expect(model.nodes(NOW)).toEqual([]);
    expect(model.update(otherSession('new', '2026-12-06'))).toBe(false);
  });
});

describe('session nodes', () => {
  it('carry the context bar as their description and open the session on a click', () => {
    const session = sampleSession();
    const node = sessionNode(session, NOW);
    expect(node).toMatchObject({
      kind: 'session',
      id: `memd.session.${session.sessionId}`,
      label: 'invoice-service (4be41908)',
      description: '▕█░░░░░░░▏ 13% used of auto-compact · 146K left',
      icon: 'comment-discussion',
      contextValue: 'memd.session',
      command: { id: 'memd.openSession', args: [session.sessionId] },
    });
    expect(contextBar(session, NOW)).toBe(node.kind === 'session' ? node.description : '');
    expect(node.kind === 'session' && node.tooltip).toContain(
      '▕█░░░░░░░▏ 13% used of auto-compact · 146K left · 0 compactions · mem - · $0.38',
    );
  });

  it('carry "context used" of the window in reactive mode', () => {
    const node = sessionNode(sampleSession({ contextTokens: 32_700, threshold: reactiveThreshold(32_700) }), NOW);
    expect(node).toMatchObject({ description: '▕░░░░░░░░▏ 3% context used · 967K left' });
  });

  it('expand to their forecasts only when memd answers usage.status', () => {
    expect(sessionNode(sampleSession(), NOW)).toMatchObject({ expandable: false });
    expect(sessionNode(sampleSession(), NOW, true)).toMatchObject({ expandable: true });
    const model = new SessionsModel();
    model.reset(page([sampleSession()]));
    expect(model.nodes(NOW, true)[0]).toMatchObject({ kind: 'session', expandable: true });
    expect(model.nodes(NOW)[0]).toMatchObject({ kind: 'session', expandable: false });
  });

  it('show the state in their icon', () => {
    expect(sessionNode(sampleSession({ threshold: threshold(150_000, 'warning') }), NOW)).toMatchObject({
      icon: 'warning',
    });
    expect(sessionNode(sampleSession({ threshold: threshold(170_000, 'autocompact') }), NOW)).toMatchObject({
      icon: 'error',
    });
  });
});
