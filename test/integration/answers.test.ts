/**
 * The daemon's real answers pass the protocol's result schemas (shared/protocol/answers.ts): every
 * method with a schema, called once over ingested fixtures through the tests' checking client
 * (test/helpers/client.ts), which throws InvalidAnswer naming the field of an answer that fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { ANSWER_SCHEMAS } from '../../shared/protocol/answers.js';
import { Methods } from '../../shared/protocol/methods.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { eventually, keepForFile, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';

describe("the daemon's answers against the result schemas", () => {
  let sandbox: Sandbox;
  let client: Client;
  const compactions = manifest('compactions');
  const sessionId = compactions.sessionId;

  beforeAll(async () => {
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions']);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
    }, 'ingest to catch up');
  });

  it('checks an answer of every method that has a schema', async () => {
    const work = join(sandbox.root, 'work');
    mkdirSync(work);
    let uuid: string | null | undefined;
    await eventually(async () => {
      const { hits, index } = await client.searchQuery({ query: 'idempotency' });
      uuid = hits.find((hit) => hit.uuid !== null)?.uuid;
      return index.state === 'ready' && typeof uuid === 'string';
    }, 'a hit with a uuid');
    const calls: Record<string, () => Promise<unknown>> = {
      'daemon.version': () => client.daemonVersion(),
      'daemon.status': () => client.daemonStatus(),
      'sessions.list': () => client.sessionsList({ all: true }),
      'sessions.get': () => client.sessionsGet({ sessionId }),
      'compact.thresholds': () => client.compactThresholds({ sessionId }),
      'compact.micro': () => client.compactMicro({ sessionId }),
      'compact.cacheEdits': () => client.compactCacheEdits({ sessionId }),
      'compact.auto': () => client.compactAuto({ sessionId, force: true }),
      'compact.reactive': () => client.compactReactive({ sessionId, limitTokens: 10_000_000 }),
      'memory.extract': () => client.memoryExtract({ sessionId }),
      'memory.summary': () => client.memorySummary({ sessionId }),
      'handoff.generate': () => client.handoffGenerate({ sessionId, cwd: work }),
      'search.query': () => client.searchQuery({ query: 'idempotency' }),
      'search.context': () => client.searchContext({ sessionId, uuid: uuid ?? '' }),
      'usage.report': () => client.usageReport({ since: '2020-01-01' }),
      'usage.status': () => client.call(Methods.usageStatus, { sessionId }),
      'archive.deleted': () => client.archiveDeleted({}),
      'sync.status': () => client.syncStatus({}),
      'memdir.conflicts': () => client.memdirConflicts({}),
      'recall.forPrompt': () =>
        client.call(Methods.recallForPrompt, { sessionId: 'another-session', prompt: 'idempotency key replay' }),
      'recall.forFailure': () =>
        client.call(Methods.recallForFailure, {
          sessionId: 'another-session',
          toolName: 'Bash',
          error: 'AssertionError: expected 3 to equal 4',
        }),
    };
    expect(Object.keys(calls).sort()).toEqual([...ANSWER_SCHEMAS.keys()].sort());
    for (const [method, call] of Object.entries(calls)) {
      await expect(call(), method).resolves.toBeTypeOf('object');
    }
  });
});
