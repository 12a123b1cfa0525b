/** `memctl call METHOD [JSON]`: the raw protocol, for scripts and debugging. */
import { type Command, UsageError } from '../context.js';

export const call: Command = async (ctx) => {
  const [method, json, ...extra] = ctx.args;
  if (method === undefined) throw new UsageError('call needs a METHOD, e.g. memctl call daemon.status');
  if (extra.length > 0) throw new UsageError('call takes METHOD and one JSON object (quote it)');
  let params: unknown = {};
  if (json !== undefined) {
    try {
      params = JSON.parse(json);
    } catch (error) {
      throw new UsageError(`params are not valid JSON: ${(error as Error).message}`);
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw new UsageError('params must be one JSON object, e.g. \'{"sessionId":"..."}\'');
    }
  }
  const client = ctx.client();
  try {
    const result = await client.callRaw(method, params as object);
    ctx.out.out(JSON.stringify(result, null, ctx.json ? undefined : 2));
    return 0;
  } finally {
    client.close();
  }
};
