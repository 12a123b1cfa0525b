/**
 * A session as one self-contained HTML file that opens offline: inline CSS, no script at all, no
 * URL, no font file. Tool calls fold with `<details>` (works without JS), the chart is inline SVG
 * (chart.ts). Every text from the transcript is escaped, and a Content-Security-Policy that allows
 * no script and no load makes even a missed escape inert.
 */
import { renderChartSvg } from './chart.js';
import {
  escapeHtml,
  formatClock,
  formatCount,
  formatPercent,
  formatTime,
  formatTokens,
  formatUsd,
  plural,
} from './format.js';
import type { ConversationItem, CostRow, CutText, ReportModel, ToolCall } from './model.js';
import { REPORT_CSS } from './style.js';

/** Nothing may load or run: not a script, not a font, not an image from anywhere. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const esc = escapeHtml;

function cutNote(cut: CutText, what: string): string {
  return cut.cutChars === 0
    ? ''
    : `<p class="cut">${formatCount(cut.cutChars)} more characters of this ${what} were left out of the report.</p>`;
}

function time(at: string | null, day: string | null): string {
  return at === null
    ? ''
    : `<time datetime="${esc(at)}" title="${esc(formatTime(at))}">${esc(formatClock(at, day))}</time>`;
}

function renderTool(call: ToolCall, day: string | null, at: string | null): string {
  const result = call.result;
  const failed = result?.failed === true;
  let badge = '';
  if (result === null) badge = '<span class="badge muted">no result</span>';
  else if (failed) badge = `<span class="badge bad">${result.exit === null ? 'error' : `exit ${result.exit}`}</span>`;
  const label = call.label === '' ? '' : ` <code>${esc(call.label)}</code>`;
  const output =
    result === null
      ? ''
      : `<h4>Output</h4><pre${failed ? ' class="bad"' : ''}>${esc(result.text === '' ? '(no output)' : result.text)}</pre>${cutNote(result, 'output')}`;
  return [
    `<details class="tool${failed ? ' failed' : ''}" data-tool-use-id="${esc(call.id)}">`,
    `<summary><span class="tool-name">${esc(call.name)}</span>${label} ${badge}${time(at, day)}</summary>`,
    `<div class="io"><h4>Input</h4><pre>${esc(call.input.text)}</pre>${cutNote(call.input, 'input')}${output}</div>`,
    '</details>',
  ].join('');
}

function renderItem(item: ConversationItem, day: string | null, compactionIndex: number): string {
  switch (item.kind) {
    case 'prompt':
    case 'assistant': {
      const who = item.kind === 'prompt' ? 'User' : 'Assistant';
      const cls = item.kind === 'prompt' ? 'user' : 'assistant';
      return `<article class="msg ${cls}"><header><span class="who">${who}</span>${time(item.at, day)}</header><div class="text">${esc(item.text)}</div>${cutNote(item, 'text')}</article>`;
    }
    case 'thinking':
      return `<details class="thinking"><summary>Thinking ${time(item.at, day)}</summary><pre>${esc(item.text)}</pre>${cutNote(item, 'thinking')}</details>`;
    case 'tool':
      return renderTool(item.call, day, item.at);
    case 'compaction': {
      const before = item.preTokens === null ? '' : ` · ${formatCount(item.preTokens)} tokens before`;
      return `<div class="compaction-marker" id="compaction-${compactionIndex}"><span>Compaction ${compactionIndex} · ${esc(item.trigger)}${before} · ${esc(formatTime(item.at))}</span></div>`;
    }
    case 'summary':
      return `<details class="summary"><summary>Summary the compaction left ${time(item.at, day)}</summary><pre>${esc(item.text)}</pre>${cutNote(item, 'summary')}</details>`;
  }
}

function renderConversation(model: ReportModel): string {
  const { conversation, session } = model;
  const day = session.firstActivity;
  const parts: string[] = [];
  let compactions = 0;
  for (const item of conversation.items) {
    if (item.kind === 'compaction') compactions++;
    parts.push(renderItem(item, day, compactions));
  }
  if (conversation.items.length === 0) parts.push('<p class="muted">No messages.</p>');
  if (conversation.omittedItems > 0) {
    parts.push(
      `<p class="cut">${esc(plural(conversation.omittedItems, 'more message'))} and tool calls were left out: the report stops at ${formatCount(conversation.limits.totalChars)} characters of conversation. <code>memctl export ${esc(session.sessionId.slice(0, 8))} --format jsonl</code> gives the whole transcript.</p>`,
    );
  }
  if (conversation.offBranchMessages > 0) {
    parts.push(
      `<p class="cut">${esc(plural(conversation.offBranchMessages, 'message'))} outside the conversation's segments (rewound branches, replaced by an edit or a rewind) are not shown. <code>memctl export ${esc(session.sessionId.slice(0, 8))} --format jsonl</code> gives the whole transcript.</p>`,
    );
  }
  return parts.join('\n');
}

function costCells(row: CostRow): string {
  return [
    formatCount(row.responses),
    formatCount(row.input),
    formatCount(row.output),
    formatCount(row.cacheCreation),
    formatCount(row.cacheRead),
    formatUsd(row.costUsd),
  ]
    .map((cell) => `<td class="num">${esc(cell)}</td>`)
    .join('');
}

function renderCosts(model: ReportModel): string {
  const { rows, total } = model.costs;
  if (rows.length === 0) return '<p class="muted">No API responses recorded.</p>';
  const head =
    '<tr><th>Model</th><th class="num">Responses</th><th class="num">Input</th><th class="num">Output</th><th class="num">Cache writes</th><th class="num">Cache reads</th><th class="num">Cost</th></tr>';
  const body = rows
    .map((row) => `<tr><td><code>${esc(row.model === '' ? '(unknown)' : row.model)}</code></td>${costCells(row)}</tr>`)
    .join('');
  const foot = `<tr><th>Total</th>${costCells(total)}</tr>`;
  return `<table class="costs"><thead>${head}</thead><tbody>${body}</tbody><tfoot>${foot}</tfoot></table><p class="note">Every API request of the session counted once, sub-agents and compaction included; cache hit rate ${esc(formatPercent(model.costs.cacheHitRate))} (cache reads over all prompt tokens).</p>`;
}

/** A path under the session's cwd as relative to it (the full path in its title), else whole. */
export function shownPath(path: string, cwd: string | null): string {
  if (cwd === null || cwd === '/' || !path.startsWith(`${cwd}/`)) return path;
  return path.slice(cwd.length + 1);
}

