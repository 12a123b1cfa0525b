/**
 * rewind.list, rewind.restore and rewind.undo: a session's file checkpoints as Claude Code
 * recorded them, putting a checkpoint's files back, and taking such a restore back. Every path is
 * checked before anything is read or written; a restore saves what it will change first, so it
 * can always be undone. Restores and undos run one at a time: two at once on the same files would
 * each save the other's half-applied state as the one to go back to.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import type {
  Checkpoint,
  CheckpointFile,
  RewindListResult,
  RewindRestoreResult,
  RewindUndoResult,
} from '../../../shared/protocol/rewind.js';
import { isInside } from '../../fs/inside.js';
import type { SessionCheckpoints } from '../../transcripts/checkpoints.js';
import { restoreTargets } from '../../transcripts/snapshots.js';
import type { Transcripts } from '../../transcripts/transcripts.js';
import { applyChange, changesFiles, type FileTarget, type PlannedChange, planChanges, toResult } from './apply.js';
import { backupPath, isPlainName, trackedPath } from './paths.js';
import { projectRoot } from './project-root.js';
import { newUndoId, pruneUndoPoints, readUndoPoint, removeUndoPoint, saveUndoPoint, undoDir } from './undo-store.js';

export interface RewindDeps {
  transcripts: Pick<Transcripts, 'checkpoints'>;
  /** `~/.claude`: backups are under its `file-history/`. */
  claudeRoot: string;
  /** memd's private state dir: undo points go under its `rewind/`. */
  stateDir: string;
  clock: () => number;
}

export interface RewindService {
  list(sessionId: string): Promise<RewindListResult>;
  /** Files outside the session's project root only with `allowOutsideProject` (PathRejected otherwise). */
  restore(
    sessionId: string,
    messageId: string,
    dryRun?: boolean,
    allowOutsideProject?: boolean,
  ): Promise<RewindRestoreResult>;
  undo(undoId: string, dryRun?: boolean): Promise<RewindUndoResult>;
}

