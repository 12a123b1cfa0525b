/** `memctl status SESSION`: one session in full. */
import type { HandoffStatusResult } from '../../shared/protocol/handoff.js';
import type { SessionSummary, UsageTotals } from '../../shared/protocol/results.js';
import type { Output } from './output.js';
import { contextBar, formatAge, formatTokens, titleOf } from './sessions-view.js';

function usageLine(label: string, usage: UsageTotals): string {
  const cost = usage.costUsd === null ? 'cost unknown (unpriced model)' : `$${usage.costUsd.toFixed(4)}`;
  return `  ${label.padEnd(10)}${usage.assistantMessages} responses · in ${usage.input} · out ${usage.output} · cache write ${usage.cacheCreation} (5m ${usage.cache5m}, 1h ${usage.cache1h}) · cache read ${usage.cacheRead} · ${cost}`;
}

/** `?` until known: the post size waits for the first response after the boundary. */
function tokensOrUnknown(tokens: number | null): string {
  return tokens === null ? '?' : formatTokens(tokens);
}

export function renderSessionDetail(session: SessionSummary, out: Output, now = Date.now()): string[] {
  const { threshold, compactions } = session;
  const lines = [
    `${out.bold(titleOf(session))}  ${out.dim(session.sessionId)}${session.gone ? out.dim(' (transcript deleted)') : ''}`,
    `  project   ${session.cwd ?? session.project}${session.gitBranch ? ` (${session.gitBranch})` : ''}`,
    `  model     ${session.model ?? '-'}`,
    `  activity  ${session.firstActivity ?? '-'} → ${session.lastActivity ?? '-'} (${formatAge(session.lastActivity, now)})`,
    `  context   ${contextBar(session.contextTokens, threshold, out)}`,
    `  state     ${threshold.state}, ${formatTokens(threshold.tokensLeft)} tokens left · warning ${formatTokens(threshold.warningAt)} · error ${formatTokens(threshold.errorAt)} · blocking ${formatTokens(threshold.blockingAt)} · window ${formatTokens(threshold.window)}`,
    usageLine('main', session.usage.main),
    usageLine('subagents', session.usage.sidechain),
    ...(session.compactionFiles > 0 || session.usage.compaction.assistantMessages > 0 ? [usageLine('compaction', session.usage.compaction)] : []),
    usageLine('total', session.usage.total),
    `  compacted ${compactions.count}×${
      compactions.lastTrigger ? ` (last ${compactions.lastTrigger}, ${tokensOrUnknown(compactions.lastPreTokens)} → ${tokensOrUnknown(compactions.lastPostTokens)})` : ''
    }`,
    `  since last memory extraction: ${session.sinceExtraction.toolCalls} tool calls, +${formatTokens(session.sinceExtraction.tokenGrowth)} tokens`,
    `  index     ${session.entries} entries, ${session.sidechainFiles} subagent transcripts, ${session.compactionFiles} compaction transcripts, ${session.badLines} bad lines skipped`,
  ];
  return lines;
}

/** What the hooks recorded: whether the SessionStart context reached the transcript, and compactions' losses. */
export function renderHookRecords(status: HandoffStatusResult, out: Output): string[] {
  const lines: string[] = [];
  const { injection } = status;
  if (injection !== null) {
    const verdict =
      injection.injected === null
        ? 'not known yet (no message since)'
        : injection.injected
          ? 'yes, found in the transcript'
          : out.bold('NO: the context is not in the transcript; the model did not get the handoff');
    lines.push(`  handoff   SessionStart (${injection.source}) at ${injection.expectedAt}: injected ${verdict}`);
  }
  const last = status.compactions[0];
  if (last !== undefined) {
    const lost =
      last.lost === null
        ? 'unknown'
        : `${last.lost.userMessages.length} user messages, ${last.lost.filePaths.length} paths, ${last.lost.identifiers.length} identifiers, ${last.lost.errors.length} errors`;
    lines.push(`  summary   ${last.trigger} compaction at ${last.recordedAt}: ${last.summaryChars} chars; lost ${lost}`);
  }
  return lines;
}
