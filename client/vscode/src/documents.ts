/**
 * The read-only documents the commands open: a session's details, its session memory, a
 * compaction preview (in `memctl compact`'s words), and the message after a handoff. Each has a
 * path under the extension's `memd:` scheme, so that opening it again shows the new content in
 * the same tab. Pure.
 */

import type { CompactionResult } from '../../../shared/protocol/compaction.js';
import type { HandoffResult } from '../../../shared/protocol/handoff.js';
import type { MemorySummaryResult } from '../../../shared/protocol/memory.js';
import type { SessionSummary, ThresholdResult, UsageTotals } from '../../../shared/protocol/sessions.js';
import { compactAge, compactsWhenRefused, compactTokens } from '../../../shared/statusline/format.js';
import { type Output, plainOutput } from '../../memctl/output.js';
import { renderCompaction } from '../../memctl/views/compaction.js';
import { contextLine, sessionName } from './status.js';

/** The scheme of the documents the extension serves: VS Code shows them read-only. */
export const DOCUMENT_SCHEME = 'memd';

export interface MemdDocument {
  /** The path after `memd:`; its extension picks the language (`.md` is Markdown). */
  path: string;
  content: string;
}

/** A status line in a document: wide enough that no segment is dropped. */
const DOCUMENT_COLUMNS = 200;

/** renderCompaction only paints (bold); nothing here prints. */
const PLAIN: Output = plainOutput();

/** A value in a Markdown table cell: one line, no column breaks. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

const count = (value: number) => value.toLocaleString('en-US');
const usd = (value: number | null) => (value === null ? 'unknown (a model without a price)' : `$${value.toFixed(2)}`);

function ago(iso: string | null, now: number): string {
  if (iso === null) return 'none';
  const at = Date.parse(iso);
  return Number.isFinite(at) ? `${iso} (${compactAge(now - at)} ago)` : iso;
}

function table(rows: [string, string][]): string[] {
  return ['| | |', '|---|---|', ...rows.map(([name, value]) => `| ${name} | ${cell(value)} |`)];
}

function usageRow(name: string, usage: UsageTotals): string {
  return `| ${name} | ${count(usage.input)} | ${count(usage.output)} | ${count(usage.cacheCreation)} | ${count(usage.cacheRead)} | ${count(usage.assistantMessages)} | ${usd(usage.costUsd)} |`;
}

/**
 * Where the session compacts and stops. In reactive mode (Claude Code 2.1.197 without an
 * auto-compact window) nothing happens ahead of the window: the API refuses the request there and
 * Claude Code compacts then, so there is no threshold and no blocking limit to show.
 */
function limitRows(threshold: ThresholdResult): [string, string][] {
  const meter: [string, string] = ['warning / error at', `${count(threshold.warningAt)} / ${count(threshold.errorAt)}`];
  if (compactsWhenRefused(threshold)) {
    return [
      ['tokens left', `${count(threshold.tokensLeft)} until the window`],
      ['compacts', 'when the API refuses the request (at the window)'],
      meter,
    ];
  }
  return [
    [
      'tokens left',
      `${count(threshold.tokensLeft)} until ${threshold.autoCompactEnabled ? 'auto-compact' : 'blocking (auto-compact is off)'}`,
    ],
    [
      'auto-compact at',
      threshold.autoCompactEnabled ? count(threshold.autoCompactAt) : `${count(threshold.autoCompactAt)} (off)`,
    ],
    meter,
    ['blocking at', count(threshold.blockingAt)],
  ];
}

function transcriptState(session: SessionSummary): string {
  if (session.gone) return 'deleted (the index keeps its figures)';
  if (!session.hasMainTranscript) return 'only sub-agent files were found';
  return 'present';
}

