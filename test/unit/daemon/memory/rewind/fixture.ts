/**
 * The `checkpoints` fixture as rewind sees it: its transcript, with the recorded cwd rewritten to
 * a temporary project dir, indexed in a temporary store; its backups under a temporary claude
 * root; and the project's files at every checkpoint, replayed from the transcript's Write and Edit
 * calls (the oracle the restores are checked against, independent of the rewind code).
 */
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { scanTranscripts } from '../../../../../daemon/ingest/scan.js';
import { createTailer } from '../../../../../daemon/ingest/tailer.js';
import { createRewindService, type RewindService } from '../../../../../daemon/memory/rewind/service.js';
import { openStore, type Store } from '../../../../../daemon/store/db.js';
import { createTranscripts } from '../../../../../daemon/transcripts/transcripts.js';
import { classifyTranscript } from '../../../../../shared/transcript/layout.js';
import { fakeLogger } from '../../../../helpers/fake-logger.js';
import { FIXTURES } from '../../../../helpers/ingest.js';

export const SCENARIO_DIR = join(FIXTURES, 'checkpoints');
const RECORDED_CWD = '/home/user/src/cli-tool';
const PROJECT = '-home-user-src-cli-tool';
/** A fixed clock: undo ids still differ by their random part. */
export const NOW = Date.parse('2026-12-03T09:00:00.000Z');

interface Manifest {
  sessionId: string;
  cwd: string;
  transcript: string;
  prompts: { text: string }[];
  checkpointedFiles: string[];
}

