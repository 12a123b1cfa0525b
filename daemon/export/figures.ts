/**
 * The report's figures from the index alone (no transcript read): the context of every main-thread
 * response with the compactions between them, and the cost by model. Responses are counted once
 * per message.id + requestId with their final usage, as the session's accounting counts them
 * (shared/transcript/response-usage.ts). Pure.
 */
import type { ContextChart, CostRow, ReportCosts } from '../../shared/export/model.js';
import type { UsageTotals } from '../../shared/protocol/sessions.js';
import { contextOfUsage } from '../../shared/transcript/context-count.js';
import { isApiResponse, isFinalerThan, type ModelUsage, responseKey } from '../../shared/transcript/response-usage.js';
import type { IndexedEntry, Usage } from '../../shared/transcript/types.js';

/** The context each main-thread response was sent with, in file order, and where compactions fell. */
export function contextChart(
  main: readonly IndexedEntry[],
  autoCompactAt: number | null,
  window: number,
  autoCompactMode: ContextChart['autoCompactMode'],
): ContextChart {
  const points: { at: string | null; usage: Usage }[] = [];
  const byKey = new Map<string, number>();
  const compactions: ContextChart['compactions'] = [];
  for (const entry of main) {
    if (entry.isSidechain) continue;
    if (entry.type === 'system' && entry.compact !== null) {
      compactions.push({
        after: points.length,
        at: entry.timestamp,
        trigger: entry.compact.trigger,
        preTokens: entry.compact.preTokens,
      });
      continue;
    }
    if (!isApiResponse(entry)) continue;
    const key = entry.messageId === null ? null : responseKey(entry.messageId, entry.requestId);
    const seen = key === null ? undefined : byKey.get(key);
    const point = seen === undefined ? undefined : points[seen];
    if (point !== undefined) {
      if (isFinalerThan(entry.usage, point.usage)) point.usage = entry.usage;
      continue;
    }
    if (key !== null) byKey.set(key, points.length);
    points.push({ at: entry.timestamp, usage: entry.usage });
  }
  return {
    points: points.map((point) => ({ at: point.at, tokens: contextOfUsage(point.usage) })),
    compactions,
    autoCompactAt,
    window,
    autoCompactMode,
  };
}

function costRow(model: string, usage: UsageTotals): CostRow {
  return {
    model,
    responses: usage.assistantMessages,
    input: usage.input,
    output: usage.output,
    cacheCreation: usage.cacheCreation,
    cacheRead: usage.cacheRead,
    costUsd: usage.costUsd,
  };
}

/** Cost by model in order of first use, the total, and the share of prompt tokens read from the cache. */
export function reportCosts(byModel: readonly ModelUsage[], total: UsageTotals): ReportCosts {
  const prompt = total.input + total.cacheCreation + total.cacheRead;
  return {
    rows: byModel.filter((row) => row.usage.assistantMessages > 0).map((row) => costRow(row.model, row.usage)),
    total: costRow('total', total),
    cacheHitRate: prompt === 0 ? null : total.cacheRead / prompt,
  };
}
