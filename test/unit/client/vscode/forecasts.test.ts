/** A session's forecasts in the sessions view: asked on expansion, kept per activity, left out by an older memd. */
import { describe, expect, it } from 'vitest';
import { ForecastStore } from '../../../../client/vscode/src/forecasts.js';
import { ErrorCode, RpcError } from '../../../../shared/protocol/errors.js';
import { eventually as poll } from '../../../helpers/poll.js';
import { FORECAST_NOW as NOW, usageStatus } from '../../../helpers/usage-status.js';

const SESSION = '4be41908-9cd7-4f2f-8ce3-b4984d13a3f5';

function store(answer: (sessionId: string) => Promise<unknown>) {
  const asked: string[] = [];
  let changes = 0;
  const logged: string[] = [];
  const forecasts = new ForecastStore(
    () => ({
      usageStatus: ({ sessionId }) => {
        asked.push(sessionId);
        return answer(sessionId);
      },
    }),
    () => changes++,
    (line) => logged.push(line),
  );
  return { forecasts, asked, logged, changes: () => changes };
}

describe('ForecastStore', () => {
  it('asks once, then shows each forecast with its provenance, and its basis in the tooltip', async () => {
    const { forecasts, asked, changes } = store(async (sessionId) => usageStatus({}, sessionId));
    expect(forecasts.nodes(SESSION, 'a', NOW)).toEqual([
      {
        kind: 'message',
        id: `memd.forecast.${SESSION}.message`,
        label: 'asking memd for the forecasts…',
        icon: 'loading~spin',
      },
    ]);
    await poll(() => changes() === 1, 'the answer');
    const nodes = forecasts.nodes(SESSION, 'a', NOW);
    expect(nodes.map((node) => [node.label, node.kind === 'forecast' ? node.description : null])).toEqual([
      ['auto-compact in 4 turns ~12m', 'estimated'],
      ['5h limit in 1h27m at this pace', 'estimated'],
      ['cache expires in 4m: rebuild $0.43 (131K)', 'estimated'],
    ]);
    expect(nodes[0]).toMatchObject({
      kind: 'forecast',
      icon: 'fold',
      tooltip:
        'auto-compact in 4 turns ~12m\nestimated: The context grew 11.5K tokens a turn over the last 6 turns, one turn every 3.1 minutes.',
    });
    expect(asked).toEqual([SESSION]);
    // The same activity: no new question. A newer one: asked again, the old figures shown meanwhile.
    forecasts.nodes(SESSION, 'a', NOW);
    expect(asked).toHaveLength(1);
    expect(forecasts.nodes(SESSION, 'b', NOW)).toHaveLength(3);
    expect(asked).toHaveLength(2);
    await poll(() => changes() === 2, 'the second answer');
  });

  it('leaves the forecasts out quietly when memd does not know usage.status', async () => {
    const { forecasts, logged, changes } = store(async () => {
      throw new RpcError(ErrorCode.MethodNotFound, 'MethodNotFound', 'no such method: usage.status');
    });
    expect(forecasts.available).toBe(true);
    forecasts.nodes(SESSION, 'a', NOW);
    await poll(() => changes() === 1, 'the refusal');
    expect(forecasts.available).toBe(false);
    expect(forecasts.nodes(SESSION, 'a', NOW)).toEqual([]);
    expect(logged).toEqual([]);
    forecasts.reset();
    expect(forecasts.available).toBe(true);
  });

  it('says why when memd fails otherwise, and logs it', async () => {
    const { forecasts, logged, changes } = store(async () => ({ sessionId: SESSION }));
    forecasts.nodes(SESSION, 'a', NOW);
    await poll(() => changes() === 1, 'the bad answer');
    const [node] = forecasts.nodes(SESSION, 'a', NOW);
    expect(node).toMatchObject({ kind: 'message', icon: 'warning' });
    expect(node?.label).toMatch(/^no forecasts: .*usage\.status/);
    expect(logged).toHaveLength(1);
  });
});
