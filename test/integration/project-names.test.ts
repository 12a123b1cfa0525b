/**
 * Projects named as memctl's tables show them (issue 28 item 5): `shop`, the end of a cwd, or
 * `acme/api` where two cwds end alike, are taken by search, usage and memdir, over the real
 * daemon; a name that matches nothing is an error naming the candidates, never "no hits".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { RpcError } from '../../shared/protocol/errors.js';
import { createClient } from '../helpers/client.js';
import { growingUsage, mainPath, projectFolder, TranscriptWriter, writeTranscript } from '../helpers/real-shapes.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SHOP = '/tmp/pytest-of-dev/pytest-7/test_checkout0/shop';
const ACME = '/home/dev/acme/api';
const GLOBEX = '/home/dev/globex/api';
const WORD = 'quokkaflux';

let sandbox: Sandbox;
let client: Client;

function session(sessionId: string, cwd: string): void {
  const writer = new TranscriptWriter({ sessionId, cwd, version: '2.1.197' });
  writer.prompt(`Find the ${WORD} in ${cwd}`);
  writer.toolRound('Read', { file_path: `${cwd}/README.md` }, '# readme', growingUsage(1));
  writeTranscript(mainPath(sandbox.projectsDir, cwd, sessionId), writer);
}

beforeAll(async () => {
  sandbox = makeSandbox();
  session('a1000000-0000-4000-8000-000000000001', SHOP);
  session('a2000000-0000-4000-8000-000000000002', ACME);
  session('a3000000-0000-4000-8000-000000000003', GLOBEX);
  keepForFile(sandbox, await startDaemon(sandbox));
  client = createClient({ env: sandbox.env, autostart: false });
  await eventually(
    async () => (await client.searchQuery({ query: WORD, limit: 10 })).hits.length === 3,
    'search to index the three prompts',
  );
});

afterAll(() => client?.close());

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as RpcError,
  );

describe('projects by the name tables show', () => {
  it('search, usage and memdir take the end of the cwd and answer for its folder', async () => {
    const hits = (await client.searchQuery({ query: WORD, project: 'shop' })).hits;
    expect(hits.map((hit) => hit.project)).toEqual([projectFolder(SHOP)]);
    // One name shown: the hit names the project as the tables do, and that name is accepted.
    const names = (await client.searchQuery({ query: WORD })).hits.map((hit) => hit.projectName).sort();
    expect(names).toEqual(['acme/api', 'globex/api', 'shop']);
    expect((await client.searchQuery({ query: WORD, project: 'acme/api' })).hits.map((hit) => hit.project)).toEqual([
      projectFolder(ACME),
    ]);
    // The folder and the cwd still work.
    expect((await client.searchQuery({ query: WORD, project: projectFolder(SHOP) })).hits).toHaveLength(1);
    expect((await client.searchQuery({ query: WORD, project: SHOP })).hits).toHaveLength(1);
    // The usage book follows the index on its own: wait for it, then the figures are the shop's alone.
    await eventually(
      async () => (await client.usageReport({})).totals.output > 0,
      'the usage book to count the responses',
    );
    const usage = await client.usageReport({ project: 'shop', by: 'project' });
    expect(usage.rows.map((row) => [row.key, row.name])).toEqual([[projectFolder(SHOP), 'shop']]);
    const names2 = (await client.usageReport({ by: 'project' })).rows.map((row) => row.name).sort();
    expect(names2).toEqual(['acme/api', 'globex/api', 'shop']);
    expect((await client.memdirList({ project: 'shop' })).project).toBe(projectFolder(SHOP));
    const cli = await runMemctl(sandbox, ['search', WORD, '--project', 'shop']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(WORD);
    expect(cli.stdout).toContain('· shop');
    expect(cli.stdout).not.toContain(projectFolder(SHOP));
  });

  it('an unknown project is an error naming the candidates, not "no hits"', async () => {
    const unknown = await failure(client.searchQuery({ query: WORD, project: 'nope' }));
    expect(unknown).toBeInstanceOf(RpcError);
    expect(unknown).toMatchObject({ code: 1001, kind: 'UnknownProject' });
    expect(unknown?.message).toContain(SHOP);
    expect((unknown?.data.candidates as { cwd: string }[]).map((c) => c.cwd).sort()).toEqual(
      [ACME, GLOBEX, SHOP].sort(),
    );
    expect(await failure(client.usageReport({ project: 'nope' }))).toMatchObject({ kind: 'UnknownProject' });
    expect(await failure(client.memdirList({ project: 'nope' }))).toMatchObject({ kind: 'UnknownProject' });
    const cli = await runMemctl(sandbox, ['search', WORD, '--project', 'nope']);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('shop');
  });

  it('a short name two projects end in lists both', async () => {
    const ambiguous = await failure(client.searchQuery({ query: WORD, project: 'api' }));
    expect(ambiguous).toMatchObject({ code: -32602, kind: 'AmbiguousProject' });
    expect((ambiguous?.data.candidates as { cwd: string }[]).map((c) => c.cwd).sort()).toEqual([ACME, GLOBEX]);
  });
});
