/**
 * `memctl usage`'s picture of a `usage.report` answer: a table of tokens and cost by day, project,
 * model or device, and a sparkline of the cost per day. Loaded by the quick path (quick/usage.ts)
 * as well as by the command, so it imports nothing heavy: no client library, and no Intl (its first
 * use costs a fresh process ~20 ms).
 */
import type { UsageFigures, UsageGrouping, UsageReportResult, UsageRow } from '../../../shared/protocol/usage.js';

/** The sparkline's marks, lowest to highest (a day without usage is SPARK_NONE). */
const SPARKS = '▁▂▃▄▅▆▇█';
const SPARK_NONE = '·';
/** Columns when stdout is not a terminal (a pipe, a file). */
const DEFAULT_COLUMNS = 80;
const SPARK_LABEL = 'cost per day  ';

export interface Painter {
  bold(text: string): string;
  dim(text: string): string;
}

const thousands = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const dollars = (value: number) => `$${value.toFixed(2)}`;

/** `claude-haiku-4-5-20251001` → `haiku-4-5`: the table's models column, as ccusage shortens them. */
export function shortModel(model: string): string {
  return model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
}

/** One mark per day (or per run of days when they do not fit `width`), scaled to the costliest. */
export function sparkline(values: readonly number[], width: number): { line: string; daysPerMark: number } {
  const daysPerMark = Math.max(1, Math.ceil(values.length / Math.max(1, width)));
  const marks: number[] = [];
  for (let at = 0; at < values.length; at += daysPerMark)
    marks.push(values.slice(at, at + daysPerMark).reduce((sum, value) => sum + value, 0));
  const max = Math.max(0, ...marks);
  const line = marks
    .map((value) =>
      value <= 0 || max === 0
        ? SPARK_NONE
        : (SPARKS[Math.min(SPARKS.length - 1, Math.floor((value / max) * SPARKS.length))] as string),
    )
    .join('');
  return { line, daysPerMark };
}

const HEADERS: Record<UsageGrouping, string> = {
  day: 'DAY',
  project: 'PROJECT',
  model: 'MODEL',
  week: 'WEEK OF',
  month: 'MONTH',
  block: 'BLOCK (UTC)',
  device: 'DEVICE',
};

/** `2026-03-02T09:00:00.000Z` → `2026-03-02 09:00` (blocks start on UTC hours; no Intl here). */
const utcMinute = (iso: string) => iso.slice(0, 'yyyy-mm-ddThh:mm'.length).replace('T', ' ');

/** A device by its name, with its id when another row has that name too, and this machine said. */
function deviceLabel(report: UsageReportResult, row: UsageRow): string {
  const name = row.name ?? row.key;
  const shared = report.rows.some((other) => other !== row && (other.name ?? other.key) === name);
  const label = shared && name !== row.key ? `${name} (${row.key})` : name;
  return row.local === true ? `${label} (this machine)` : label;
}

/** A row's first cell: a block by its start (a gap says so), the others by name or key. */
function rowLabel(report: UsageReportResult, row: UsageRow): string {
  if (report.by === 'model') return shortModel(row.key);
  if (report.by === 'device') return deviceLabel(report, row);
  if (row.block !== undefined) {
    const { start, end, gap, active } = row.block;
    if (gap) return `${utcMinute(start)} - ${utcMinute(end).slice(-5)} gap`;
    return `${utcMinute(start)}${active ? ' active' : ''}`;
  }
  return row.name ?? row.key;
}

/** The active block's pace and where it ends at that pace, as ccusage's `blocks --active` gives them. */
function activeBlockLines(report: UsageReportResult, paint: Painter): string[] {
  const block = report.rows.find((row) => row.block?.active === true)?.block;
  if (block === undefined) return [];
  const lines = [`active block until ${utcMinute(block.end)} UTC`];
  if (block.burnRate !== null)
    lines.push(
      `  burn rate ${thousands(block.burnRate.tokensPerMinute)} tokens/min, ${dollars(block.burnRate.costPerHour)}/h (estimated)`,
    );
  if (block.projection !== null)
    lines.push(
      `  projected at its end: ${thousands(block.projection.totalTokens)} tokens, ${dollars(block.projection.totalCost)}, ${block.projection.remainingMinutes} min left (estimated)`,
    );
  else lines.push(paint.dim('  one response so far: no pace to project'));
  return ['', ...lines];
}

