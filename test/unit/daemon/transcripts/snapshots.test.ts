/** Checkpoints from snapshot entries, and which backup a restore puts back (the rule), without I/O. */
import { describe, expect, it } from 'vitest';
import {
  addSnapshot,
  PROMPT_PREVIEW_CHARS,
  parseSnapshotEntry,
  promptPreview,
  type RecordedCheckpoint,
  restoreTargets,
  type SnapshotEntry,
} from '../../../../daemon/transcripts/snapshots.js';
import { CHECKPOINT_MESSAGES, transcriptLines } from '../memory/rewind/fixture.js';

function fixtureCheckpoints(): RecordedCheckpoint[] {
  const checkpoints = new Map<string, RecordedCheckpoint>();
  for (const line of transcriptLines) {
    const entry = parseSnapshotEntry(line);
    if (entry !== null) addSnapshot(checkpoints, entry);
  }
  return [...checkpoints.values()];
}

const targetsAt = (index: number) =>
  Object.fromEntries(restoreTargets(fixtureCheckpoints(), index).map((file) => [file.path, file.backupFileName]));

describe('parseSnapshotEntry', () => {
  it('reads an entry as Claude Code writes it', () => {
    const raw = transcriptLines.find((line) => line.type === 'file-history-snapshot' && line.isSnapshotUpdate === true);
    expect(parseSnapshotEntry(raw)).toEqual({
      messageId: CHECKPOINT_MESSAGES[0],
      timestamp: '2026-12-02T10:28:36.532Z',
      isUpdate: true,
      files: [{ path: 'src/config.js', version: 1, backupFileName: null, backupTime: '2026-12-02T10:28:36.668Z' }],
    });
  });

  it('takes only snapshot entries with a message id', () => {
    expect(parseSnapshotEntry({ type: 'user', snapshot: { messageId: 'm', trackedFileBackups: {} } })).toBeNull();
    expect(parseSnapshotEntry({ type: 'file-history-snapshot', snapshot: { trackedFileBackups: {} } })).toBeNull();
    expect(parseSnapshotEntry({ type: 'file-history-snapshot', snapshot: 'nope' })).toBeNull();
    expect(parseSnapshotEntry(null)).toBeNull();
    expect(parseSnapshotEntry({ type: 'file-history-snapshot', snapshot: { messageId: 'm' } })).toMatchObject({
      messageId: 'm',
      files: [],
    });
  });

  it('leaves out a malformed file backup but keeps the rest of the entry', () => {
    const entry = parseSnapshotEntry({
      type: 'file-history-snapshot',
      isSnapshotUpdate: false,
      snapshot: {
        messageId: 'm',
        timestamp: 't',
        trackedFileBackups: {
          'good.txt': { backupFileName: 'h@v2', version: 2, backupTime: 'b' },
          'bad-name.txt': { backupFileName: 7, version: 1, backupTime: 'b' },
          'bad-version.txt': { backupFileName: null, version: -1, backupTime: 'b' },
          'not-an-object.txt': 'h@v1',
          '': { backupFileName: null, version: 1, backupTime: 'b' },
        },
      },
    });
    expect(entry?.files).toEqual([{ path: 'good.txt', version: 2, backupFileName: 'h@v2', backupTime: 'b' }]);
  });
});

