/** `memctl compact SESSION [--method auto|micro|reactive|cache-edits] [--limit N] [--json]`. */
import { RpcError } from '../../../shared/protocol/errors.js';
import { compactionResultSchema, type CompactionResult } from '../../../shared/protocol/compaction.js';
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { EXIT_ERROR, UsageError, type Command } from '../context.js';
import type { Output } from '../output.js';

const METHODS = ['auto', 'micro', 'reactive', 'cache-edits'] as const;
type Method = (typeof METHODS)[number];
/** Lost items shown per kind; --json has them all. */
const SHOWN_LOST = 5;

function parseArgs(args: string[]): { sessionId: string; method: Method; limit?: number; force: boolean } {
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

function kilo(tokens: number): string {
  return tokens >= 10_000 ? `${Math.round(tokens / 1000)}K` : tokens.toLocaleString('en-US');
}

export function renderCompaction(result: CompactionResult, out: Output): string[] {
  const saved = result.preTokens - result.postTokens;
  // micro, cache-edits and reactive answer the messages unchanged when they have nothing to do.
  const unchanged = result.actions.length === 0 && result.summary === null;
  const lines = [
    `${out.bold(result.method)} compaction of ${result.sessionId}`,
    unchanged
      ? `  tokens   ${kilo(result.preTokens)}: nothing to compact, the messages are unchanged`
      : `  tokens   ${kilo(result.preTokens)} → ${kilo(result.postTokens)} (${saved >= 0 ? 'saves' : 'adds'} ${kilo(Math.abs(saved))})`,
    `  messages ${result.messages.length}${result.keptFromUuid ? `, kept verbatim from ${result.keptFromUuid}` : ''}`,
  ];
  if (result.fallback !== undefined) lines.push(`  fallback the offline summary: ${result.fallback.reason}`);
  const counts = new Map<string, number>();
  for (const action of result.actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
  if (counts.size > 0) lines.push(`  actions  ${[...counts].map(([kind, count]) => `${count} ${kind}`).join(', ')}`);
  const lost = result.lost;
  const kinds: [string, string[]][] = [
    ['user messages', lost.userMessages],
    ['file paths', lost.filePaths],
    ['identifiers', lost.identifiers],
    ['errors', lost.errors],
  ];
  const lostTotal = kinds.reduce((sum, [, items]) => sum + items.length, 0);
  lines.push(lostTotal === 0 ? '  lost     nothing' : `  lost     ${lostTotal} item${lostTotal === 1 ? '' : 's'}`);
  for (const [label, items] of kinds) {
    if (items.length === 0) continue;
    lines.push(`    ${label} (${items.length}):`);
    for (const item of items.slice(0, SHOWN_LOST)) lines.push(`      - ${item.length > 100 ? `${item.slice(0, 99)}…` : item}`.replace(/\n/g, ' '));
    if (items.length > SHOWN_LOST) lines.push(`      … ${items.length - SHOWN_LOST} more (--json lists them all)`);
  }
  return lines;
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
const METHOD_NAMES: Record<Method, string> = { micro: 'compact.micro', 'cache-edits': 'compact.cacheEdits', reactive: 'compact.reactive', auto: 'compact.auto' };

export const compact: Command = async (ctx) => {
  const { sessionId, method, limit, force } = parseArgs(ctx.args);
  const client = ctx.client();
  try {
    let result: CompactionResult;
    if (method === 'micro') result = await client.compactMicro({ sessionId });
    else if (method === 'cache-edits') result = await client.compactCacheEdits({ sessionId });
    else if (method === 'reactive') result = await client.compactReactive(limit === undefined ? { sessionId } : { sessionId, limitTokens: limit });
    else result = await client.compactAuto({ sessionId, force });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of renderCompaction(parseAnswer(compactionResultSchema, result, METHOD_NAMES[method]), ctx.out)) ctx.out.out(line);
    return 0;
  } catch (error) {
    if (!(error instanceof RpcError) || error.kind !== 'BelowThreshold') throw error;
    ctx.out.err(belowThresholdMessage(error, sessionId));
    return EXIT_ERROR;
  } finally {
    client.close();
  }
};
