/**
 * `memctl usage`'s command line, and the check of a `usage.report` answer before it is drawn
 * (views/usage-report.ts). Loaded by the quick path (quick/usage.ts) as well as by the command, so
 * it imports nothing heavy: no client library, and no Intl.
 */
import type { Methods, ParamsOf } from '../../shared/protocol/methods.js';
import { answerOrNull } from '../../shared/protocol/schema.js';
import {
  USAGE_GROUPINGS,
  type UsageGrouping,
  type UsageReportResult,
  usageReportResultSchema,
} from '../../shared/protocol/usage.js';
import { BOUND_FORMATS, parseBound } from '../../shared/usage/bounds.js';

/** memctl's window unless told: the month a sparkline reads at a glance. */
export const DEFAULT_SINCE = '30d';

export interface UsageArgs {
  since?: string;
  until?: string;
  by?: UsageGrouping;
  project?: string;
  timezone?: string;
  /** A device's id or name (issue 35). */
  device?: string;
  json: boolean;
}

export type UsageReportParams = ParamsOf<typeof Methods.usageReport>;

/** The params of `usage.report` for these arguments. */
export function reportParams(args: UsageArgs): UsageReportParams {
  const { since, until, by, project, timezone, device } = args;
  return {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(by === undefined ? {} : { by }),
    ...(project === undefined ? {} : { project }),
    ...(timezone === undefined ? {} : { timezone }),
    ...(device === undefined ? {} : { device }),
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
    if (!['--since', '--until', '--by', '--project', '--timezone', '--device'].includes(arg))
      return arg.startsWith('-') ? `unknown option ${arg}` : `usage takes no argument "${arg}"`;
    if (value === undefined) return `${arg} takes a value`;
    index++;
    if (arg === '--since' || arg === '--until') {
      if (arg === '--since' && value === 'all') {
        delete args.since;
        continue;
      }
      if (parseBound(value) === null)
        return `${arg} takes ${BOUND_FORMATS}${arg === '--since' ? ', or all' : ''}; got "${value}"`;
      args[arg === '--since' ? 'since' : 'until'] = value;
    } else if (arg === '--by') {
      if (!(USAGE_GROUPINGS as readonly string[]).includes(value))
        return `--by takes one of ${USAGE_GROUPINGS.join(', ')}`;
      args.by = value as UsageGrouping;
    } else if (arg === '--project') args.project = value;
    else if (arg === '--device') args.device = value;
    else args.timezone = value;
  }
  return args;
}

/** The answer when it is a usage report (it came over a socket: checked before it is drawn), else null. */
export function asUsageReport(value: unknown): UsageReportResult | null {
  return answerOrNull(usageReportResultSchema, value, 'usage.report');
}
