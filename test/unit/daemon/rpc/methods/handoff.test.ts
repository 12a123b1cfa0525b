import { describe, expect, it } from 'vitest';
import type { HandoffService } from '../../../../../daemon/handoff/service.js';
import type { CallContext } from '../../../../../daemon/rpc/dispatch.js';
import { handoffMethods } from '../../../../../daemon/rpc/methods/handoff.js';
import { Methods } from '../../../../../shared/protocol/methods.js';

describe('handoffMethods', () => {
  it('serves handoff.generate with the call signal and handoff.read', async () => {
    const calls: unknown[] = [];
    const service: HandoffService = {
      generate: async (params, signal) => {
        calls.push(['generate', params, signal]);
        return {} as never;
      },
      read: async (cwd) => {
        calls.push(['read', cwd]);
        return {} as never;
      },
    };
    const handlers = handoffMethods(service);
    expect(handlers.map((handler) => handler.descriptor.name)).toEqual([
      Methods.handoffGenerate.name,
      Methods.handoffRead.name,
    ]);
    const abort = new AbortController();
    const ctx = {
      signal: abort.signal,
      connection: { id: 1, subscribe: () => [], unsubscribe: () => [] },
    } satisfies CallContext;
    const params = Methods.handoffGenerate.params.parse(
      { transcriptPath: '/p/x.jsonl', cwd: '/repo', trigger: 'auto' },
      'params',
    );
    await handlers[0]?.run(params, ctx);
    await handlers[1]?.run({ cwd: '/repo' }, ctx);
    expect(calls).toEqual([
      ['generate', { transcriptPath: '/p/x.jsonl', cwd: '/repo', trigger: 'auto' }, abort.signal],
      ['read', '/repo'],
    ]);
  });
});
