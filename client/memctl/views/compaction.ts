/** A compaction's result as `memctl compact` prints it (the VS Code extension's preview shows the same). */
import { type CompactionResult, SURVIVAL_KINDS, type Survival } from '../../../shared/protocol/compaction.js';
import type { Output } from '../output.js';

/** Lost items shown per kind; --json has them all. */
const SHOWN_LOST = 5;

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
    for (const item of items.slice(0, SHOWN_LOST))
      lines.push(`      - ${item.length > 100 ? `${item.slice(0, 99)}…` : item}`.replace(/\n/g, ' '));
    if (items.length > SHOWN_LOST) lines.push(`      … ${items.length - SHOWN_LOST} more (--json lists them all)`);
  }
  lines.push(...renderSurvival(result.survival));
  return lines;
}

/** `survival  41/43 facts kept` and the lost facts named, a few per kind (--json has them all). */
export function renderSurvival(survival: Survival | undefined): string[] {
  // A daemon from before issue 32 answers no survival.
  if (survival === undefined) return [];
  const total = survival.kept + survival.lost;
  const lines = [
    `  survival ${survival.kept}/${total} facts kept${survival.lost === 0 ? '' : `, ${survival.lost} lost:`}`,
  ];
  const lost = survival.items.filter((item) => !item.kept);
  for (const kind of SURVIVAL_KINDS) {
    const items = lost.filter((item) => item.kind === kind);
    for (const item of items.slice(0, SHOWN_LOST))
      lines.push(
        `    - ${kind}: ${item.text.length > 100 ? `${item.text.slice(0, 99)}…` : item.text}`.replace(/\n/g, ' '),
      );
    if (items.length > SHOWN_LOST)
      lines.push(`    … ${items.length - SHOWN_LOST} more ${kind} facts (--json lists them)`);
  }
  return lines;
}