function renderFiles(model: ReportModel): string {
  if (model.files.length === 0) return '<p class="muted">No file was read or changed by a tool.</p>';
  const count = (value: number) => `<td class="num">${value === 0 ? '' : formatCount(value)}</td>`;
  const cwd = model.session.cwd;
  const rows = model.files
    .map(
      (file) =>
        `<tr><td><code title="${esc(file.path)}">${esc(shownPath(file.path, cwd))}</code></td>${count(file.reads)}${count(file.edits)}${count(file.writes)}</tr>`,
    )
    .join('');
  const under =
    cwd === null ? '' : `<p class="note">Paths under <code>${esc(cwd)}</code> are shown relative to it.</p>`;
  return `<table class="files"><thead><tr><th>File</th><th class="num">Read</th><th class="num">Edited</th><th class="num">Written</th></tr></thead><tbody>${rows}</tbody></table>${under}`;
}

function renderErrors(model: ReportModel): string {
  if (model.errors.length === 0) return '<p class="muted">No tool call failed.</p>';
  const day = model.session.firstActivity;
  const items = model.errors.map((error) => {
    const label = error.label === '' ? '' : ` <code>${esc(error.label)}</code>`;
    return `<li><div><span class="tool-name">${esc(error.tool)}</span>${label} ${time(error.at, day)}</div><pre class="bad">${esc(error.line)}</pre></li>`;
  });
  const more =
    model.omittedErrors > 0
      ? `<p class="cut">${esc(plural(model.omittedErrors, 'more failed call'))} not listed.</p>`
      : '';
  return `<ul class="errors">${items.join('')}</ul>${more}`;
}

