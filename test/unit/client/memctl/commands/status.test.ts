import { describe, expect, it } from 'vitest';
import type { Client } from '../../../../../client/index.js';
import { status } from '../../../../../client/memctl/commands/status.js';
import type { CommandContext } from '../../../../../client/memctl/context.js';
import { plainOutput } from '../../../../../client/memctl/output.js';
import { ErrorCode, RpcError } from '../../../../../shared/protocol/errors.js';
import type { HandoffStatusResult } from '../../../../../shared/protocol/handoff.js';
import { answer } from '../../../../helpers/forecast-answer.js';
import { sampleSession } from '../../vscode/sample.js';

const hooks: HandoffStatusResult = { injection: null, compactions: [] } as unknown as HandoffStatusResult;

/** memctl status SESSION against a client whose usage.status answers `forecasts`, or throws it. */
async function run(forecasts: unknown, args: string[], json = false): Promise<string[]> {
  const printed: string[] = [];
  const client = {
    sessionsGet: async () => sampleSession(),
    handoffStatus: async () => hooks,
    usageStatus: async () => {
      if (forecasts instanceof Error) throw forecasts;
      return forecasts;
    },
    close: () => {},
  } as unknown as Client;
  const ctx: CommandContext = {
    args,
    json,
    autostart: false,
    out: plainOutput({ out: (text) => printed.push(text) }),
    env: {},
    client: () => client,
  };
  expect(await status(ctx)).toBe(0);
  return printed;
}

describe('memctl status SESSION and usage.status', () => {
  it('shows the forecasts under the session, the basis with -v, the whole answer under usageStatus with --json', async () => {
    const text = (await run(answer(), ['4be41908'])).join('\n');
    expect(text).toContain('  forecast  at 13:08Z (estimated: memd computed it; -v: the basis of each)');
    expect(text).toContain('  compact   auto-compact in 3 turns (~14 min)');
    expect(text).not.toContain('basis:');
    const verbose = (await run(answer(), ['-v', '4be41908'])).join('\n');
    expect(verbose).toContain('            basis: The context grew');
    const [json] = await run(answer(), ['4be41908'], true);
    expect(JSON.parse(json ?? '')).toMatchObject({ sessionId: sampleSession().sessionId, usageStatus: answer() });
  });

  it('leaves the forecasts out quietly, the rest unchanged, from a memd without usage.status', async () => {
    const without = await run(new RpcError(ErrorCode.MethodNotFound, 'MethodNotFound', 'no usage.status'), [
      '4be41908',
    ]);
    const unreadable = await run({ sessionId: 'x' }, ['4be41908']);
    const withForecasts = await run(answer(), ['4be41908']);
    expect(without.join('\n')).not.toContain('forecast');
    expect(unreadable).toEqual(without);
    expect(withForecasts.filter((line) => !/^ {2}(forecast|compact|5h limit|rebuild) /.test(line))).toEqual(without);
    const [json] = await run(new RpcError(ErrorCode.MethodNotFound, 'MethodNotFound', 'no usage.status'), ['x'], true);
    expect(JSON.parse(json ?? '')).not.toHaveProperty('usageStatus');
  });

  it('lets any other failure of usage.status through', async () => {
    await expect(run(new RpcError(ErrorCode.NotFound, 'NotFound', 'no session x'), ['x'])).rejects.toThrow(
      'no session x',
    );
  });
});