export const manifest = JSON.parse(readFileSync(join(SCENARIO_DIR, 'manifest.json'), 'utf8')) as Manifest;
export const SESSION_ID = manifest.sessionId;
export const transcriptLines = readFileSync(join(SCENARIO_DIR, manifest.transcript), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Files by path relative to the cwd; null: absent. */
export type FileState = Map<string, Buffer | null>;

export function readBackupBytes(name: string): Buffer {
  return readFileSync(join(SCENARIO_DIR, 'file-history', SESSION_ID, name));
}

interface RecordedBackup {
  path: string;
  backupFileName: string | null;
  version: number;
}

function backupsOf(line: Record<string, unknown>): RecordedBackup[] {
  const snapshot = line.snapshot as {
    trackedFileBackups: Record<string, { backupFileName: string | null; version: number }>;
  };
  return Object.entries(snapshot.trackedFileBackups).map(([path, backup]) => ({ path, ...backup }));
}

const snapshotLines = transcriptLines.filter((line) => line.type === 'file-history-snapshot');

/** The user messages that open a checkpoint, in order. */
export const CHECKPOINT_MESSAGES = snapshotLines
  .filter((line) => line.isSnapshotUpdate === false)
  .map((line) => (line.snapshot as { messageId: string }).messageId);

/** The last backup recorded for each file in each checkpoint, from the raw lines. */
export function recordedBackups(messageId: string): Map<string, RecordedBackup> {
  const files = new Map<string, RecordedBackup>();
  for (const line of snapshotLines) {
    if ((line.snapshot as { messageId: string }).messageId !== messageId) continue;
    for (const backup of backupsOf(line)) files.set(backup.path, backup);
  }
  return files;
}

/**
 * Before the session: each file as its version-1 backup holds it (the only record of the files
 * that existed), or absent when that backup is null.
 */
function initialState(): FileState {
  const state: FileState = new Map();
  for (const line of snapshotLines) {
    for (const backup of backupsOf(line)) {
      if (backup.version === 1 && !state.has(backup.path))
        state.set(backup.path, backup.backupFileName === null ? null : readBackupBytes(backup.backupFileName));
    }
  }
  return state;
}

function applyEdit(text: string, input: { old_string: string; new_string: string; replace_all?: boolean }): string {
  const parts = text.split(input.old_string);
  if (parts.length < 2) throw new Error(`replay: ${JSON.stringify(input.old_string)} not found`);
  if (input.replace_all === true) return parts.join(input.new_string);
  if (parts.length > 2) throw new Error(`replay: ${JSON.stringify(input.old_string)} is not unique`);
  return parts.join(input.new_string);
}

/**
 * The files before each checkpoint's message (by message id) and at the end, from the initial
 * state and every Write and Edit call in transcript order.
 */
export function replaySession(): { before: Map<string, FileState>; end: FileState } {
  const state = initialState();
  const before = new Map<string, FileState>();
  for (const line of transcriptLines) {
    if (line.type === 'user' && typeof line.uuid === 'string' && CHECKPOINT_MESSAGES.includes(line.uuid))
      before.set(line.uuid, new Map(state));
    if (line.type !== 'assistant') continue;
    const content = (line.message as { content: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as { type: string; name?: string; input?: Record<string, unknown> }[]) {
      if (block.type !== 'tool_use' || (block.name !== 'Write' && block.name !== 'Edit')) continue;
      const input = block.input as {
        file_path: string;
        content?: string;
        old_string: string;
        new_string: string;
        replace_all?: boolean;
      };
      const path = relative(RECORDED_CWD, input.file_path);
      if (block.name === 'Write') state.set(path, Buffer.from(input.content ?? '', 'utf8'));
      else {
        const current = state.get(path);
        if (current === undefined || current === null) throw new Error(`replay: Edit of ${path}, which does not exist`);
        state.set(path, Buffer.from(applyEdit(current.toString('utf8'), input), 'utf8'));
      }
    }
  }
  return { before, end: state };
}

export interface RewindFixture {
  root: string;
  cwd: string;
  claudeRoot: string;
  stateDir: string;
  projectsDir: string;
  store: Store;
  service: RewindService;
  /** Sets the cwd's files to `state` (absent ones removed). */
  writeState(state: FileState): void;
  readState(paths: Iterable<string>): FileState;
  /** Writes a transcript of another session into the project and indexes it. */
  addSession(sessionId: string, lines: readonly object[]): Promise<void>;
  close(): void;
}

function makeWritable(path: string): void {
  const stats = statSync(path);
  chmodSync(path, stats.isDirectory() ? 0o755 : 0o644);
  if (stats.isDirectory()) for (const name of readdirSync(path)) makeWritable(join(path, name));
}

export async function rewindFixture(): Promise<RewindFixture> {
  const root = mkdtempSync(join(tmpdir(), 'memd-rewind-'));
  const cwd = join(root, 'project');
  const claudeRoot = join(root, 'claude');
  const stateDir = join(root, 'state');
  const projectsDir = join(claudeRoot, 'projects');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(stateDir, { mode: 0o700 });
  mkdirSync(join(projectsDir, PROJECT), { recursive: true });
  const transcript = readFileSync(join(SCENARIO_DIR, manifest.transcript), 'utf8').replaceAll(RECORDED_CWD, cwd);
  writeFileSync(join(projectsDir, PROJECT, `${SESSION_ID}.jsonl`), transcript);
  cpSync(join(SCENARIO_DIR, 'file-history'), join(claudeRoot, 'file-history'), { recursive: true });
  // The fixtures are read-only; tests delete backups from their copy.
  makeWritable(join(claudeRoot, 'file-history'));

  const store = openStore(join(root, 'memd.sqlite'), fakeLogger());
  const ingest = async () => {
    const tailer = createTailer({ db: store.db, log: fakeLogger(), clock: () => NOW, onCommit: () => {} });
    for (const file of await scanTranscripts(projectsDir)) {
      const target = classifyTranscript(projectsDir, file.path);
      if (target !== null) await tailer.pass(target, { shouldYield: () => false });
    }
    await tailer.close();
  };
  await ingest();
  const service = createRewindService({
    transcripts: createTranscripts({ db: store.db }),
    claudeRoot,
    stateDir,
    clock: () => NOW,
  });

  return {
    root,
    cwd,
    claudeRoot,
    stateDir,
    projectsDir,
    store,
    service,
    writeState(state) {
      for (const [path, bytes] of state) {
        const absolute = join(cwd, path);
        if (bytes === null) rmSync(absolute, { force: true });
        else {
          mkdirSync(dirname(absolute), { recursive: true });
          writeFileSync(absolute, bytes);
        }
      }
    },
    readState(paths) {
      const state: FileState = new Map();
      for (const path of paths) {
        try {
          state.set(path, readFileSync(join(cwd, path)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          state.set(path, null);
        }
      }
      return state;
    },
    async addSession(sessionId, lines) {
      writeFileSync(
        join(projectsDir, PROJECT, `${sessionId}.jsonl`),
        lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
      );
      await ingest();
    },
    close() {
      store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` with its mode and bytes: equal trees mean nothing was touched. */
export function treeOf(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const visit = (path: string): void => {
    const stats = statSync(path);
    const key = relative(dir, path) || '.';
    if (stats.isDirectory()) {
      tree[`${key}/`] = (stats.mode & 0o7777).toString(8);
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else tree[key] = `${(stats.mode & 0o7777).toString(8)} ${readFileSync(path).toString('base64')}`;
  };
  visit(dir);
  return tree;
}
