/** `memctl status SESSION`: one session in full. */
import type { Survival } from '../../../shared/protocol/compaction.js';
import type { HandoffStatusResult } from '../../../shared/protocol/handoff.js';
import type { SessionSummary, ThresholdResult, UsageTotals } from '../../../shared/protocol/sessions.js';
import { compactsWhenRefused } from '../../../shared/statusline/format.js';
import {
  ERROR_THRESHOLD_BUFFER_TOKENS,
  WARNING_THRESHOLD_BUFFER_TOKENS,
} from '../../../shared/transcript/thresholds.js';
import type { Output } from '../output.js';
import { effortSuffix, reportedLines } from './reported.js';
import { contextBar, formatAge, formatTokens, titleOf } from './sessions.js';

function usageLine(label: string, usage: UsageTotals): string {
  const cost = usage.costUsd === null ? 'cost unknown (unpriced model)' : `$${usage.costUsd.toFixed(4)}`;
  return `  ${label.padEnd(10)}${usage.assistantMessages} responses · in ${usage.input} · out ${usage.output} · cache write ${usage.cacheCreation} (5m ${usage.cache5m}, 1h ${usage.cache1h}) · cache read ${usage.cacheRead} · ${cost}`;
}

/** `?` until known: the post size waits for the first response after the boundary. */
function tokensOrUnknown(tokens: number | null): string {
  return tokens === null ? '?' : formatTokens(tokens);
}

/** When the memory was last extracted, what happened since, and what its extractions cost. */
function memoryLine(session: SessionSummary, now: number): string {
  const { extractedAt, spentUsd, spentTokens } = session.sessionMemory;
  const when = extractedAt === null ? 'never extracted' : `extracted ${formatAge(extractedAt, now)}`;
  // The cache reads say the growing conversation was not paid in full again (issue 32).
  const cached = spentTokens.cacheRead > 0 ? ` (${formatTokens(spentTokens.cacheRead)} tokens read from cache)` : '';
  const spent = spentUsd > 0 ? `, $${spentUsd.toFixed(4)} spent on it${cached}` : '';
  return `  memory    ${when}; since then ${session.sinceExtraction.toolCalls} tool calls, +${formatTokens(session.sinceExtraction.tokenGrowth)} tokens${spent}`;
}

/**
 * What memd's compactions and handoffs of the session cost with the anthropic summarizers (issue
 * 32; the extractions' spend is on the memory line); null when they cost nothing or memd is older.
 */
function modelSpendLine(session: SessionSummary): string | null {
  const others = (session.sessionMemory.spentByKind ?? []).filter((spent) => spent.kind !== 'extraction');
  if (others.length === 0) return null;
  const parts = others.map((spent) => {
    const calls = `${spent.runs} call${spent.runs === 1 ? '' : 's'}`;
    const cached = spent.tokens.cacheRead > 0 ? `, ${formatTokens(spent.tokens.cacheRead)} tokens read from cache` : '';
    return `${spent.kind} $${spent.usd.toFixed(4)} (${calls}${cached})`;
  });
  return `  api spend ${parts.join(', ')}`;
}

/** Whose summary.md it is: memd's, or Claude Code's own session memory (which memd reads and leaves be). */
function writerLine(session: SessionSummary): string | null {
  // Null (nobody yet, or a memd before issue 31, which the answer's schema reads as null): no line.
  const { writer } = session.sessionMemory;
  if (writer === 'claude-code') return "  summary   Claude Code's own session memory (memd reads it and writes none)";
  if (writer === 'memd') return "  summary   memd's (Claude Code's own session memory has not written one)";
  return null;
}

const nonNull = (line: string | null): string[] => (line === null ? [] : [line]);

/** Who holds the session-memory lock (a Claude Code turn, through the turn hooks), and until when. */
function lockLine(session: SessionSummary, now: number): string {
  const { lock } = session.sessionMemory;
  if (lock === null) return '  lock      free (extraction may write)';
  const seconds = Math.max(0, Math.round((lock.expiresAt - now) / 1000));
  return `  lock      held by ${lock.owner}, lapses in ${seconds}s unless renewed (extraction waits)`;
}

/** Where the session stops: its blocking limit, or in reactive mode the window, where the API refuses and Claude Code compacts. */
function limitText(threshold: ThresholdResult): string {
  return compactsWhenRefused(threshold)
    ? 'compacts when the API refuses the request (at the window)'
    : `blocking ${formatTokens(threshold.blockingAt)}`;
}

/**
 * Claude Code's warning and error buffers are equal (20,000 tokens each), so the two thresholds are
 * one figure: say it once, and why, rather than `warning 147K · error 147K`.
 */
