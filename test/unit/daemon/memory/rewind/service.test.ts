/**
 * The rewind service on the recorded `checkpoints` session: every checkpoint restored and undone,
 * byte for byte, against the files replayed from the transcript; and what it refuses.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderList } from '../../../../../client/memctl/commands/rewind.js';
import { plainOutput } from '../../../../../client/memctl/output.js';
import { newUndoId, pruneUndoPoints } from '../../../../../daemon/memory/rewind/undo-store.js';
import { undoRoot } from '../../../../../shared/paths.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';
import type { RewindFileChange } from '../../../../../shared/protocol/rewind.js';
import {
  CHECKPOINT_MESSAGES,
  type FileState,
  manifest,
  type RewindFixture,
  readBackupBytes,
  recordedBackups,
  replaySession,
  rewindFixture,
  SESSION_ID,
  treeOf,
} from './fixture.js';

const { before: beforeCheckpoint, end: endState } = replaySession();
const TRACKED = manifest.checkpointedFiles;
/** Not tracked by any checkpoint: no restore may touch it. */
const UNTRACKED = 'package.json';
const EXECUTABLE = 'bin/cli.js';

let fixture: RewindFixture;

beforeEach(async () => {
  fixture = await rewindFixture();
});

afterEach(() => {
  fixture.close();
});

/** The session's last state on disk, plus a file no checkpoint tracks and an executable mode. */
function setUpEndState(): void {
  fixture.writeState(endState);
  writeFileSync(join(fixture.cwd, UNTRACKED), '{"name":"cli-tool"}\n');
  chmodSync(join(fixture.cwd, EXECUTABLE), 0o755);
}

function stateAt(messageId: string): FileState {
  const state = beforeCheckpoint.get(messageId);
  if (state === undefined) throw new Error(`no replayed state before ${messageId}`);
  return state;
}

function expectState(actual: FileState, expected: FileState): void {
  for (const path of TRACKED) {
    const want = expected.get(path) ?? null;
    const got = actual.get(path) ?? null;
    expect(got === null ? null : got.toString('base64'), path).toBe(want === null ? null : want.toString('base64'));
  }
}

/** What a restore from `from` to `to` must report for each tracked file. */
function expectedChanges(cwd: string, from: FileState, to: FileState): RewindFileChange[] {
  return TRACKED.map((path) => {
    const before = from.get(path) ?? null;
    const after = to.get(path) ?? null;
    const bytesBefore = before === null ? null : before.length;
    if (after === null)
      return { path: join(cwd, path), action: before === null ? 'unchanged' : 'delete', bytesBefore, bytesAfter: null };
    if (before?.equals(after))
      return { path: join(cwd, path), action: 'unchanged', bytesBefore, bytesAfter: bytesBefore };
    return { path: join(cwd, path), action: 'write', bytesBefore, bytesAfter: after.length };
  });
}

