/** `memctl status [SESSION] [--json]` */
import type { DaemonStatus } from '../../../shared/protocol/results.js';
import { UsageError, type Command } from '../context.js';
import { formatBytes, formatDuration, type Output } from '../output.js';
import { renderSessionDetail } from '../session-detail.js';

export function renderStatus(status: DaemonStatus, out: Output): string[] {
  const { counts, paths, database } = status;
  const lines = [
    `${out.bold('memd')} ${status.version} ${out.green('running')} (pid ${status.pid}, up ${formatDuration(status.uptimeMs)}${
      status.socketActivated ? ', socket-activated' : ''
    })`,
    `  socket    ${paths.socket}`,
    `  state     ${paths.stateDir}`,
    `  database  ${paths.database} (schema ${database.schemaVersion})`,
    `  log       ${paths.log ?? 'stderr (journal or foreground)'}`,
    `  config    ${paths.config}`,
    `  projects  ${paths.projectsDir}`,
    `  clients   ${counts.connections} connected, ${counts.subscriptions} subscriptions, ${counts.requestsServed} requests served, ${counts.protocolErrors} protocol errors`,
    `  memory    ${formatBytes(status.memory.rssBytes)} RSS, ${formatBytes(status.memory.heapUsedBytes)} heap`,
  ];
  if (database.recoveredFrom) {
    lines.push(
      out.yellow(`  warning   the database was corrupt (${database.recoveredFrom.reason}); moved to ${database.recoveredFrom.movedTo} and rebuilt`),
    );
  }
  return lines;
}

export const status: Command = async (ctx) => {
  if (ctx.args.length > 1) throw new UsageError('status takes at most one SESSION');
  const client = ctx.client();
  try {
    const sessionId = ctx.args[0];
    if (sessionId !== undefined) {
      const session = await client.sessionsGet({ sessionId });
      if (ctx.json) ctx.out.out(JSON.stringify(session));
      else for (const line of renderSessionDetail(session, ctx.out)) ctx.out.out(line);
      return 0;
    }
    const result = await client.daemonStatus();
    if (ctx.json) ctx.out.out(JSON.stringify(result));
    else for (const line of renderStatus(result, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
