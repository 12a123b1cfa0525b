import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CallContext, createDispatcher } from '../../../../../daemon/rpc/dispatch.js';
import { historyMethods } from '../../../../../daemon/rpc/methods/history.js';
import { ErrorCode } from '../../../../../shared/protocol/errors.js';
import type { HistoryListResult } from '../../../../../shared/protocol/history.js';
import { fakeLogger } from '../../../../helpers/fake-logger.js';
import { FIXTURES } from '../../../../helpers/ingest.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memd-history-methods-'));
  cpSync(join(FIXTURES, 'interactive', 'history.jsonl'), join(root, 'history.jsonl'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function context(signal = new AbortController().signal): CallContext {
  return { signal, connection: { id: 1, subscribe: () => [], unsubscribe: () => [] } };
}

async function call(params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
  const dispatcher = createDispatcher(historyMethods({ claudeRoot: root }), fakeLogger());
  return dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'history.list', params }, context(signal));
}

describe('history.list', () => {
  it('answers a page of the history under the claude root', async () => {
    const response = (await call({ limit: 2 })) as { result: HistoryListResult };
    expect(response.result.entries.map((entry) => entry.display)).toEqual([
      '/exit',
      'Thanks. Is anything else in that file likely to break on bad input?',
    ]);
    expect(response.result.nextBefore).toBe(response.result.entries[1]?.timestamp);
    expect(response.result.badLines).toBe(0);
  });

  it('answers InvalidParams for a limit over 100 or a before that is not a time', async () => {
    expect(await call({ limit: 101 })).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    expect(await call({ before: 'last week' })).toMatchObject({
      error: { code: ErrorCode.InvalidParams, data: { kind: 'InvalidParams', before: 'last week' } },
    });
  });

  it('answers Cancelled when the caller has gone', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await call({}, controller.signal)).toMatchObject({ error: { code: ErrorCode.Cancelled } });
  });
});
