/** `memctl memory summary|extract SESSION [--json]`: a session's memory, or an extraction now. */
import type { MemorySummaryResult } from '../../../shared/protocol/results.js';
import { UsageError, type Command } from '../context.js';
import type { Output } from '../output.js';

function render(result: MemorySummaryResult, out: Output): string[] {
  if (result.text === null) return [`no session memory yet for ${result.sessionId} (it would be ${result.path}); memctl memory extract ${result.sessionId} makes one`];
  const cost = result.costUsd === null ? 'cost unknown' : `$${result.costUsd.toFixed(4)}`;
  const tokens = result.summarizer === 'anthropic' ? `, ${result.inputTokens} in / ${result.outputTokens} out tokens, ${cost}` : '';
  const lines = [
    out.bold(`session memory of ${result.sessionId}`),
    `  file       ${result.path}`,
    `  extracted  ${result.extractedAt ?? 'not by memd'}${result.summarizer ? ` by the ${result.summarizer} summarizer${tokens}` : ''}`,
    `  covers     up to ${result.lastUuid ?? 'an unknown message'}`,
    '',
  ];
  return [...lines, ...result.text.trimEnd().split('\n')];
}

export const memory: Command = async (ctx) => {
  const [action, sessionId, ...rest] = ctx.args;
  if ((action !== 'summary' && action !== 'extract') || sessionId === undefined || rest.length > 0) {
    throw new UsageError('memory takes summary or extract, then one SESSION');
  }
  const client = ctx.client();
  try {
    const result = action === 'summary' ? await client.memorySummary({ sessionId }) : await client.memoryExtract({ sessionId });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of render(result, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
