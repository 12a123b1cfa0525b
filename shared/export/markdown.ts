/**
 * A session as markdown: a header with its figures, then the conversation. Prompts and the
 * assistant's text stay markdown, with no HTML of their own (markdown-escape.ts: `<` outside code
 * is `&lt;`, a fence left open is closed); tool calls are folded in `<details>` with their input
 * and output in code fences longer than any backtick run inside, so that nothing a tool printed
 * can break the fold or the page. The only raw HTML is memd's own, with the transcript's text escaped.
 */

import { escapeHtml, formatClock, formatCount, formatPercent, formatTime, formatUsd, plural } from './format.js';
import { escapeProseLine, safeProse } from './markdown-escape.js';
import type { ConversationItem, CutText, ReportModel, ToolCall } from './model.js';

/** The shortest fence that no run of backticks in `text` can close (CommonMark: at least 3). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function fenced(text: string, language = ''): string {
  const fence = fenceFor(text);
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** Inline code that holds any text: a backtick run longer than any inside, spaced when needed. */
export function inlineCode(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text.replace(/\n/g, ' ')}${pad}${ticks}`;
}

function cutNote(cut: CutText, what: string): string {
  return cut.cutChars === 0
    ? ''
    : `\n\n_${formatCount(cut.cutChars)} more characters of this ${what} were left out of the export._`;
}

/** Each line of a prompt quoted, so that prompts stand apart from the answers. */
function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

export function toolSummary(call: ToolCall): string {
  return call.label === '' ? call.name : `${call.name}: ${call.label}`;
}

function renderTool(call: ToolCall): string {
  const status =
    call.result === null
      ? ' (no result)'
      : call.result.failed
        ? ` (failed${call.result.exit === null ? '' : `, exit ${call.result.exit}`})`
        : '';
  // One line: a blank line would end the HTML block, and the rest of the summary would be markdown.
  const parts = [
    `<details><summary>${escapeHtml(toolSummary(call).replace(/\s+/g, ' '))}${status}</summary>`,
    '',
    fenced(call.input.text, 'json') + cutNote(call.input, 'input'),
  ];
  if (call.result !== null)
    parts.push(
      '',
      fenced(call.result.text === '' ? '(no output)' : call.result.text, 'text') + cutNote(call.result, 'output'),
    );
  parts.push('', '</details>');
  return parts.join('\n');
}

function heading(who: string, at: string | null, day: string | null): string {
  return `**${who}** · ${formatClock(at, day)}`;
}

function renderItem(item: ConversationItem, day: string | null): string {
  switch (item.kind) {
    case 'prompt':
      return `${heading('User', item.at, day)}\n\n${quoted(safeProse(item.text))}${cutNote(item, 'prompt')}`;
    case 'assistant':
      return `${heading('Assistant', item.at, day)}\n\n${safeProse(item.text)}${cutNote(item, 'text')}`;
    case 'thinking':
      return `<details><summary>Thinking</summary>\n\n${fenced(item.text, 'text')}${cutNote(item, 'thinking')}\n\n</details>`;
    case 'tool':
      return renderTool(item.call);
    case 'compaction': {
      const before = item.preTokens === null ? '' : `, ${formatCount(item.preTokens)} tokens before`;
      return `---\n\n**Compaction** (${escapeProseLine(item.trigger.replace(/\s+/g, ' '))}${before}) · ${formatTime(item.at)}`;
    }
    case 'summary':
      return `<details><summary>Summary the compaction left</summary>\n\n${fenced(item.text, 'markdown')}${cutNote(item, 'summary')}\n\n</details>`;
  }
}

function headerRows(model: ReportModel): string[] {
  const { session, costs, chart } = model;
  const rows: [string, string][] = [
    ['Session', inlineCode(session.sessionId)],
    [
      'Project',
      session.cwd === null
        ? inlineCode(session.project)
        : `${inlineCode(session.cwd)} (${inlineCode(session.project)})`,
    ],
  ];
  if (session.gitBranch !== null) rows.push(['Branch', inlineCode(session.gitBranch)]);
  if (session.model !== null) rows.push(['Model', inlineCode(session.model)]);
  rows.push(['Activity', `${formatTime(session.firstActivity)} to ${formatTime(session.lastActivity)}`]);
  rows.push([
    'Cost',
    `${formatUsd(costs.total.costUsd)} over ${plural(costs.total.responses, 'response')}, cache hit rate ${formatPercent(costs.cacheHitRate)}`,
  ]);
  rows.push(['Compactions', formatCount(chart.compactions.length)]);
  return ['| | |', '|---|---|', ...rows.map(([name, value]) => `| ${name} | ${value.replace(/\|/g, '\\|')} |`)];
}

export function renderMarkdown(model: ReportModel): string {
  const { session, conversation } = model;
  const title = session.title ?? `Session ${session.sessionId.slice(0, 8)}`;
  const blocks = [`# ${escapeProseLine(title.replace(/\s+/g, ' '))}`, headerRows(model).join('\n'), '## Conversation'];
  const day = session.firstActivity;
  for (const item of conversation.items) blocks.push(renderItem(item, day));
  if (conversation.items.length === 0) blocks.push('_No messages._');
  if (conversation.omittedItems > 0) {
    blocks.push(
      `_${plural(conversation.omittedItems, 'more message')} and tool calls were left out: the export stops at ${formatCount(conversation.limits.totalChars)} characters of conversation. \`memctl export ${session.sessionId.slice(0, 8)} --format jsonl\` gives the whole transcript._`,
    );
  }
  if (conversation.offBranchMessages > 0) {
    blocks.push(
      `_${plural(conversation.offBranchMessages, 'message')} outside the conversation's segments (rewound branches, replaced by an edit or a rewind) are not shown. \`memctl export ${session.sessionId.slice(0, 8)} --format jsonl\` gives the whole transcript._`,
    );
  }
  return `${blocks.join('\n\n')}\n`;
}
