import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHookRecords } from '../../../../daemon/handoff/hook-records.js';
import { createHookService, SESSION_START_MAX_TOKENS } from '../../../../daemon/handoff/hooks.js';
import { createMemdirStore } from '../../../../daemon/memory/memdir/store.js';
import { openStore, type Store } from '../../../../daemon/store/db.js';
import { sanitizeProjectDirName } from '../../../../shared/paths.js';
import { fakeLogger } from '../../../helpers/fake-logger.js';
import { createTranscripts } from '../../../../daemon/transcripts/transcripts.js';

const SESSION = '5e551011-0000-4000-8000-000000000001';
let root: string;
let cwd: string;
let store: Store;
let hooks: ReturnType<typeof createHookService>;
let memdir: ReturnType<typeof createMemdirStore>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-hooks-'));
  cwd = join(root, 'work', 'app');
  mkdirSync(join(cwd, 'docs'), { recursive: true });
  const projectsDir = join(root, 'projects');
  mkdirSync(join(projectsDir, sanitizeProjectDirName(cwd)), { recursive: true });
  store = openStore(join(root, 'memd.sqlite'), fakeLogger());
  memdir = createMemdirStore({ projectsDir, clock: Date.now });
  hooks = createHookService({ transcripts: createTranscripts({ db: store.db }), records: createHookRecords(store.db), memdir, log: fakeLogger(), clock: Date.now });
});

afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const handoff = (sessionId: string, body = 'Next: run the tests.') =>
  writeFileSync(join(cwd, 'docs', 'handoff-context.md'), `# Handoff — session ${sessionId} — 2026-12-02T10:00:00.000Z — trigger: auto\n\n${body}\n`);

describe('the SessionStart context', () => {
  it('is nothing when there is no handoff and no feedback memory, and then nothing is expected', async () => {
    expect(await hooks.sessionStart(SESSION, cwd, 'compact')).toEqual({ additionalContext: null, tokens: 0, sources: [] });
    expect(hooks.status(SESSION).injection).toBeNull();
  });

  it("holds this session's handoff and the project's feedback memories, private and team; records the expectation", async () => {
    handoff(SESSION);
    await memdir.write({ project: cwd, name: 'no-regex', type: 'feedback', description: 'HTML parsing', content: 'Never use regex to parse HTML.' });
    await memdir.write({ project: cwd, scope: 'team', name: 'tests-first', type: 'feedback', content: 'Always run npm test before committing.' });
    await memdir.write({ project: cwd, name: 'me', type: 'user', content: 'Not a rule for the agent.' });
    const result = await hooks.sessionStart(SESSION, cwd, 'compact');
    expect(result.additionalContext).toContain('Next: run the tests.');
    expect(result.additionalContext).toContain('Never use regex to parse HTML.');
    expect(result.additionalContext).toContain('Always run npm test before committing.');
    expect(result.additionalContext).not.toContain('Not a rule');
    expect(result.sources).toEqual([join(cwd, 'docs', 'handoff-context.md'), 'private:no-regex', 'team:tests-first']);
    expect(hooks.status(SESSION).injection).toMatchObject({ source: 'compact', injected: null });
  });

  it('leaves out a handoff another session left in the same dir', async () => {
    handoff('aaaaaaaa-0000-4000-8000-000000000002');
    expect((await hooks.sessionStart(SESSION, cwd, 'resume')).additionalContext).toBeNull();
  });

  it('stays within 10,000 tokens however big the handoff is, saying where the whole file is', async () => {
    handoff(SESSION, 'x'.repeat(200_000));
    const result = await hooks.sessionStart(SESSION, cwd, 'compact');
    expect(result.tokens).toBeLessThanOrEqual(SESSION_START_MAX_TOKENS);
    expect(result.additionalContext).toContain('the whole handoff is');
  });

  it('refuses a relative cwd', async () => {
    await expect(hooks.sessionStart(SESSION, 'work/app', 'compact')).rejects.toMatchObject({ code: -32602 });
  });
});
