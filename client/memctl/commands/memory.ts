/** `memctl memory summary|extract SESSION [--json]` and `memctl memory pause|resume`: a session's memory, an extraction now, background extraction off and on. */
import { type MemorySummaryResult, memorySummaryResultSchema } from '../../../shared/protocol/memory.js';
import { parseAnswer } from '../../../shared/protocol/schema.js';
import { type Command, UsageError } from '../context.js';
import type { Output } from '../output.js';

function render(result: MemorySummaryResult, out: Output): string[] {
  if (result.text === null)
    return [
      `no session memory yet for ${result.sessionId} (it would be ${result.path}); memctl memory extract ${result.sessionId} makes one`,
    ];
  const cost = result.costUsd === null ? 'cost unknown' : `$${result.costUsd.toFixed(4)}`;
  const tokens =
    result.summarizer === 'anthropic' ? `, ${result.inputTokens} in / ${result.outputTokens} out tokens, ${cost}` : '';
  const lines = [
    out.bold(`session memory of ${result.sessionId}`),
    `  file       ${result.path}`,
    `  extracted  ${result.extractedAt ?? 'not by memd'}${result.summarizer ? ` by the ${result.summarizer} summarizer${tokens}` : ''}`,
    `  covers     up to ${result.lastUuid ?? 'an unknown message'}`,
    '',
  ];
  return [...lines, ...result.text.trimEnd().split('\n')];
}

/** `memory pause|resume`: background extraction off or on again (persisted by the daemon). */
async function setPaused(ctx: Parameters<Command>[0], pause: boolean): Promise<number> {
  const client = ctx.client();
  try {
    const result = pause ? await client.memoryPause({}) : await client.memoryResume({});
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else
      ctx.out.out(
        result.paused
          ? 'background session-memory extraction paused (memctl memory extract still runs one; memctl memory resume starts it again)'
          : 'background session-memory extraction resumed',
      );
    return 0;
  } finally {
    client.close();
  }
}

export const memory: Command = async (ctx) => {
  const [action, sessionId, ...rest] = ctx.args;
  if ((action === 'pause' || action === 'resume') && sessionId === undefined) return setPaused(ctx, action === 'pause');
  if ((action !== 'summary' && action !== 'extract') || sessionId === undefined || rest.length > 0) {
    throw new UsageError('memory takes summary or extract and one SESSION, or pause, or resume');
  }
  const client = ctx.client();
  try {
    const result =
      action === 'summary' ? await client.memorySummary({ sessionId }) : await client.memoryExtract({ sessionId });
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else
      for (const line of render(parseAnswer(memorySummaryResultSchema, result, `memory.${action}`), ctx.out))
        ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