function renderHeader(model: ReportModel): string {
  const { session } = model;
  const meta: [string, string][] = [
    ['Session', session.sessionId],
    ['Project', session.cwd ?? session.project],
  ];
  if (session.gitBranch !== null) meta.push(['Branch', session.gitBranch]);
  if (session.model !== null) meta.push(['Model', session.model]);
  meta.push(['Started', formatTime(session.firstActivity)], ['Last activity', formatTime(session.lastActivity)]);
  const rows = meta.map(([name, value]) => `<div><dt>${esc(name)}</dt><dd>${esc(value)}</dd></div>`).join('');
  const title = session.title ?? `Session ${session.sessionId.slice(0, 8)}`;
  return `<header class="top"><p class="eyebrow">memd session report</p><h1>${esc(title)}</h1><dl class="meta">${rows}</dl></header>`;
}

function renderCards(model: ReportModel): string {
  const { costs, chart, files, errors, omittedErrors } = model;
  const last = chart.points[chart.points.length - 1];
  const cards: [string, string][] = [
    ['Cost', formatUsd(costs.total.costUsd)],
    ['Responses', formatCount(costs.total.responses)],
    ['Cache hit rate', formatPercent(costs.cacheHitRate)],
    ['Context now', last === undefined ? '–' : formatTokens(last.tokens)],
    ['Compactions', formatCount(chart.compactions.length)],
    ['Files touched', formatCount(files.length)],
    ['Failed tool calls', formatCount(errors.length + omittedErrors)],
  ];
  return `<section class="cards">${cards.map(([name, value]) => `<div class="card"><span>${esc(name)}</span><strong>${esc(value)}</strong></div>`).join('')}</section>`;
}

function renderChart(model: ReportModel): string {
  const { chart } = model;
  if (chart.points.length === 0) return '<p class="muted">No assistant response recorded its usage.</p>';
  const threshold =
    chart.autoCompactAt === null
      ? 'auto-compaction is off'
      : chart.autoCompactMode === 'reactive'
        ? `window ${formatCount(chart.window)} tokens (compacts when the API refuses the request)`
        : `auto-compact threshold ${formatCount(chart.autoCompactAt)} tokens (window ${formatCount(chart.window)})`;
  return `<figure class="chart">${renderChartSvg(chart)}<figcaption><span class="key line"></span> context each response was sent with <span class="key threshold"></span> ${esc(threshold)} <span class="key compaction"></span> ${esc(plural(chart.compactions.length, 'compaction'))}</figcaption></figure>`;
}

export function renderHtml(model: ReportModel): string {
  const title = model.session.title ?? `Session ${model.session.sessionId.slice(0, 8)}`;
  const { limits } = model.conversation;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)} · memd report</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    renderHeader(model),
    renderCards(model),
    `<section id="context"><h2>Context over the session</h2>${renderChart(model)}</section>`,
    `<section id="costs"><h2>Cost by model</h2>${renderCosts(model)}</section>`,
    `<div class="pair"><section id="files"><h2>Files touched</h2>${renderFiles(model)}</section><section id="errors"><h2>Errors</h2>${renderErrors(model)}</section></div>`,
    `<section id="conversation"><h2>Conversation</h2>${renderConversation(model)}</section>`,
    `<footer>Made by memd from the session's transcript. Tool outputs are cut to ${formatCount(limits.toolOutputChars)} characters, texts to ${formatCount(limits.textChars)}${model.conversation.cutTexts > 0 ? ` (${formatCount(model.conversation.cutTexts)} were)` : ''}.</footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