/** `memd.openSession`: everything `sessions.get` says of a session, as Markdown. */
export function sessionDocument(session: SessionSummary, now: number): MemdDocument {
  const { threshold, compactions, sessionMemory, usage } = session;
  const lock = sessionMemory.lock;
  const lines = [
    `# ${cell(sessionName(session))}`,
    '',
    `\`${contextLine(session, DOCUMENT_COLUMNS, now)}\``,
    '',
    ...table([
      ['session', session.sessionId],
      ['project', session.project],
      ['cwd', session.cwd ?? 'unknown'],
      ['git branch', session.gitBranch ?? 'unknown'],
      ['model', session.model ?? 'unknown'],
      ['first activity', ago(session.firstActivity, now)],
      ['last activity', ago(session.lastActivity, now)],
      ['transcript', transcriptState(session)],
    ]),
    '',
    '## Context',
    '',
    ...table([
      ['context', `${count(session.contextTokens)} tokens (${threshold.state})`],
      ...limitRows(threshold),
      ['window', `${compactTokens(threshold.window)} (effective ${compactTokens(threshold.effectiveWindow)})`],
    ]),
    '',
    '## Usage',
    '',
    '| | input | output | cache writes | cache reads | responses | cost |',
    '|---|---|---|---|---|---|---|',
    usageRow('main agent', usage.main),
    usageRow('sub-agents', usage.sidechain),
    usageRow('compaction', usage.compaction),
    usageRow('total', usage.total),
    '',
    '## Compactions',
    '',
    ...table([
      ['count', count(compactions.count)],
      ['last trigger', compactions.lastTrigger ?? 'none'],
      [
        'last',
        compactions.lastPreTokens === null
          ? 'none'
          : `${count(compactions.lastPreTokens)} → ${compactions.lastPostTokens === null ? '?' : count(compactions.lastPostTokens)} tokens`,
      ],
      // Issue 32 (docs/survival.md): which of the session's facts Claude Code's last summary kept.
      ...(session.lastCompaction === undefined
        ? []
        : [
            [
              'facts kept',
              `${count(session.lastCompaction.kept)} of ${count(session.lastCompaction.kept + session.lastCompaction.lost)} by the last summary`,
            ] as [string, string],
          ]),
    ]),
    '',
    '## Session memory',
    '',
    ...table([
      ['last extraction', ago(sessionMemory.extractedAt, now)],
      [
        'since then',
        `${count(session.sinceExtraction.toolCalls)} tool calls, ${count(session.sinceExtraction.tokenGrowth)} tokens`,
      ],
      ['lock', lock === null ? 'free' : `held by ${lock.owner} until ${new Date(lock.expiresAt).toISOString()}`],
      ['extractions spent', usd(sessionMemory.spentUsd)],
      // Issue 32: memd's compaction summaries and handoffs by a model, on the same key.
      ...(sessionMemory.spentByKind ?? [])
        .filter((spent) => spent.kind !== 'extraction')
        .map((spent): [string, string] => [`${spent.kind}s spent`, usd(spent.usd)]),
    ]),
    '',
    '## Files',
    '',
    ...table([
      ['entries', count(session.entries)],
      ['sub-agent transcripts', count(session.sidechainFiles)],
      ['compaction transcripts', count(session.compactionFiles)],
      ['bad lines', count(session.badLines)],
    ]),
    '',
  ];
  return { path: `/session/${session.sessionId}.md`, content: lines.join('\n') };
}

/** `memd.showSummary`: the session's summary.md as memd keeps it, or why there is none yet. */
export function summaryDocument(summary: MemorySummaryResult, now: number): MemdDocument {
  const path = `/summary/${summary.sessionId}.md`;
  if (summary.text === null) {
    const content = [
      `# No session memory yet for ${summary.sessionId}`,
      '',
      'memd writes a session’s memory in the background once the session is long enough;',
      `\`memctl memory extract ${summary.sessionId.slice(0, 8)}\` makes one now. It will be at ${summary.path}.`,
      '',
    ].join('\n');
    return { path, content };
  }
  const by = summary.summarizer === null ? '' : ` by the ${summary.summarizer} summarizer`;
  const header = `<!-- memd: the session memory of ${summary.sessionId}, extracted ${ago(summary.extractedAt, now)}${by}; ${summary.path} -->`;
  return { path, content: `${header}\n\n${summary.text}${summary.text.endsWith('\n') ? '' : '\n'}` };
}

/** `memd.previewCompaction`: what `memctl compact SESSION` prints for the same result. */
export function compactionDocument(result: CompactionResult): MemdDocument {
  return { path: `/compaction/${result.sessionId}.txt`, content: `${renderCompaction(result, PLAIN).join('\n')}\n` };
}

/** `memd.writeHandoff`: one line for the notification; the file itself is opened beside it. */
export function handoffMessage(result: HandoffResult): string {
  const kind = result.partial
    ? 'A partial handoff (HANDOFF_AUTO_PARTIAL: the transcript’s tail)'
    : `A handoff by the ${result.summarizer ?? 'offline'} summarizer`;
  const { facts } = result;
  const git = facts.git === null ? '' : `, git: ${facts.git.porcelain.length} changed`;
  const ignored = result.gitignoreUpdated ? ' (added to .gitignore)' : '';
  return `${kind} was written to ${result.path}${ignored}: ${facts.filesTouched.length} files touched${git}, ${facts.commands.length} commands run, ${facts.failing.length} failing.`;
}
