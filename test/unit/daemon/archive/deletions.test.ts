import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDeletionBook,
  DELETION_BURST_GAP_MS,
  deletedSession,
  deletionEvents,
  deletionsStatus,
} from '../../../../daemon/archive/deletions.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import type { FileRow } from '../../../../daemon/store/rows.js';
import type { DeletedSession } from '../../../../shared/protocol/archive.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';

const T0 = Date.parse('2026-12-03T09:00:00.000Z');
const open: { store: Store; dir: string }[] = [];

afterEach(() => {
  for (const { store, dir } of open.splice(0)) {
    store.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function book() {
  const dir = mkdtempSync('/tmp/memd-deletions-');
  const store = openStore(join(dir, 'memd.sqlite'), fakeLogger());
  open.push({ store, dir });
  return createDeletionBook(store.db);
}

const file = (sessionId: string, name: string, size: number): FileRow =>
  ({
    path: `/p/proj/${name}.jsonl`,
    project: 'proj',
    session_id: sessionId,
    agent_id: null,
    size,
    committed_offset: size,
  }) as FileRow;

const session = (sessionId: string, goneAt: number, state: DeletedSession['state']): DeletedSession => ({
  sessionId,
  project: 'proj',
  projectName: 'proj',
  title: null,
  goneAt: new Date(goneAt).toISOString(),
  files: 1,
  bytes: 10,
  heldBytes: state === 'kept' ? 10 : 0,
  state,
  problem: null,
});

describe('the deletion book', () => {
  it('records each file gone, one row per session with its files and bytes, checking until checked', () => {
    const deletions = book();
    expect(deletions.takeRecorded()).toBe(false);
    deletions.record(file('s1', 's1', 100), T0);
    deletions.record(file('s1', 's1/subagents/agent-a', 50), T0 + 1);
    deletions.record(file('s2', 's2', 70), T0 + 2);
    deletions.record(file('empty', 'empty', 0), T0 + 3);
    expect(deletions.takeRecorded()).toBe(true);
    expect(deletions.takeRecorded()).toBe(false);
    const names = { projectName: (p: string) => `name of ${p}`, title: () => null };
    let rows = deletions.sessionsSince(0).map((row) => deletedSession(row, names));
    expect(rows.map((row) => [row.sessionId, row.files, row.bytes, row.state])).toEqual([
      ['s2', 1, 70, 'checking'],
      ['s1', 2, 150, 'checking'],
    ]);
    const [main, agent, other] = deletions.unchecked();
    deletions.checked(main?.id as number, { bytes: 100, verified: true, problem: null }, T0 + 10);
    deletions.checked(agent?.id as number, { bytes: 0, verified: false, problem: 'the archive is off' }, T0 + 10);
    deletions.checked(other?.id as number, { bytes: 70, verified: true, problem: null }, T0 + 10);
    rows = deletions.sessionsSince(0).map((row) => deletedSession(row, names));
    expect(rows.map((row) => [row.sessionId, row.heldBytes, row.state, row.problem, row.projectName])).toEqual([
      ['s2', 70, 'kept', null, 'name of proj'],
      ['s1', 100, 'partial', 'the archive is off', 'name of proj'],
    ]);
    expect(deletions.sessionsSince(T0 + 2).map((row) => row.sessionId)).toEqual(['s2']);
  });

  it('counts a file deleted, restored and deleted again once, as its latest deletion says', () => {
    const deletions = book();
    deletions.record(file('s1', 's1', 100), T0);
    deletions.record(file('s1', 's1', 120), T0 + 60_000);
    expect(deletions.sessionsSince(0)).toMatchObject([{ sessionId: 's1', files: 1, bytes: 120 }]);
  });
});

describe('deletion events', () => {
  it('groups deletions no more than DELETION_BURST_GAP_MS apart into one burst, newest first', () => {
    const sessions = [
      session('c', T0 + DELETION_BURST_GAP_MS * 3, 'lost'),
      session('b2', T0 + DELETION_BURST_GAP_MS, 'kept'),
      session('b1', T0 + 1_000, 'checking'),
      session('a', T0, 'kept'),
    ];
    const events = deletionEvents(sessions);
    expect(events).toEqual([
      expect.objectContaining({ sessions: 1, kept: 0, notHeld: 1, checking: 0 }),
      expect.objectContaining({
        from: new Date(T0).toISOString(),
        to: new Date(T0 + DELETION_BURST_GAP_MS).toISOString(),
        sessions: 3,
        kept: 2,
        notHeld: 0,
        checking: 1,
        projects: ['proj'],
      }),
    ]);
    expect(deletionsStatus(sessions)).toMatchObject({ sessions: 4, notHeld: 1, checking: 1, last: events[0] });
    expect(deletionsStatus([])).toEqual({ sessions: 0, files: 0, bytes: 0, notHeld: 0, checking: 0, last: null });
  });
});
