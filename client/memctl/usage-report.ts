/**
 * `memctl usage`'s command line and its picture of a `usage.report` answer: a table of tokens and
 * cost by day, project or model, and a sparkline of the cost per day. Loaded by the quick path
 * (quick/usage.ts) as well as by the command, so it imports nothing heavy: no client library, and
 * no Intl (its first use costs a fresh process ~20 ms).
 */
import type { Methods, ParamsOf } from '../../shared/protocol/methods.js';
import { answerOrNull } from '../../shared/protocol/schema.js';
import { USAGE_GROUPINGS, usageReportResultSchema, type UsageFigures, type UsageGrouping, type UsageReportResult, type UsageRow } from '../../shared/protocol/usage.js';
import { BOUND_FORMATS, parseBound } from '../../shared/usage/bounds.js';

/** memctl's window unless told: the month a sparkline reads at a glance. */
export const DEFAULT_SINCE = '30d';
/** The sparkline's marks, lowest to highest (a day without usage is SPARK_NONE). */
const SPARKS = '▁▂▃▄▅▆▇█';
const SPARK_NONE = '·';
/** Columns when stdout is not a terminal (a pipe, a file). */
const DEFAULT_COLUMNS = 80;
const SPARK_LABEL = 'cost per day  ';

export interface UsageArgs {
  since?: string;
  until?: string;
  by?: UsageGrouping;
  project?: string;
  timezone?: string;
  json: boolean;
}

export type UsageReportParams = ParamsOf<typeof Methods.usageReport>;

/** The params of `usage.report` for these arguments. */
export function reportParams(args: UsageArgs): UsageReportParams {
  const { since, until, by, project, timezone } = args;
  return {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(by === undefined ? {} : { by }),
    ...(project === undefined ? {} : { project }),
    ...(timezone === undefined ? {} : { timezone }),
  };
}

/** An IANA name in TZ (`Europe/Paris`, `:UTC`), passed on so that days are the shell's; POSIX rules (`EST5EDT,M3.2.0`) are left to memd's own zone. */
function zoneFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const name = env.TZ?.replace(/^:/, '');
  return name !== undefined && /^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)*$/.test(name) ? name : undefined;
}

/** The arguments, or the reason they are wrong (the caller reports it as a usage error). */
export function parseUsageArgs(argv: readonly string[], env: NodeJS.ProcessEnv): UsageArgs | string {
  const args: UsageArgs = { since: DEFAULT_SINCE, json: false };
  const zone = zoneFromEnv(env);
  if (zone !== undefined) args.timezone = zone;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--json') {
      args.json = true;
      continue;
    }
    const value = argv[index + 1];
    if (!['--since', '--until', '--by', '--project', '--timezone'].includes(arg)) return arg.startsWith('-') ? `unknown option ${arg}` : `usage takes no argument "${arg}"`;
    if (value === undefined) return `${arg} takes a value`;
    index++;
    if (arg === '--since' || arg === '--until') {
      if (arg === '--since' && value === 'all') {
        delete args.since;
        continue;
      }
      if (parseBound(value) === null) return `${arg} takes ${BOUND_FORMATS}${arg === '--since' ? ', or all' : ''}; got "${value}"`;
      args[arg === '--since' ? 'since' : 'until'] = value;
    } else if (arg === '--by') {
      if (!(USAGE_GROUPINGS as readonly string[]).includes(value)) return `--by takes one of ${USAGE_GROUPINGS.join(', ')}`;
      args.by = value as UsageGrouping;
    } else if (arg === '--project') args.project = value;
    else args.timezone = value;
  }
  return args;
}

/** The answer when it is a usage report (it came over a socket: checked before it is drawn), else null. */
export function asUsageReport(value: unknown): UsageReportResult | null {
  return answerOrNull(usageReportResultSchema, value, 'usage.report');
}

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
  for (let at = 0; at < values.length; at += daysPerMark) marks.push(values.slice(at, at + daysPerMark).reduce((sum, value) => sum + value, 0));
  const max = Math.max(0, ...marks);
  const line = marks.map((value) => (value <= 0 || max === 0 ? SPARK_NONE : (SPARKS[Math.min(SPARKS.length - 1, Math.floor((value / max) * SPARKS.length))] as string))).join('');
  return { line, daysPerMark };
}

const HEADERS: Record<UsageGrouping, string> = { day: 'DAY', project: 'PROJECT', model: 'MODEL' };

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
    [HEADERS[report.by], 'INPUT', 'OUTPUT', 'CACHE WRITE', 'CACHE READ', 'TOTAL TOKENS', 'COST', report.by === 'model' ? '' : 'MODELS'],
    ...report.rows.map((row: UsageRow) => cells(report.by === 'model' ? shortModel(row.key) : (row.name ?? row.key), row, row.models)),
    cells('total', report.totals, report.totals.models),
  ];
}

/** The report as lines: a heading, the table, the sparkline. */
export function renderUsage(report: UsageReportResult, paint: Painter, columns = DEFAULT_COLUMNS): string[] {
  const first = report.daily[0]?.day;
  const last = report.daily.at(-1)?.day;
  const span = first === undefined ? 'no days' : `${first} to ${last} (${report.daily.length} day${report.daily.length === 1 ? '' : 's'})`;
  const lines = [paint.bold(`usage ${span}, by ${report.by}, days in ${report.timezone}`)];
  if (report.index.state === 'building') {
    lines.push(paint.dim(`partial: memd is still counting the transcripts it has read (${report.index.filesDone} of ${report.index.filesTotal} files)`));
  }
  if (report.rows.length === 0) {
    lines.push('no API responses in this window');
    return lines;
  }
  const rows = tableRows(report);
  const widths = (rows[0] as string[]).map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length)));
  rows.forEach((row, index) => {
    const text = row
      .map((cell, column) => (column === 0 || column === row.length - 1 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number)))
      .join('  ')
      .trimEnd();
    lines.push(index === 0 || index === rows.length - 1 ? paint.bold(text) : text);
  });
  if (report.totals.unpricedResponses > 0) lines.push(paint.dim(`* ${thousands(report.totals.unpricedResponses)} responses of models memd has no price for: their tokens are counted, not their cost`));
  const costs = report.daily.map((day) => day.costUsd);
  const { line, daysPerMark } = sparkline(costs, columns - SPARK_LABEL.length);
  const peak = report.daily.reduce((best, day) => (day.costUsd > best.costUsd ? day : best), report.daily[0] ?? { day: '', costUsd: 0, totalTokens: 0 });
  lines.push('');
  lines.push(`${SPARK_LABEL}${line}`);
  const note = daysPerMark > 1 ? `, each mark ${daysPerMark} days` : '';
  if (peak.costUsd > 0) lines.push(paint.dim(`${' '.repeat(SPARK_LABEL.length)}highest ${dollars(peak.costUsd)} on ${peak.day}${note}`));
  return lines;
}
