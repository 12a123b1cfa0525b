/**
 * search.query and search.context over a real daemon (issue 17): hits for prompts, assistant text,
 * commands, paths and error lines of the recorded fixtures; an appended line searchable once its
 * session.updated fires; a deleted transcript's lines still found; redaction; bad queries; and the
 * index built in the background for lines ingested before it existed.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import type { SearchHit } from '../../shared/protocol/search.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { appendPrompt, copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const loop = manifest('coding-loop');
const corrections = manifest('corrections');

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

const kindsOf = (hits: readonly SearchHit[]) => new Set(hits.map((hit) => hit.kind));

describe('search over a daemon', () => {
  let sandbox: Sandbox;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop', 'corrections']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return () => client.close();
  });

  it("finds a prompt by its words, marked, with the session's project and title", async () => {
    const { hits } = await client.searchQuery({ query: 'overcharged discount' });
    const prompt = hits.find((hit) => hit.kind === 'prompt');
    const { title } = await client.sessionsGet({ sessionId: loop.sessionId });
    expect(prompt).toMatchObject({ sessionId: loop.sessionId, project: '-home-user-src-invoice-service', title });
    expect(prompt?.snippet).toContain('«overcharged»');
    expect(prompt?.snippet).toContain('«discount»');
    expect(prompt?.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('finds assistant text, commands, paths and the key lines of errors', async () => {
    expect(kindsOf((await client.searchQuery({ query: 'Math.round' })).hits)).toContain('assistant');
    const command = (await client.searchQuery({ query: '"node test/run.js"', kinds: ['tool'] })).hits;
    expect(command[0]?.snippet).toMatch(/Bash «node» «test»\/«run»\.«js»/);
    const path = (await client.searchQuery({ query: 'totals.js', kinds: ['tool'] })).hits;
    expect(path.length).toBeGreaterThan(0);
    const errors = (await client.searchQuery({ query: 'AssertionError', kinds: ['error'] })).hits;
    expect(errors[0]).toMatchObject({ sessionId: loop.sessionId, kind: 'error' });
    expect(errors[0]?.snippet).toContain('«AssertionError»');
  });

  it('filters by session, project, kind and time, and pages', async () => {
    const all = (await client.searchQuery({ query: 'test', limit: 100 })).hits;
    expect(new Set(all.map((hit) => hit.sessionId))).toEqual(new Set([loop.sessionId, corrections.sessionId]));
    const one = (await client.searchQuery({ query: 'test', sessionId: corrections.sessionId.slice(0, 8), limit: 100 }))
      .hits;
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((hit) => hit.sessionId === corrections.sessionId)).toBe(true);
    const byCwd = (await client.searchQuery({ query: 'test', project: loop.cwd, limit: 100 })).hits;
    expect(byCwd.every((hit) => hit.sessionId === loop.sessionId)).toBe(true);
    expect((await client.searchQuery({ query: 'test', since: '2099-01-01T00:00:00Z' })).hits).toEqual([]);
    expect(
      (await client.searchQuery({ query: 'test', until: '1d', kinds: ['prompt'] })).hits.every(
        (hit) => hit.kind === 'prompt',
      ),
    ).toBe(true);
    const first = await client.searchQuery({ query: 'test', limit: 2 });
    expect(first.hits).toHaveLength(2);
    const second = await client.searchQuery({ query: 'test', limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.hits.map((hit) => hit.uuid)).not.toContain(first.hits[0]?.uuid);
    expect(all.slice(0, 4).map((hit) => [hit.uuid, hit.kind])).toEqual(
      [...first.hits, ...second.hits].map((hit) => [hit.uuid, hit.kind]),
    );
  });

  it('answers bad queries with InvalidParams naming the position, and the daemon goes on', async () => {
    for (const query of ['"unterminated', 'NOT', 'a AND', '(open', 'a OR (b']) {
      const error = await client.searchQuery({ query }).catch((thrown: unknown) => thrown);
      expect(error, query).toMatchObject({ code: -32602, kind: 'InvalidParams' });
      expect((error as { data: { position: number } }).data.position, query).toBeGreaterThanOrEqual(0);
    }
    await expect(client.searchQuery({ query: 'x', since: 'yesterday' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.searchQuery({ query: 'x', cursor: 'nope' })).rejects.toMatchObject({ code: -32602 });
    expect((await client.searchQuery({ query: 'invoice' })).hits.length).toBeGreaterThan(0);
  });

  it('gives the messages around a hit in Messages API form', async () => {
    const hit = (await client.searchQuery({ query: 'AssertionError', kinds: ['error'] })).hits[0] as SearchHit;
    const context = await client.searchContext({
      sessionId: hit.sessionId,
      uuid: hit.uuid as string,
      before: 1,
      after: 1,
    });
    expect(context.messages.length).toBeLessThanOrEqual(3);
    expect(JSON.stringify(context.messages[context.hitIndex])).toContain('AssertionError');
    for (const message of context.messages) expect(['user', 'assistant']).toContain(message.role);
    await expect(client.searchContext({ sessionId: hit.sessionId, uuid: 'no-such-uuid' })).rejects.toMatchObject({
      kind: 'NotFound',
    });
  });

  it('memctl search groups hits by session under its title, and --context prints the messages around one', async () => {
    const { title } = await client.sessionsGet({ sessionId: loop.sessionId });
    const run = await runMemctl(sandbox, ['search', 'AssertionError', '--kind', 'error']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`${title}  ${loop.sessionId.slice(0, 8)} · invoice-service`);
    expect(lines[1]).toMatch(/^ {2}error +\S+ ago +.*AssertionError/);
    const reference = /--context (\S+)/.exec(run.stdout)?.[1] as string;
    const context = await runMemctl(sandbox, ['search', '--context', reference, '--before', '1', '--after', '0']);
    expect(context.code).toBe(0);
    expect(context.stdout).toMatch(/^assistant\n {2}\[Bash\] .*\nuser \(the hit\)\n {2}\[result, error\]/);
    expect((await runMemctl(sandbox, ['search'])).code).toBe(2);
    expect((await runMemctl(sandbox, ['search', '"open'])).stderr).toContain(
      'not valid at position 0: unterminated string',
    );
  });

  it('finds an appended line once its session.updated fires, with its secrets redacted', async () => {
    const updates: string[] = [];
    await client.on('session.updated', (session) => updates.push(session.sessionId));
    const transcript = join(sandbox.projectsDir, corrections.transcript.replace(/^projects\//, ''));
    appendPrompt(
      transcript,
      corrections.sessionId,
      'zebracorn deploy with password=Tr0ub4dor&3 and sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123',
      '72000000-0000-4000-8000-000000000001',
    );
    await eventually(() => updates.includes(corrections.sessionId), 'session.updated');
    const { hits } = await client.searchQuery({ query: 'zebracorn' });
    expect(hits).toHaveLength(1);
    expect(hits[0]?.snippet).toContain('password=[redacted secret]');
    expect(hits[0]?.snippet).toContain('[redacted anthropic key]');
    expect((await client.searchQuery({ query: 'Tr0ub4dor' })).hits).toEqual([]);
  });

  it('matches phrases and NEAR on the words as they stand in the text, not only their presence', async () => {
    const updates: string[] = [];
    await client.on('session.updated', (session) => updates.push(session.sessionId));
    const transcript = join(sandbox.projectsDir, corrections.transcript.replace(/^projects\//, ''));
    appendPrompt(
      transcript,
      corrections.sessionId,
      'wombatine glacier harbour lantern, then the_lantern_room',
      '72000000-0000-4000-8000-000000000003',
    );
    await eventually(() => updates.includes(corrections.sessionId), 'session.updated');
    const count = async (query: string) => (await client.searchQuery({ query })).hits.length;
    expect(await count('"wombatine glacier"')).toBe(1);
    expect(await count('"glacier wombatine"')).toBe(0);
    expect(await count('"harbour lantern"*')).toBe(1);
    expect(await count('"harb lant"*')).toBe(0);
    expect(await count('NEAR(wombatine lantern, 2)')).toBe(1);
    expect(await count('NEAR(wombatine lantern, 1)')).toBe(0);
    expect(await count('wombatine NOT "glacier harbour"')).toBe(0);
    expect(await count('wombatine NOT "harbour glacier"')).toBe(1);
    expect(await count('"glacier wombatine" OR the_lantern_room')).toBe(1);
    expect(await count('^wombatine glacier')).toBe(1);
    expect(await count('^glacier')).toBe(0);
    const [hit] = (await client.searchQuery({ query: '"glacier harbour"' })).hits;
    expect(hit?.snippet).toContain('wombatine «glacier» «harbour» lantern');
  });

  it('forgets the texts of a transcript that was replaced, and finds what replaced them', async () => {
    const transcript = join(sandbox.projectsDir, corrections.transcript.replace(/^projects\//, ''));
    const before = (await client.searchQuery({ query: 'zebracorn' })).hits;
    expect(before).toHaveLength(1);
    // Rewritten from scratch (an editor's save, a restore): the file's lines are indexed anew.
    const lines = readFileSync(transcript, 'utf8').trimEnd().split('\n');
    writeFileSync(`${transcript}.tmp`, `${lines.slice(0, 3).join('\n')}\n`);
    renameSync(`${transcript}.tmp`, transcript);
    appendPrompt(
      transcript,
      corrections.sessionId,
      'quokkaphant replaces what was here',
      '72000000-0000-4000-8000-000000000002',
    );
    await eventually(
      async () => (await client.searchQuery({ query: 'quokkaphant' })).hits.length === 1,
      'the new line to be found',
    );
    expect((await client.searchQuery({ query: 'zebracorn' })).hits).toEqual([]);
  });

  it("keeps a deleted transcript's lines searchable (without a snippet)", async () => {
    const transcript = join(sandbox.projectsDir, loop.transcript.replace(/^projects\//, ''));
    rmSync(transcript);
    await eventually(
      async () =>
        (await client.sessionsList({ all: true })).sessions.some(
          (session) => session.sessionId === loop.sessionId && session.gone,
        ),
      'the session to be gone',
    );
    const { hits } = await client.searchQuery({ query: 'overcharged' });
    expect(hits.find((hit) => hit.kind === 'prompt')).toMatchObject({ sessionId: loop.sessionId, snippet: null });
  });

  it('memctl call search.query prints the result', async () => {
    const run = await runMemctl(sandbox, ['call', 'search.query', JSON.stringify({ query: 'quokkaphant' })]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).hits).toHaveLength(1);
  });
});

describe('the search index of a database from before it', () => {
  it('is built in the background from the transcripts, with progress, after a restart', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['coding-loop']);
    let daemon = await startDaemon(sandbox);
    let client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    client.close();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    // As migration 12 leaves a database written before it: no texts, every file at offset 0.
    const db = new Database(sandbox.dbPath);
    db.exec('DELETE FROM search_fts; UPDATE files SET search_offset = 0');
    db.close();
    daemon = await startDaemon(sandbox);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(
      async () => (await client.searchQuery({ query: 'overcharged' })).hits.length > 0,
      'the index to be built',
    );
    const result = await client.searchQuery({ query: 'overcharged' });
    expect(result.index).toEqual({ state: 'ready', filesDone: 1, filesTotal: 1 });
    expect(kindsOf(result.hits)).toEqual(new Set(['prompt', 'assistant']));
    client.close();
  });
});