export function createRewindService(deps: RewindDeps): RewindService {
  let queue: Promise<unknown> = Promise.resolve();

  function oneAtATime<T>(run: () => Promise<T>): Promise<T> {
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  async function isBackupPresent(sessionId: string, backupFileName: string | null): Promise<boolean> {
    if (backupFileName === null) return true;
    if (!isPlainName(sessionId) || !isPlainName(backupFileName)) return false;
    try {
      return (await stat(backupPath(deps.claudeRoot, sessionId, backupFileName))).isFile();
    } catch {
      return false;
    }
  }

  async function list(sessionId: string): Promise<RewindListResult> {
    const session = await deps.transcripts.checkpoints(sessionId);
    // Checkpoints repeat a file's backup until it changes: each is looked up once.
    const present = new Map<string | null, boolean>();
    const isPresent = async (backupFileName: string | null): Promise<boolean> => {
      let backupPresent = present.get(backupFileName);
      if (backupPresent === undefined) {
        backupPresent = await isBackupPresent(sessionId, backupFileName);
        present.set(backupFileName, backupPresent);
      }
      return backupPresent;
    };
    const checkpoints: Checkpoint[] = [];
    for (const [index, checkpoint] of session.checkpoints.entries()) {
      const files: CheckpointFile[] = [];
      for (const { path, version, backupFileName, backupTime } of checkpoint.files.values()) {
        files.push({ path, version, backupFileName, backupTime, backupPresent: await isPresent(backupFileName) });
      }
      // What a restore to it puts back (the later checkpoints' first backups too): a pruned one is gone.
      const goneFiles: string[] = [];
      for (const target of restoreTargets(session.checkpoints, index)) {
        if (!(await isPresent(target.backupFileName))) goneFiles.push(target.path);
      }
      checkpoints.push({
        messageId: checkpoint.messageId,
        timestamp: checkpoint.timestamp,
        prompt: session.prompts.get(checkpoint.messageId) ?? null,
        files,
        goneFiles,
      });
    }
    return { sessionId, cwd: session.cwd, checkpoints };
  }

  /** Every file the restore puts back, its path and backup checked (PathRejected) before any is read. */
  function targetsOf(session: SessionCheckpoints, messageId: string): FileTarget[] {
    const index = session.checkpoints.findIndex((checkpoint) => checkpoint.messageId === messageId);
    if (index < 0) {
      throw new RpcError(
        ErrorCode.NotFound,
        'NotFound',
        `session ${session.sessionId} has no checkpoint at message ${messageId}; rewind.list shows them`,
        {
          sessionId: session.sessionId,
          messageId,
        },
      );
    }
    const targets = new Map<string, FileTarget>();
    for (const backup of restoreTargets(session.checkpoints, index)) {
      const path = trackedPath(session.cwd, backup.path);
      const source =
        backup.backupFileName === null ? null : backupPath(deps.claudeRoot, session.sessionId, backup.backupFileName);
      // `src/a.js` and `<cwd>/src/a.js` are one file: the backup from the earlier checkpoint holds.
      if (!targets.has(path)) targets.set(path, { path, source });
    }
    return [...targets.values()];
  }

  async function apply(changes: readonly PlannedChange[], undoId: string): Promise<void> {
    for (const change of changes) {
      try {
        await applyChange(change);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new RpcError(
          ErrorCode.InternalError,
          'RewindFailed',
          `could not ${change.action} ${change.path} (${reason}); \`memctl rewind undo ${undoId}\` puts back the files changed so far`,
          {
            path: change.path,
            undoId,
          },
        );
      }
    }
  }

  /** PathRejected, listing them all, when files outside the session's project root would be touched without consent. */
  async function checkInsideProject(
    session: SessionCheckpoints,
    targets: readonly FileTarget[],
    allowOutside: boolean,
  ): Promise<void> {
    if (allowOutside) return;
    const root = session.cwd === null ? null : await projectRoot(session.cwd);
    const outside = targets.filter((target) => root === null || !isInside(root, target.path, true));
    if (outside.length === 0) return;
    const paths = outside.map((target) => target.path);
    throw new RpcError(
      ErrorCode.PathRejected,
      'PathRejected',
      `the restore would touch ${paths.length} file${paths.length === 1 ? '' : 's'} outside the project ${root ?? '(no cwd)'}: ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}; nothing was changed (allowOutsideProject restores them too)`,
      { projectRoot: root, paths },
    );
  }

  async function restore(
    sessionId: string,
    messageId: string,
    dryRun = false,
    allowOutside = false,
  ): Promise<RewindRestoreResult> {
    const session = await deps.transcripts.checkpoints(sessionId);
    const targets = targetsOf(session, messageId);
    await checkInsideProject(session, targets, allowOutside);
    const changes = await planChanges(targets);
    const result: RewindRestoreResult = { sessionId, messageId, dryRun, files: changes.map(toResult), undoId: null };
    const changing = changes.filter(changesFiles);
    if (dryRun || changing.length === 0) return result;
    const now = deps.clock();
    const undoId = newUndoId(now);
    const dir = undoDir(deps.stateDir, undoId);
    await saveUndoPoint(
      dir,
      { undoId, sessionId, messageId, createdAt: new Date(now).toISOString() },
      changing.map((change) => change.path),
    );
    await apply(changing, undoId);
    await pruneUndoPoints(deps.stateDir);
    return { ...result, undoId };
  }

  /** Not undoable itself: once the files are back, the undo point is removed. */
  async function undo(undoId: string, dryRun = false): Promise<RewindUndoResult> {
    const dir = undoDir(deps.stateDir, undoId);
    const saved = await readUndoPoint(dir, undoId);
    const targets = saved.files.map(
      (file): FileTarget => ({
        path: file.path,
        source: file.copy === null ? null : join(dir, file.copy),
        mode: file.mode,
      }),
    );
    const changes = await planChanges(targets);
    const result: RewindUndoResult = { undoId, dryRun, files: changes.map(toResult) };
    if (dryRun) return result;
    await apply(changes.filter(changesFiles), undoId);
    await removeUndoPoint(dir);
    return result;
  }

  return {
    list: (sessionId) => list(sessionId),
    restore: (sessionId, messageId, dryRun, allowOutside) =>
      oneAtATime(() => restore(sessionId, messageId, dryRun, allowOutside)),
    undo: (undoId, dryRun) => oneAtATime(() => undo(undoId, dryRun)),
  };
}
