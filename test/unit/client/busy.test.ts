/**
 * Busy (-32005): memd did not run the request and says when to try again. The client waits out
 * the hint and retries once; a second Busy reaches the caller with memd's sentence.
 */
import { describe, expect, it } from 'vitest';
import { busyError } from '../../../daemon/rpc/budget.js';
import { handle } from '../../../daemon/rpc/dispatch.js';
import { ErrorCode } from '../../../shared/protocol/errors.js';
import { Methods } from '../../../shared/protocol/methods.js';
import { serveHandlers } from '../../helpers/handler-server.js';

const page = { sessionId: 'any', format: 'jsonl' as const };
const answer = {
  sessionId: 'any',
  format: 'jsonl' as const,
  encoding: 'utf8' as const,
  content: 'x',
  offset: 0,
  totalBytes: 1,
  nextCursor: null,
};

describe('a Busy answer', () => {
  it('is retried once after its hint', async () => {
    let calls = 0;
    const served = await serveHandlers([
      handle(Methods.exportSession, () => {
        calls++;
        if (calls === 1) throw busyError('memd is busy', { retryAfterMs: 20 });
        return answer;
      }),
    ]);
    try {
      expect(await served.client.call(Methods.exportSession, page)).toEqual(answer);
      expect(calls).toBe(2);
    } finally {
      await served.close();
    }
  });

  it('reaches the caller when the retry is Busy too', async () => {
    let calls = 0;
    const served = await serveHandlers([
      handle(Methods.exportSession, () => {
        calls++;
        throw busyError('memd is busy: answers not read', { retryAfterMs: 20 });
      }),
    ]);
    try {
      const error = await served.client.call(Methods.exportSession, page).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: ErrorCode.Busy, kind: 'Busy', data: { retryAfterMs: 20 } });
      expect(calls).toBe(2);
    } finally {
      await served.close();
    }
  });
});