function warningText(threshold: ThresholdResult): string {
  if (threshold.warningAt !== threshold.errorAt)
    return `warning ${formatTokens(threshold.warningAt)} · error ${formatTokens(threshold.errorAt)}`;
  const same =
    WARNING_THRESHOLD_BUFFER_TOKENS === ERROR_THRESHOLD_BUFFER_TOKENS
      ? ` (Claude Code's warning and error buffers are both ${WARNING_THRESHOLD_BUFFER_TOKENS.toLocaleString('en-US')})`
      : '';
  return `warning/error at ${formatTokens(threshold.warningAt)}${same}`;
}

/** `forecast`: the lines of usage.status (views/forecasts.ts), shown under the plan and cache lines they build on. */
export function renderSessionDetail(
  session: SessionSummary,
  out: Output,
  now = Date.now(),
  forecast: readonly string[] = [],
): string[] {
  const { threshold, compactions } = session;
  const lines = [
    `${out.bold(titleOf(session))}  ${out.dim(session.sessionId)}${session.gone ? out.dim(' (transcript deleted)') : ''}`,
    `  project   ${session.cwd ?? session.project}${session.gitBranch ? ` (${session.gitBranch})` : ''}`,
    `  model     ${session.model ?? '-'}${effortSuffix(session.reported, session.sessionId, out, now)}`,
    `  activity  ${session.firstActivity ?? '-'} → ${session.lastActivity ?? '-'} (${formatAge(session.lastActivity, now)})`,
    `  context   ${contextBar(session.contextTokens, threshold, out)}`,
    `  state     ${threshold.state}, ${formatTokens(threshold.tokensLeft)} tokens left · ${warningText(threshold)} · ${limitText(threshold)} · window ${formatTokens(threshold.window)}`,
    usageLine('main', session.usage.main),
    usageLine('subagents', session.usage.sidechain),
    ...(session.compactionFiles > 0 || session.usage.compaction.assistantMessages > 0
      ? [usageLine('compaction', session.usage.compaction)]
      : []),
    usageLine('total', session.usage.total),
    `  compacted ${compactions.count}×${
      compactions.lastTrigger
        ? ` (last ${compactions.lastTrigger}, ${tokensOrUnknown(compactions.lastPreTokens)} → ${tokensOrUnknown(compactions.lastPostTokens)})`
        : ''
    }`,
    ...reportedLines(session.reported, session.sessionId, out, now),
    ...forecast,
    memoryLine(session, now),
    ...nonNull(modelSpendLine(session)),
    ...nonNull(writerLine(session)),
    lockLine(session, now),
    `  index     ${session.entries} entries, ${session.sidechainFiles} subagent transcripts, ${session.compactionFiles} compaction transcripts, ${session.badLines} bad lines skipped`,
  ];
  return lines;
}

/** Lost facts named under the survival line; memctl compact --json and handoff.status have them all. */
const SHOWN_LOST_FACTS = 5;

/** `survival 41/43 facts kept by Claude Code's summary`, and the lost ones named (docs/survival.md). */
function survivalLines(survival: Survival | null): string[] {
  if (survival === null) return [];
  const lines = [`  survival  ${survival.kept}/${survival.kept + survival.lost} facts kept by the summary`];
  const lost = survival.items.filter((item) => !item.kept);
  for (const item of lost.slice(0, SHOWN_LOST_FACTS))
    lines.push(`    lost ${item.kind}: ${item.text.replace(/\s+/g, ' ').slice(0, 100)}`);
  if (lost.length > SHOWN_LOST_FACTS) lines.push(`    … ${survival.lost - SHOWN_LOST_FACTS} more lost`);
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
    lines.push(
      `  summary   ${last.trigger} compaction at ${last.recordedAt}: ${last.summaryChars} chars; lost ${lost}`,
    );
    lines.push(...survivalLines(last.survival ?? null));
  }
  return [...lines, ...renderLiveHookRecords(status, out)];
}

/** What StopFailure and InstructionsLoaded told memd (issue 31): why a turn failed, which instructions a compaction dropped. */
function renderLiveHookRecords(status: HandoffStatusResult, out: Output): string[] {
  const lines: string[] = [];
  const failure = status.turnFailures?.[0];
  if (failure !== undefined) {
    const count = status.turnFailures?.length ?? 1;
    const details = failure.details === null ? '' : `: ${failure.details.replace(/\s+/g, ' ').slice(0, 160)}`;
    lines.push(
      `  failed    turn ended by an API error at ${failure.at} (${failure.error}${details})${count > 1 ? `; ${count} such turns` : ''}`,
    );
  }
  const instructions = status.instructions;
  if (instructions !== undefined && instructions.loaded.length > 0) {
    const back =
      instructions.compactedAt === null
        ? ''
        : instructions.notBack.length === 0
          ? `; all back after the compaction at ${instructions.compactedAt}`
          : `; ${out.bold(`not back after the compaction at ${instructions.compactedAt}: ${instructions.notBack.join(', ')}`)}`;
    lines.push(`  rules     ${instructions.loaded.length} instruction files in context${back}`);
  }
  return lines;
}