describe('addSnapshot', () => {
  const entry = (
    messageId: string,
    isUpdate: boolean,
    timestamp: string,
    files: Record<string, string | null>,
  ): SnapshotEntry => ({
    messageId,
    timestamp,
    isUpdate,
    files: Object.entries(files).map(([path, backupFileName]) => ({
      path,
      version: 1,
      backupFileName,
      backupTime: timestamp,
    })),
  });

  it('merges updates into their checkpoint, a later backup of a path replacing the earlier', () => {
    const checkpoints = new Map<string, RecordedCheckpoint>();
    addSnapshot(checkpoints, entry('a', false, 't1', { x: 'x@v1' }));
    addSnapshot(checkpoints, entry('a', true, 't1', { x: 'x@v1', y: null }));
    addSnapshot(checkpoints, entry('b', false, 't2', { x: 'x@v2', y: 'y@v2' }));
    addSnapshot(checkpoints, entry('a', true, 't1', { z: 'z@v1' }));
    expect([...checkpoints.keys()]).toEqual(['a', 'b']);
    expect([...(checkpoints.get('a')?.files.values() ?? [])].map((file) => [file.path, file.backupFileName])).toEqual([
      ['x', 'x@v1'],
      ['y', null],
      ['z', 'z@v1'],
    ]);
  });

  it("takes the opening entry's time when an update came first", () => {
    const checkpoints = new Map<string, RecordedCheckpoint>();
    addSnapshot(checkpoints, entry('a', true, 'update', { x: null }));
    addSnapshot(checkpoints, entry('a', false, 'opening', {}));
    expect(checkpoints.get('a')?.timestamp).toBe('opening');
  });

  it('makes one checkpoint per prompt of the fixture, each with the files recorded for it', () => {
    const checkpoints = fixtureCheckpoints();
    expect(checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(CHECKPOINT_MESSAGES);
    expect(checkpoints.map((checkpoint) => [...checkpoint.files.keys()])).toEqual([
      ['src/config.js', 'test/config.test.js'],
      ['test/config.test.js', 'src/config.js', 'README.md'],
      ['src/config.js', 'README.md', 'test/config.test.js', 'bin/cli.js', 'docs/flags.md'],
      ['src/config.js', 'README.md', 'test/config.test.js', 'docs/flags.md', 'bin/cli.js'],
    ]);
  });
});

describe('restoreTargets', () => {
  it('puts a file first tracked after the checkpoint back to its first backup, or deletes it when that is null', () => {
    expect(targetsAt(0)).toEqual({
      'src/config.js': null,
      'test/config.test.js': null,
      'README.md': 'd6df18f921d4e2c4@v1',
      'bin/cli.js': '84f0258e80c1fd16@v1',
      'docs/flags.md': null,
    });
    expect(targetsAt(1)).toEqual({
      'src/config.js': '21be17c30647835a@v2',
      'test/config.test.js': '6f52710677d330aa@v2',
      'README.md': 'd6df18f921d4e2c4@v1',
      'bin/cli.js': '84f0258e80c1fd16@v1',
      'docs/flags.md': null,
    });
  });

  it("takes a file's backup from the checkpoint itself when it records one", () => {
    expect(targetsAt(2)).toEqual({
      'src/config.js': '21be17c30647835a@v3',
      'README.md': 'd6df18f921d4e2c4@v2',
      'test/config.test.js': '6f52710677d330aa@v3',
      'bin/cli.js': '84f0258e80c1fd16@v1',
      'docs/flags.md': null,
    });
    expect(targetsAt(3)).toEqual({
      'src/config.js': '21be17c30647835a@v3',
      'README.md': 'd6df18f921d4e2c4@v2',
      'test/config.test.js': '6f52710677d330aa@v3',
      'docs/flags.md': '0f06e878be640e0b@v2',
      'bin/cli.js': '84f0258e80c1fd16@v2',
    });
  });

  it('leaves alone a file tracked only before the checkpoint', () => {
    const checkpoint = (messageId: string, files: Record<string, string | null>): RecordedCheckpoint => ({
      messageId,
      timestamp: '',
      files: new Map(
        Object.entries(files).map(([path, backupFileName]) => [
          path,
          { path, version: 1, backupFileName, backupTime: '' },
        ]),
      ),
    });
    const checkpoints = [checkpoint('a', { old: 'old@v1' }), checkpoint('b', { kept: 'kept@v1' })];
    expect(restoreTargets(checkpoints, 1).map((file) => file.path)).toEqual(['kept']);
  });
});

describe('promptPreview', () => {
  it('puts the prompt on one line', () => {
    expect(promptPreview({ message: { content: '  fix\n\nthe   bug ' } })).toBe('fix the bug');
    expect(
      promptPreview({
        message: { content: [{ type: 'text', text: 'look' }, { type: 'image' }, { type: 'text', text: 'here' }] },
      }),
    ).toBe('look here');
  });

  it(`cuts it to ${PROMPT_PREVIEW_CHARS} characters`, () => {
    const preview = promptPreview({ message: { content: 'x'.repeat(PROMPT_PREVIEW_CHARS * 2) } });
    expect(preview).toHaveLength(PROMPT_PREVIEW_CHARS);
    expect(preview?.endsWith('…')).toBe(true);
    expect(promptPreview({ message: { content: 'y'.repeat(PROMPT_PREVIEW_CHARS) } })).toBe(
      'y'.repeat(PROMPT_PREVIEW_CHARS),
    );
  });

  it('is null without text', () => {
    expect(promptPreview({ message: { content: [{ type: 'image' }] } })).toBeNull();
    expect(promptPreview({ message: {} })).toBeNull();
    expect(promptPreview('text')).toBeNull();
  });
});
