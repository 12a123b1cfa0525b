/** `memctl compact SESSION [--method auto|micro|reactive|cache-edits] [--limit N] [--json]`. */

import { type CompactionResult, compactionResultSchema } from '../../../shared/protocol/compaction.js';
import { RpcError } from '../../../shared/protocol/errors.js';
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { type Command, EXIT_ERROR, UsageError } from '../context.js';
import { renderCompaction } from '../views/compaction.js';

const METHODS = ['auto', 'micro', 'reactive', 'cache-edits'] as const;
type Method = (typeof METHODS)[number];

function parseArgs(args: string[]): { sessionId: string; method: Method; limit: number | undefined; force: boolean } {
  let method: Method = 'auto';
  let limit: number | undefined;
  let force = false;
  const positional: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--method') {
      const value = args[++index];
      if (!METHODS.includes(value as Method)) throw new UsageError(`--method takes one of ${METHODS.join(', ')}`);
      method = value as Method;
    } else if (arg === '--limit') {
      const value = Number(args[++index]);
      if (!Number.isSafeInteger(value) || value < 1) throw new UsageError('--limit takes a positive number of tokens');
      limit = value;
    } else if (arg === '--force') force = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError('compact takes one SESSION');
  return { sessionId: positional[0] as string, method, limit, force };
}

/**
 * The daemon's BelowThreshold message ends in its RPC param (`pass force`); on the command line the
 * way to force is the `--force` flag, so say that instead.
 */
function belowThresholdMessage(error: RpcError, sessionId: string): string {
  const reason = error.message.replace(/;\s*pass force\b.*$/s, '');
  return `memctl: ${reason}; \`memctl compact ${sessionId} --force\` compacts it anyway`;
}

/** The method each `--method` asks, for what an answer that fails its schema names. */
const METHOD_NAMES: Record<Method, string> = {
  micro: 'compact.micro',
  'cache-edits': 'compact.cacheEdits',
  reactive: 'compact.reactive',
  auto: 'compact.auto',
};

export const compact: Command = async (ctx) => {
  const { sessionId, method, limit, force } = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    let result: CompactionResult;
    if (method === 'micro') result = await client.compactMicro({ sessionId });
    else if (method === 'cache-edits') result = await client.compactCacheEdits({ sessionId });
    else if (method === 'reactive')
      result = await client.compactReactive(limit === undefined ? { sessionId } : { sessionId, limitTokens: limit });
    else result = await client.compactAuto({ sessionId, force });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else
      for (const line of renderCompaction(parseAnswer(compactionResultSchema, result, METHOD_NAMES[method]), ctx.out))
        ctx.out.out(line);
    return 0;
  } catch (error) {
    if (!(error instanceof RpcError) || error.kind !== 'BelowThreshold') throw error;
    ctx.out.err(belowThresholdMessage(error, sessionId));
    return EXIT_ERROR;
  } finally {
    client.close();
  }
};
