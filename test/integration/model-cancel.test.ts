/**
 * A client that cancels a request waiting for a model stops the model call (issue 30 item 4b):
 * `compact.auto` and `memory.extract` pass the request's signal to the SDK, so `$/cancelRequest`
 * (or a client that goes away) aborts the HTTP request, the daemon answers Cancelled and logs it,
 * and nothing is recorded as a success. The scripted Messages API never answers (a `hang` step),
 * so nothing here depends on timing: without the signal the request would wait forever.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { ErrorCode } from '../../shared/protocol/errors.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects } from '../helpers/ingest.js';
import { type MessagesApi, startMessagesApi } from '../helpers/messages-api.js';
import { RawSocket } from '../helpers/raw-socket.js';
import {
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  type Sandbox,
  startDaemon,
} from '../helpers/sandbox.js';

async function caughtUp(client: Client): Promise<boolean> {
  const { ingest } = await client.daemonStatus();
  return ingest.progress.state === 'live' && ingest.progress.filesPending === 0 && ingest.stats.files > 0;
}

describe('a cancelled request that waits for a model', () => {
  let api: MessagesApi;
  let sandbox: Sandbox;
  let daemon: DaemonProcess;
  let client: Client;

  beforeAll(async () => {
    api = await startMessagesApi();
    sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['compactions', 'coding-loop']);
    daemon = await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
      MEMD_MODEL: 'claude-haiku-4-5',
    });
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(() => caughtUp(client), 'ingest to catch up');
    return async () => {
      client.close();
      await api.close();
    };
  });

  /** Sends the request, waits until the model has it, cancels it, and returns the answer and that model request. */
  async function cancelWhileTheModelThinks(method: string, params: unknown) {
    api.script({ kind: 'hang' });
    const seen = api.requests.length;
    const socket = await RawSocket.open(sandbox.socketPath);
    try {
      socket.sendJson({ jsonrpc: '2.0', id: 1, method, params });
      await eventually(() => api.requests.length > seen, 'the model request');
      socket.sendJson({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } });
      const answer = await socket.responseTo(1);
      const request = api.requests[seen];
      await eventually(() => request?.aborted === true, 'the model request to be aborted');
      return { answer, request };
    } finally {
      socket.close();
    }
  }

  it('compact.auto: the SDK call is aborted, the answer is Cancelled, and no failure or success is counted', async () => {
    const { sessionId } = manifest('compactions');
    const { answer, request } = await cancelWhileTheModelThinks('compact.auto', { sessionId, force: true });
    expect(answer).toMatchObject({ id: 1, error: { code: ErrorCode.Cancelled, data: { kind: 'Cancelled' } } });
    expect(request).toMatchObject({ status: null, aborted: true });
    await eventually(() => daemon.output().includes('auto-compaction cancelled by its callers'), 'the log line');
    // Not a failed compaction (the breaker does not count a cancel), and not a success either.
    expect((await client.daemonStatus()).compaction.failing).toEqual([]);
  });

  it('memory.extract: the SDK call is aborted, the answer is Cancelled, and the job is not recorded as done', async () => {
    const { sessionId } = manifest('coding-loop');
    const { answer, request } = await cancelWhileTheModelThinks('memory.extract', { sessionId });
    expect(answer).toMatchObject({ id: 1, error: { code: ErrorCode.Cancelled, data: { kind: 'Cancelled' } } });
    expect(request).toMatchObject({ status: null, aborted: true });
    await eventually(
      () => daemon.output().includes('session-memory extraction cancelled by its callers'),
      'the log line',
    );
    const { extraction } = await client.daemonStatus();
    expect(extraction.running).toEqual([]);
    // Failed, not deferred: given up, not retried.
    expect(extraction.jobs).toMatchObject({ failed: 1 });
    expect(extraction.jobs.done ?? 0).toBe(0);
    expect(await client.memorySummary({ sessionId })).toMatchObject({ text: null, extractedAt: null });
  });
});