const byPath = (files: readonly RewindFileChange[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return error;
}

const undoPoints = () =>
  existsSync(join(fixture.stateDir, 'rewind')) ? readdirSync(join(fixture.stateDir, 'rewind')) : [];

describe('the replayed session (the oracle)', () => {
  it('agrees with every backup Claude Code recorded', () => {
    expect(CHECKPOINT_MESSAGES).toHaveLength(manifest.prompts.length);
    let compared = 0;
    for (const messageId of CHECKPOINT_MESSAGES) {
      for (const backup of recordedBackups(messageId).values()) {
        const replayed = stateAt(messageId).get(backup.path) ?? null;
        if (backup.backupFileName === null) expect(replayed, backup.path).toBeNull();
        else
          expect(replayed?.toString('base64'), backup.path).toBe(
            readBackupBytes(backup.backupFileName).toString('base64'),
          );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10);
  });
});

describe('rewind.list', () => {
  it('lists the four checkpoints oldest first, with their prompts and recorded files', async () => {
    const result = await fixture.service.list(SESSION_ID);
    expect(result.sessionId).toBe(SESSION_ID);
    expect(result.cwd).toBe(fixture.cwd);
    expect(result.checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(CHECKPOINT_MESSAGES);
    expect(result.checkpoints.map((checkpoint) => checkpoint.prompt)).toEqual(
      manifest.prompts.map((prompt) => prompt.text),
    );
    expect(result.checkpoints[0]?.timestamp).toBe('2026-12-02T10:28:36.532Z');
    for (const checkpoint of result.checkpoints) {
      const recorded = recordedBackups(checkpoint.messageId);
      expect(checkpoint.files.map((file) => file.path).sort()).toEqual([...recorded.keys()].sort());
      for (const file of checkpoint.files) {
        expect(file).toMatchObject({
          backupFileName: recorded.get(file.path)?.backupFileName,
          version: recorded.get(file.path)?.version,
          backupPresent: true,
        });
      }
    }
    expect(result.checkpoints[0]?.files).toEqual([
      {
        path: 'src/config.js',
        version: 1,
        backupFileName: null,
        backupTime: '2026-12-02T10:28:36.668Z',
        backupPresent: true,
      },
      {
        path: 'test/config.test.js',
        version: 1,
        backupFileName: null,
        backupTime: '2026-12-02T10:28:36.721Z',
        backupPresent: true,
      },
    ]);
    expect(new Set(result.checkpoints.flatMap((checkpoint) => checkpoint.files.map((file) => file.path)))).toEqual(
      new Set(TRACKED),
    );
  });

  it('names the checkpoints a pruned superseded backup leaves incomplete, and still restores one (issue 31)', async () => {
    // Newer Claude Code versions prune a file's superseded backups; here v3 of src/config.js goes.
    const before = await fixture.service.list(SESSION_ID);
    expect(before.checkpoints.map((checkpoint) => checkpoint.goneFiles)).toEqual([[], [], [], []]);
    rmSync(join(fixture.claudeRoot, 'file-history', SESSION_ID, '21be17c30647835a@v3'));
    const result = await fixture.service.list(SESSION_ID);
    expect(result.checkpoints.map((checkpoint) => checkpoint.goneFiles)).toEqual([
      [],
      [],
      ['src/config.js'],
      ['src/config.js'],
    ]);
    const text = renderList(result, plainOutput()).join('\n');
    expect(text).toContain('gone: Claude Code pruned the backup of src/config.js');
    expect(text).toContain('checkpoints 3, 4 can no longer be restored whole');
    setUpEndState();
    const restored = await fixture.service.restore(SESSION_ID, CHECKPOINT_MESSAGES[3] as string);
    expect(restored.files.find((file) => file.path === join(fixture.cwd, 'src/config.js'))?.action).toBe(
      'missing-backup',
    );
  });

  it('shows a backup that is gone as not present', async () => {
    rmSync(join(fixture.claudeRoot, 'file-history', SESSION_ID, '21be17c30647835a@v3'));
    const result = await fixture.service.list(SESSION_ID);
    const config = result.checkpoints.map(
      (checkpoint) => checkpoint.files.find((file) => file.path === 'src/config.js')?.backupPresent,
    );
    expect(config).toEqual([true, true, false, false]);
  });

  it('answers NotFound for a session the index does not know', async () => {
    expect((await rpcError(fixture.service.list('no-such-session'))).code).toBe(ErrorCode.NotFound);
  });
});

describe('rewind.restore and rewind.undo', () => {
  it.each(CHECKPOINT_MESSAGES.map((messageId, index) => [index + 1, messageId]))(
    'restores checkpoint %i byte for byte, and undo puts the files back',
    async (_number, messageId) => {
      setUpEndState();
      const untouched = () => ({
        untracked: treeOf(fixture.cwd)[UNTRACKED],
        executable: statSync(join(fixture.cwd, EXECUTABLE)).mode & 0o7777,
      });
      const beforeRestore = treeOf(fixture.cwd);
      const kept = untouched();

      const restored = await fixture.service.restore(SESSION_ID, messageId);
      expect(restored.dryRun).toBe(false);
      expect(byPath(restored.files)).toEqual(byPath(expectedChanges(fixture.cwd, endState, stateAt(messageId))));
      expectState(fixture.readState(TRACKED), stateAt(messageId));
      // Each file the checkpoint itself records equals its backup (or is absent for null).
      for (const backup of recordedBackups(messageId).values()) {
        const onDisk = fixture.readState([backup.path]).get(backup.path) ?? null;
        expect(onDisk?.toString('base64') ?? null, backup.path).toBe(
          backup.backupFileName === null ? null : readBackupBytes(backup.backupFileName).toString('base64'),
        );
      }
      expect(untouched()).toEqual(kept);
      expect(restored.undoId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
      expect(undoPoints()).toEqual([restored.undoId]);

      // The undo point holds the files the restore changed, and puts each back.
      const changed = new Set(restored.files.filter((file) => file.action !== 'unchanged').map((file) => file.path));
      expect(changed.size).toBeGreaterThan(0);
      const undone = await fixture.service.undo(restored.undoId as string);
      expect(byPath(undone.files)).toEqual(
        byPath(expectedChanges(fixture.cwd, stateAt(messageId), endState).filter((file) => changed.has(file.path))),
      );
      expect(treeOf(fixture.cwd)).toEqual(beforeRestore);
      expect(undoPoints()).toEqual([]);
    },
  );

  it('changes nothing on a dry run, and reports what the real run does', async () => {
    setUpEndState();
    const messageId = CHECKPOINT_MESSAGES[0] as string;
    const files = treeOf(fixture.cwd);
    const state = treeOf(fixture.stateDir);
    const dry = await fixture.service.restore(SESSION_ID, messageId, true);
    expect(dry).toMatchObject({ dryRun: true, undoId: null });
    expect(dry.files.filter((file) => file.action !== 'unchanged')).not.toHaveLength(0);
    expect(treeOf(fixture.cwd)).toEqual(files);
    expect(treeOf(fixture.stateDir)).toEqual(state);

    const real = await fixture.service.restore(SESSION_ID, messageId);
    expect(real.files).toEqual(dry.files);
    const restoredTree = treeOf(fixture.cwd);
    const dryUndo = await fixture.service.undo(real.undoId as string, true);
    expect(dryUndo.dryRun).toBe(true);
    expect(treeOf(fixture.cwd)).toEqual(restoredTree);
    expect(undoPoints()).toEqual([real.undoId]);
    const undone = await fixture.service.undo(real.undoId as string);
    expect(undone.files).toEqual(dryUndo.files);
    expect(treeOf(fixture.cwd)).toEqual(files);
  });

  it('makes no undo point when the files already are as they were', async () => {
    const messageId = CHECKPOINT_MESSAGES[2] as string;
    fixture.writeState(stateAt(messageId));
    const result = await fixture.service.restore(SESSION_ID, messageId);
    expect(result.undoId).toBeNull();
    expect(result.files.every((file) => file.action === 'unchanged')).toBe(true);
    expect(undoPoints()).toEqual([]);
  });

  it('answers NotFound for an unknown session, message or undo id, and for an undo done already', async () => {
    setUpEndState();
    expect((await rpcError(fixture.service.restore('no-such-session', CHECKPOINT_MESSAGES[0] as string))).code).toBe(
      ErrorCode.NotFound,
    );
    const noMessage = await rpcError(fixture.service.restore(SESSION_ID, 'no-such-message'));
    expect(noMessage).toMatchObject({ code: ErrorCode.NotFound, data: { messageId: 'no-such-message' } });
    expect((await rpcError(fixture.service.undo('20261203T090000Z-00000000'))).code).toBe(ErrorCode.NotFound);
    const { undoId } = await fixture.service.restore(SESSION_ID, CHECKPOINT_MESSAGES[1] as string);
    await fixture.service.undo(undoId as string);
    expect((await rpcError(fixture.service.undo(undoId as string))).code).toBe(ErrorCode.NotFound);
  });

  it('refuses an undo id that is not one it made', async () => {
    for (const undoId of ['../state', '..', 'a/b', `20261203T090000Z-00000000/../../x`]) {
      expect((await rpcError(fixture.service.undo(undoId))).code, undoId).toBe(ErrorCode.PathRejected);
    }
  });

  it('reports a missing backup and still restores the other files', async () => {
    setUpEndState();
    rmSync(join(fixture.claudeRoot, 'file-history', SESSION_ID, '21be17c30647835a@v3'));
    const messageId = CHECKPOINT_MESSAGES[2] as string;
    const beforeRestore = treeOf(fixture.cwd);
    const current = endState.get('src/config.js')?.length ?? null;
    const result = await fixture.service.restore(SESSION_ID, messageId);
    expect(result.files.find((file) => file.path === join(fixture.cwd, 'src/config.js'))).toEqual({
      path: join(fixture.cwd, 'src/config.js'),
      action: 'missing-backup',
      bytesBefore: current,
      bytesAfter: current,
    });
    const expected = new Map(stateAt(messageId));
    expected.set('src/config.js', endState.get('src/config.js') ?? null);
    expectState(fixture.readState(TRACKED), expected);
    await fixture.service.undo(result.undoId as string);
    expect(treeOf(fixture.cwd)).toEqual(beforeRestore);
  });

  it('runs concurrent restores one at a time, so each undo point holds the state before it', async () => {
    setUpEndState();
    const beforeRestore = treeOf(fixture.cwd);
    const [first, second] = await Promise.all([
      fixture.service.restore(SESSION_ID, CHECKPOINT_MESSAGES[0] as string),
      fixture.service.restore(SESSION_ID, CHECKPOINT_MESSAGES[3] as string),
    ]);
    expectState(fixture.readState(TRACKED), stateAt(CHECKPOINT_MESSAGES[3] as string));
    await fixture.service.undo(second.undoId as string);
    expectState(fixture.readState(TRACKED), stateAt(CHECKPOINT_MESSAGES[0] as string));
    await fixture.service.undo(first.undoId as string);
    expect(treeOf(fixture.cwd)).toEqual(beforeRestore);
  });
});

describe('hostile snapshots', () => {
  const HOSTILE_SESSION = 'a0000000-0000-4000-8000-00000000bad1';
  const GOOD_BACKUP = 'aaaaaaaaaaaaaaaa@v1';

  function session(cwd: string, files: Record<string, string | null>): object[] {
    const messageId = 'b0000000-0000-4000-8000-000000000001';
    const trackedFileBackups = Object.fromEntries(
      Object.entries(files).map(([path, backupFileName]) => [
        path,
        { backupFileName, version: 1, backupTime: '2026-12-03T08:00:00.000Z' },
      ]),
    );
    return [
      {
        type: 'user',
        uuid: messageId,
        parentUuid: null,
        sessionId: HOSTILE_SESSION,
        cwd,
        timestamp: '2026-12-03T08:00:00.000Z',
        message: { role: 'user', content: 'change things' },
      },
      {
        type: 'file-history-snapshot',
        messageId,
        snapshot: { messageId, trackedFileBackups, timestamp: '2026-12-03T08:00:00.000Z' },
        isSnapshotUpdate: false,
      },
    ];
  }

  async function setUp(files: Record<string, string | null>): Promise<void> {
    const backups = join(fixture.claudeRoot, 'file-history', HOSTILE_SESSION);
    rmSync(backups, { recursive: true, force: true });
    mkdirSync(backups, { recursive: true });
    writeFileSync(join(backups, GOOD_BACKUP), 'from the backup\n');
    writeFileSync(join(fixture.root, 'escape@v1'), 'escaped\n');
    writeFileSync(join(fixture.cwd, 'ok.txt'), 'current\n');
    await fixture.addSession(HOSTILE_SESSION, session(fixture.cwd, files));
  }

  async function expectRefused(files: Record<string, string | null>): Promise<void> {
    await setUp(files);
    const cwd = treeOf(fixture.cwd);
    const root = readdirSync(fixture.root).sort();
    const error = await rpcError(fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001'));
    expect(error.code).toBe(ErrorCode.PathRejected);
    expect(treeOf(fixture.cwd)).toEqual(cwd);
    expect(readdirSync(fixture.root).sort()).toEqual(root);
    expect(undoPoints()).toEqual([]);
  }

  it('refuses a backup file name that leaves the backup dir, writing nothing', async () => {
    await expectRefused({ 'ok.txt': GOOD_BACKUP, 'evil.txt': '../../../escape@v1' });
    await expectRefused({ 'ok.txt': GOOD_BACKUP, 'evil.txt': '..' });
    await expectRefused({ 'ok.txt': GOOD_BACKUP, 'evil.txt': 'sub/name@v1' });
  });

  it('refuses a relative path that leaves the cwd, writing nothing', async () => {
    await expectRefused({ 'ok.txt': GOOD_BACKUP, '../outside.txt': GOOD_BACKUP });
    await expectRefused({ 'ok.txt': GOOD_BACKUP, 'sub/../../outside.txt': GOOD_BACKUP });
    await expectRefused({ 'ok.txt': null, '/abs/../../outside.txt': GOOD_BACKUP });
    expect(existsSync(join(fixture.root, 'outside.txt'))).toBe(false);
  });

  it('lists a hostile backup as not present', async () => {
    await setUp({ 'ok.txt': GOOD_BACKUP, 'evil.txt': '../../../escape@v1' });
    const result = await fixture.service.list(HOSTILE_SESSION);
    expect(result.checkpoints[0]?.files.map((file) => [file.path, file.backupPresent])).toEqual([
      ['ok.txt', true],
      ['evil.txt', false],
    ]);
  });

  it('refuses every path outside the project root, listing them, and changes nothing (issue 13 item 3)', async () => {
    const keys = join(fixture.root, 'home', '.ssh', 'authorized_keys');
    const bashrc = join(fixture.root, 'home', '.bashrc');
    mkdirSync(dirname(keys), { recursive: true });
    writeFileSync(keys, 'ssh-ed25519 mine\n');
    writeFileSync(bashrc, 'export PS1=me\n');
    await setUp({ 'ok.txt': GOOD_BACKUP, [keys]: GOOD_BACKUP, [bashrc]: null });
    const error = await rpcError(fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001'));
    expect(error.code).toBe(ErrorCode.PathRejected);
    expect(error.data).toMatchObject({ projectRoot: fixture.cwd, paths: [keys, bashrc] });
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 mine\n');
    expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=me\n');
    expect(fixture.readState(['ok.txt']).get('ok.txt')?.toString()).toBe('current\n');
    expect(undoPoints()).toEqual([]);
    // A dry run says the same before anything.
    await expect(
      fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001', true),
    ).rejects.toMatchObject({ code: ErrorCode.PathRejected });
  });

  it('never follows a backup that is a symlink', async () => {
    await setUp({ 'ok.txt': 'link@v1' });
    writeFileSync(join(fixture.root, 'secret'), 'private\n');
    symlinkSync(join(fixture.root, 'secret'), join(fixture.claudeRoot, 'file-history', HOSTILE_SESSION, 'link@v1'));
    const error = await rpcError(fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001'));
    expect(error.code).toBe(ErrorCode.PathRejected);
    expect(error.message).toMatch(/symlink/);
    expect(fixture.readState(['ok.txt']).get('ok.txt')?.toString()).toBe('current\n');
  });

  it('takes the git root of the cwd as the project root', async () => {
    mkdirSync(join(fixture.root, '.git'));
    const sibling = join(fixture.root, 'lib', 'shared.txt');
    await setUp({ [sibling]: GOOD_BACKUP });
    const result = await fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001');
    expect(result.files.map((file) => [file.path, file.action])).toEqual([[sibling, 'write']]);
  });

  it('restores an absolute recorded path outside the project only when allowed, and undoes it', async () => {
    const absolute = join(fixture.root, 'elsewhere', 'abs.txt');
    await setUp({ [absolute]: GOOD_BACKUP, 'sub/../ok.txt': GOOD_BACKUP });
    await expect(
      fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001'),
    ).rejects.toMatchObject({ code: ErrorCode.PathRejected });
    const result = await fixture.service.restore(HOSTILE_SESSION, 'b0000000-0000-4000-8000-000000000001', false, true);
    expect(result.files.map((file) => [file.path, file.action])).toEqual([
      [absolute, 'write'],
      [join(fixture.cwd, 'ok.txt'), 'write'],
    ]);
    expect(fixture.readState(['ok.txt']).get('ok.txt')?.toString()).toBe('from the backup\n');
    await fixture.service.undo(result.undoId as string);
    expect(existsSync(absolute)).toBe(false);
    expect(fixture.readState(['ok.txt']).get('ok.txt')?.toString()).toBe('current\n');
  });
});

describe('undo points', () => {
  it('keeps the newest ones and removes the oldest beyond the kept number', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memd-undo-prune-'));
    try {
      const ids = Array.from({ length: 7 }, (_, n) => newUndoId(Date.UTC(2026, 11, 2, 10, 0, n)));
      for (const id of ids) mkdirSync(join(undoRoot(root), id), { recursive: true });
      mkdirSync(join(undoRoot(root), 'not-an-undo-point'));
      expect(await pruneUndoPoints(root, 4)).toEqual(ids.slice(0, 3));
      expect(readdirSync(undoRoot(root)).sort()).toEqual([...ids.slice(3), 'not-an-undo-point'].sort());
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
