/**
 * The report's chart of context tokens per assistant response, as inline SVG (no script, no
 * font files): a line of the context each response was sent with, a horizontal line at the
 * auto-compact threshold and a vertical mark at each compaction. Responses are spread evenly in
 * the order they were made, not by their time: a session resumed the next day would otherwise
 * squash all of its work into the two ends of the chart. Times label the axis instead. Inline in
 * HTML, the `<svg>` needs no namespace attribute (and the report holds no URL at all).
 */
import { escapeHtml, formatClock, formatCount, formatTime, formatTokens } from './format.js';
import type { ContextChart } from './model.js';

export interface ChartBox {
  width: number;
  height: number;
  /** Room around the plot for the axis labels. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const CHART_BOX: ChartBox = { width: 880, height: 300, left: 56, right: 24, top: 28, bottom: 40 };
/** Headroom above the highest figure, so the top line and its label do not touch the frame. */
const HEADROOM = 1.08;
/** Dots (with their hover titles) only up to this many responses: beyond it they are a smear. */
const MAX_DOTS = 400;
const TARGET_TICKS = 5;
/**
 * Compaction marks closer than this (px) share one mark and one label: a label is at most
 * MAX_LABEL_CHARS at 11px (about 6.5px a character) plus its 4px offset, so labels of marks this
 * far apart never overlap, and a 116-compaction session still draws a few readable marks.
 */
export const MARK_GAP = 56;
/** A trigger name longer than this is cut in the label (its full text stays in the hover title). */
const MAX_LABEL_CHARS = 7;
/** About how wide a character of a mark's label is at 11px: where a label would pass the chart's edge. */
const LABEL_CHAR_PX = 6.5;
/** Between a mark and its label. */
const LABEL_OFFSET = 4;

export interface Point {
  x: number;
  y: number;
}

export interface ChartGeometry {
  box: ChartBox;
  yMax: number;
  /** One per response, in order. */
  line: (Point & { tokens: number; at: string | null })[];
  /** Where Claude Code compacts; `reactive`: at the window, once the API refuses the request. */
  threshold: { y: number; tokens: number; reactive: boolean } | null;
  compactions: {
    x: number;
    trigger: string;
    preTokens: number | null;
    at: string | null;
    kept?: { kept: number; total: number };
  }[];
  /** The compactions as drawn: marks closer than MARK_GAP merged, in order, at least MARK_GAP apart. */
  compactionGroups: CompactionGroup[];
  yTicks: { y: number; tokens: number }[];
  xLabels: { x: number; text: string; anchor: 'start' | 'end' }[];
}

export interface CompactionGroup {
  /** The first and last mark of the group (equal for a single mark). */
  x1: number;
  x2: number;
  marks: ChartGeometry['compactions'];
}

/** Greedy left to right: a mark joins the open group while it is within MARK_GAP of the group's first mark. */
export function groupCompactions(marks: ChartGeometry['compactions'], gap: number = MARK_GAP): CompactionGroup[] {
  const groups: CompactionGroup[] = [];
  for (const mark of [...marks].sort((a, b) => a.x - b.x)) {
    const open = groups[groups.length - 1];
    if (open !== undefined && mark.x - open.x1 < gap) {
      open.x2 = mark.x;
      open.marks.push(mark);
    } else groups.push({ x1: mark.x, x2: mark.x, marks: [mark] });
  }
  return groups;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k that splits `max` into at most TARGET_TICKS steps. */
function tickStep(max: number): number {
  const rough = max / TARGET_TICKS;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const factor of [1, 2, 2.5, 5, 10]) if (factor * power >= rough) return factor * power;
  return 10 * power;
}

export function chartGeometry(chart: ContextChart, box: ChartBox = CHART_BOX): ChartGeometry {
  const plotWidth = box.width - box.left - box.right;
  const plotHeight = box.height - box.top - box.bottom;
  // A loop, not Math.max(...points): spreading 10^5 arguments overflows the stack.
  let highest = Math.max(1, chart.autoCompactAt ?? 0);
  for (const point of chart.points) highest = Math.max(highest, point.tokens);
  for (const mark of chart.compactions) highest = Math.max(highest, mark.preTokens ?? 0);
  const step = tickStep(highest * HEADROOM);
  const yMax = Math.ceil((highest * HEADROOM) / step) * step;
  const yOf = (tokens: number) => box.top + plotHeight - (Math.max(0, tokens) / yMax) * plotHeight;
  // Each response has a slot of equal width, drawn at its centre; a compaction sits on the
  // edge between the slots of the responses before and after it.
  const slot = plotWidth / Math.max(1, chart.points.length);
  const line = chart.points.map((point, index) => ({
    x: box.left + (index + 0.5) * slot,
    y: yOf(point.tokens),
    tokens: point.tokens,
    at: point.at,
  }));
  const yTicks: { y: number; tokens: number }[] = [];
  for (let tokens = 0; tokens <= yMax; tokens += step) yTicks.push({ y: yOf(tokens), tokens });
  const first = chart.points[0]?.at ?? null;
  const last = chart.points[chart.points.length - 1]?.at ?? null;
  const xLabels: ChartGeometry['xLabels'] = [];
  if (first !== null) xLabels.push({ x: box.left, text: formatTime(first), anchor: 'start' });
  if (last !== null && chart.points.length > 1)
    xLabels.push({ x: box.left + plotWidth, text: formatClock(last, first), anchor: 'end' });
  const compactions = chart.compactions.map((mark) => ({
    x: box.left + Math.min(mark.after, chart.points.length) * slot,
    trigger: mark.trigger,
    preTokens: mark.preTokens,
    at: mark.at,
    ...(mark.kept === undefined ? {} : { kept: mark.kept }),
  }));
  return {
    box,
    yMax,
    line,
    threshold:
      chart.autoCompactAt === null
        ? null
        : { y: yOf(chart.autoCompactAt), tokens: chart.autoCompactAt, reactive: chart.autoCompactMode === 'reactive' },
    compactions,
    compactionGroups: groupCompactions(compactions),
    yTicks,
    xLabels,
  };
}

const fixed = (value: number) => value.toFixed(1);

function compactionTitle(mark: ChartGeometry['compactions'][number]): string {
  const before = mark.preTokens === null ? '' : `, ${formatCount(mark.preTokens)} tokens before`;
  const kept = mark.kept === undefined ? '' : `; its summary kept ${mark.kept.kept}/${mark.kept.total} facts`;
  return `${mark.trigger} compaction at ${formatTime(mark.at)}${before}${kept}`;
}

function groupTitle(group: CompactionGroup): string {
  const first = group.marks[0];
  if (first === undefined) return '';
  if (group.marks.length === 1) return compactionTitle(first);
  const last = group.marks[group.marks.length - 1] ?? first;
  const byTrigger = new Map<string, number>();
  for (const mark of group.marks) byTrigger.set(mark.trigger, (byTrigger.get(mark.trigger) ?? 0) + 1);
  const kinds = [...byTrigger].map(([trigger, count]) => `${formatCount(count)} ${trigger}`).join(', ');
  return `${formatCount(group.marks.length)} compactions (${kinds}) from ${formatTime(first.at)} to ${formatTime(last.at)}`;
}

function groupLabel(group: CompactionGroup): string {
  if (group.marks.length > 1) return `${formatCount(group.marks.length)}×`;
  const trigger = group.marks[0]?.trigger ?? '';
  const kept = group.marks[0]?.kept;
  const label = trigger.length > MAX_LABEL_CHARS ? `${trigger.slice(0, MAX_LABEL_CHARS - 1)}…` : trigger;
  // Issue 32: the survival score beside the trigger, "auto 41/43".
  return kept === undefined ? label : `${label} ${kept.kept}/${kept.total}`;
}

/**
 * The mark's label, right of it; left of it (anchored at its end) when it would pass the chart's
 * right edge, where the SVG cuts it: a compaction near the session's end, labelled with its
 * survival score ("auto 41/43"), did (seen in headless Chromium, issue 32).
 */
function compactionLabel(group: CompactionGroup, chartWidth: number, top: number): string {
  const text = groupLabel(group);
  const fits = group.x1 + LABEL_OFFSET + text.length * LABEL_CHAR_PX <= chartWidth;
  const placed = fits
    ? `x="${fixed(group.x1 + LABEL_OFFSET)}"`
    : `x="${fixed(group.x1 - LABEL_OFFSET)}" text-anchor="end"`;
  return `<text class="compaction-label" ${placed} y="${top + 10}">${escapeHtml(text)}</text>`;
}

/** The chart as an `<svg>` element; every text in it is escaped. */
export function renderChartSvg(chart: ContextChart, box: ChartBox = CHART_BOX): string {
  const geometry = chartGeometry(chart, box);
  const { top, left, right, bottom, width, height } = geometry.box;
  const plotBottom = height - bottom;
  const plotRight = width - right;
  const parts: string[] = [
    `<svg id="context-chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="context-chart-title">`,
    `<title id="context-chart-title">Context tokens per assistant response${geometry.threshold === null ? '' : `, ${geometry.threshold.reactive ? 'compacts when the API refuses, at' : 'auto-compact at'} ${formatCount(geometry.threshold.tokens)}`}</title>`,
  ];
  for (const tick of geometry.yTicks) {
    parts.push(`<line class="grid" x1="${left}" x2="${plotRight}" y1="${fixed(tick.y)}" y2="${fixed(tick.y)}"/>`);
    parts.push(
      `<text class="axis" x="${left - 6}" y="${fixed(tick.y + 4)}" text-anchor="end">${formatTokens(tick.tokens)}</text>`,
    );
  }
  for (const label of geometry.xLabels) {
    parts.push(
      `<text class="axis" x="${fixed(label.x)}" y="${plotBottom + 18}" text-anchor="${label.anchor}">${escapeHtml(label.text)}</text>`,
    );
  }
  parts.push(
    `<text class="axis" x="${fixed(left + (plotRight - left) / 2)}" y="${plotBottom + 32}" text-anchor="middle">assistant responses, in order</text>`,
  );
  if (geometry.line.length > 0) {
    const points = geometry.line.map((point) => `${fixed(point.x)},${fixed(point.y)}`).join(' ');
    const firstX = fixed(geometry.line[0]?.x ?? left);
    const lastX = fixed(geometry.line[geometry.line.length - 1]?.x ?? left);
    parts.push(`<polygon class="context-area" points="${firstX},${plotBottom} ${points} ${lastX},${plotBottom}"/>`);
    parts.push(`<polyline class="context-line" points="${points}"/>`);
    if (geometry.line.length <= MAX_DOTS) {
      for (const point of geometry.line) {
        parts.push(
          `<circle class="context-dot" cx="${fixed(point.x)}" cy="${fixed(point.y)}" r="2.5"><title>${formatCount(point.tokens)} tokens · ${escapeHtml(formatTime(point.at))}</title></circle>`,
        );
      }
    }
  }
  if (geometry.threshold !== null) {
    const { tokens, reactive } = geometry.threshold;
    const y = fixed(geometry.threshold.y);
    // Reactive mode (Claude Code 2.1.197 without an auto-compact window): the line is the window itself.
    const title = reactive
      ? `the window: ${formatCount(tokens)} tokens; Claude Code compacts when the API refuses the request`
      : `auto-compact threshold: ${formatCount(tokens)} tokens`;
    parts.push(
      `<line class="threshold" data-tokens="${tokens}" x1="${left}" x2="${plotRight}" y1="${y}" y2="${y}"><title>${title}</title></line>`,
    );
    parts.push(
      `<text class="threshold-label" x="${plotRight - 4}" y="${fixed(geometry.threshold.y - 5)}" text-anchor="end">${reactive ? 'window' : 'auto-compact'} ${formatTokens(tokens)}</text>`,
    );
  }
  for (const group of geometry.compactionGroups) {
    const title = `<title>${escapeHtml(groupTitle(group))}</title>`;
    const x = fixed(group.x1);
    if (group.marks.length === 1)
      parts.push(`<line class="compaction" x1="${x}" x2="${x}" y1="${top}" y2="${plotBottom}">${title}</line>`);
    else {
      // A band from the first to the last mark of the group (at least 2px, so it shows), one title.
      const bandWidth = fixed(Math.max(2, group.x2 - group.x1));
      parts.push(
        `<rect class="compaction-band" data-count="${group.marks.length}" x="${x}" y="${top}" width="${bandWidth}" height="${plotBottom - top}">${title}</rect>`,
      );
    }
    parts.push(compactionLabel(group, width, top));
  }
  parts.push(`<line class="axis-line" x1="${left}" x2="${plotRight}" y1="${plotBottom}" y2="${plotBottom}"/>`);
  parts.push('</svg>');
  return parts.join('\n');
}
