/**
 * `memctl usage [--since 30d] [--until T] [--by day|week|month|block|project|model|device] [--project P]
 * [--device D] [--timezone TZ] [--json]`: tokens and cost by day, project, model or device, and a
 * sparkline of the cost per day. The quick path (quick/usage.ts) answers while the daemon runs;
 * this one starts it first, and explains errors.
 */
import { type Command, UsageError } from '../context.js';
import { asUsageReport, parseUsageArgs, reportParams } from '../usage-args.js';
import { renderUsage } from '../views/usage-report.js';

export const usage: Command = async (ctx) => {
  const args = parseUsageArgs(ctx.args, ctx.env);
  if (typeof args === 'string') throw new UsageError(args);
  const client = ctx.client();
  try {
    const result = await client.usageReport(reportParams(args));
    const report = asUsageReport(result);
    if (report === null) throw new Error('memd answered usage.report with something that is not a usage report');
    if (ctx.json || args.json) ctx.out.out(JSON.stringify(report));
    else for (const line of renderUsage(report, ctx.out, process.stdout.columns)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
