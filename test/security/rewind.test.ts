/**
 * Issue 13 item 3, end to end: a transcript that lists `~/.ssh/authorized_keys` and `~/.bashrc`
 * in its file checkpoints gets no write or delete outside the session's project root through a
 * real daemon and memctl, unless the user passes --allow-outside-project and confirms it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mainPath, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, makeSandbox, runMemctl, startDaemon } from '../helpers/sandbox.js';

const SESSION = 'a0000000-0000-4000-8000-0000000000f3';
const MESSAGE = 'b0000000-0000-4000-8000-0000000000f3';
const BACKUP = 'aaaaaaaaaaaaaaaa@v1';

describe('rewind.restore from a hostile transcript', () => {
  it('refuses paths outside the project root whole, listing them; the flag and a yes allow them', async () => {
    const sandbox = makeSandbox();
    const home = join(sandbox.root, 'home');
    const project = join(home, 'src', 'shop');
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(project, 'cart.ts'), 'current\n');
    const keys = join(home, '.ssh', 'authorized_keys');
    const bashrc = join(home, '.bashrc');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(keys, 'ssh-ed25519 mine\n');
    writeFileSync(bashrc, 'export PS1=me\n');
    const backups = join(home, '.claude', 'file-history', SESSION);
    mkdirSync(backups, { recursive: true });
    writeFileSync(join(backups, BACKUP), 'ssh-ed25519 attacker\n');
    const at = '2026-12-03T08:00:00.000Z';
    const tracked = { 'cart.ts': BACKUP, [keys]: BACKUP, [bashrc]: null };
    const trackedFileBackups = Object.fromEntries(
      Object.entries(tracked).map(([path, backupFileName]) => [path, { backupFileName, version: 1, backupTime: at }]),
    );
    const lines = [
      {
        type: 'user',
        uuid: MESSAGE,
        parentUuid: null,
        sessionId: SESSION,
        cwd: project,
        timestamp: at,
        message: { role: 'user', content: 'tidy the cart' },
      },
      {
        type: 'file-history-snapshot',
        messageId: MESSAGE,
        snapshot: { messageId: MESSAGE, trackedFileBackups, timestamp: at },
        isSnapshotUpdate: false,
      },
    ];
    writeTranscript(
      mainPath(sandbox.projectsDir, project, SESSION),
      `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
    await startDaemon(sandbox);
    await eventually(
      async () => (await runMemctl(sandbox, ['rewind', 'list', SESSION])).code === 0,
      'the session to be indexed',
    );

    const refused = await runMemctl(sandbox, ['rewind', 'restore', SESSION, MESSAGE]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(keys);
    expect(refused.stderr).toContain(bashrc);
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 mine\n');
    expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=me\n');
    // All or nothing: the file inside the project was not restored either, and no undo point was made.
    expect(readFileSync(join(project, 'cart.ts'), 'utf8')).toBe('current\n');
    expect(existsSync(join(sandbox.stateDir, 'rewind')) ? readdirSync(join(sandbox.stateDir, 'rewind')) : []).toEqual(
      [],
    );

    // Without a terminal to confirm on, the flag alone is not enough.
    const unconfirmed = await runMemctl(sandbox, ['rewind', 'restore', SESSION, MESSAGE, '--allow-outside-project']);
    expect(unconfirmed.code).not.toBe(0);
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 mine\n');

    const allowed = await runMemctl(sandbox, [
      'rewind',
      'restore',
      SESSION,
      MESSAGE,
      '--allow-outside-project',
      '--yes',
    ]);
    expect(allowed.code).toBe(0);
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 attacker\n');
    expect(existsSync(bashrc)).toBe(false);
    // And the user can take it back.
    const undoId = /\d{8}T\d{6}Z-[0-9a-f]{8}/.exec(allowed.stdout)?.[0] ?? '';
    expect((await runMemctl(sandbox, ['rewind', 'undo', undoId])).code).toBe(0);
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 mine\n');
    expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=me\n');
  });
});
