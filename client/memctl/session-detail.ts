/** `memctl status SESSION`: one session in full. */
import type { SessionSummary, UsageTotals } from '../../shared/protocol/results.js';
import type { Output } from './output.js';
import { contextBar, formatAge, formatTokens } from './sessions-view.js';

function usageLine(label: string, usage: UsageTotals): string {
  const cost = usage.costUsd === null ? 'cost unknown (unpriced model)' : `$${usage.costUsd.toFixed(4)}`;
  return `  ${label.padEnd(10)}${usage.assistantMessages} responses · in ${usage.input} · out ${usage.output} · cache write ${usage.cacheCreation} (5m ${usage.cache5m}, 1h ${usage.cache1h}) · cache read ${usage.cacheRead} · ${cost}`;
}

export function renderSessionDetail(session: SessionSummary, out: Output, now = Date.now()): string[] {
  const { threshold, compactions } = session;
  const lines = [
    `${out.bold(session.title ?? '(untitled)')}  ${out.dim(session.sessionId)}${session.gone ? out.dim(' (transcript deleted)') : ''}`,
    `  project   ${session.cwd ?? session.project}${session.gitBranch ? ` (${session.gitBranch})` : ''}`,
    `  model     ${session.model ?? '-'}`,
    `  activity  ${session.firstActivity ?? '-'} → ${session.lastActivity ?? '-'} (${formatAge(session.lastActivity, now)})`,
    `  context   ${contextBar(session.contextTokens, threshold, out)}`,
    `  state     ${threshold.state}, ${formatTokens(threshold.tokensLeft)} tokens left · warning ${formatTokens(threshold.warningAt)} · error ${formatTokens(threshold.errorAt)} · blocking ${formatTokens(threshold.blockingAt)} · window ${formatTokens(threshold.window)}`,
    usageLine('main', session.usage.main),
    usageLine('subagents', session.usage.sidechain),
    usageLine('total', session.usage.total),
    `  compacted ${compactions.count}×${
      compactions.lastTrigger ? ` (last ${compactions.lastTrigger}, ${compactions.lastPreTokens ?? '?'} → ${compactions.lastPostTokens ?? '?'} tokens)` : ''
    }`,
    `  since last memory extraction: ${session.sinceExtraction.toolCalls} tool calls, +${formatTokens(session.sinceExtraction.tokenGrowth)} tokens`,
    `  index     ${session.entries} entries, ${session.sidechainFiles} subagent transcripts, ${session.badLines} bad lines skipped`,
  ];
  return lines;
}