function tableRows(report: UsageReportResult): string[][] {
  const cells = (key: string, figures: UsageFigures, models: readonly string[]) => [
    key,
    thousands(figures.input),
    thousands(figures.output),
    thousands(figures.cacheCreation),
    thousands(figures.cacheRead),
    thousands(figures.totalTokens),
    `${dollars(figures.costUsd)}${figures.unpricedResponses > 0 ? '*' : ''}`,
    report.by === 'model' ? '' : models.map(shortModel).join(', '),
  ];
  return [
    [
      HEADERS[report.by],
      'INPUT',
      'OUTPUT',
      'CACHE WRITE',
      'CACHE READ',
      'TOTAL TOKENS',
      'COST',
      report.by === 'model' ? '' : 'MODELS',
    ],
    ...report.rows.map((row: UsageRow) => cells(rowLabel(report, row), row, row.models)),
    cells('total', report.totals, report.totals.models),
  ];
}

/** The report as lines: a heading, the table, the sparkline. */
export function renderUsage(report: UsageReportResult, paint: Painter, columns = DEFAULT_COLUMNS): string[] {
  const first = report.daily[0]?.day;
  const last = report.daily.at(-1)?.day;
  const span =
    first === undefined
      ? 'no days'
      : `${first} to ${last} (${report.daily.length} day${report.daily.length === 1 ? '' : 's'})`;
  const lines = [paint.bold(`usage ${span}, by ${report.by}, days in ${report.timezone}`)];
  if (report.index.state === 'building') {
    lines.push(
      paint.dim(
        `partial: memd is still counting the transcripts it has read (${report.index.filesDone} of ${report.index.filesTotal} files)`,
      ),
    );
  }
  if (report.rows.length === 0) {
    lines.push('no API responses in this window');
    return lines;
  }
  const rows = tableRows(report);
  const widths = (rows[0] as string[]).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] as string).length)),
  );
  rows.forEach((row, index) => {
    const text = row
      .map((cell, column) =>
        column === 0 || column === row.length - 1
          ? cell.padEnd(widths[column] as number)
          : cell.padStart(widths[column] as number),
      )
      .join('  ')
      .trimEnd();
    lines.push(index === 0 || index === rows.length - 1 ? paint.bold(text) : text);
  });
  lines.push(...activeBlockLines(report, paint));
  lines.push(
    paint.dim(
      `tokens as Claude Code's transcripts record them (${report.provenance.tokens}); costs at list prices (${report.provenance.costUsd})`,
    ),
  );
  if (report.totals.unpricedResponses > 0)
    lines.push(
      paint.dim(
        `* ${thousands(report.totals.unpricedResponses)} responses of models memd has no price for: their tokens are counted, not their cost`,
      ),
    );
  const costs = report.daily.map((day) => day.costUsd);
  const { line, daysPerMark } = sparkline(costs, columns - SPARK_LABEL.length);
  const peak = report.daily.reduce(
    (best, day) => (day.costUsd > best.costUsd ? day : best),
    report.daily[0] ?? { day: '', costUsd: 0, totalTokens: 0 },
  );
  lines.push('');
  lines.push(`${SPARK_LABEL}${line}`);
  const note = daysPerMark > 1 ? `, each mark ${daysPerMark} days` : '';
  if (peak.costUsd > 0)
    lines.push(paint.dim(`${' '.repeat(SPARK_LABEL.length)}highest ${dollars(peak.costUsd)} on ${peak.day}${note}`));
  return lines;
}
