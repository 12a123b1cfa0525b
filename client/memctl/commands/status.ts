/** `memctl status [SESSION] [--json]` */
import type { DaemonStatus } from '../../../shared/protocol/results.js';
import { databaseIncidentText } from '../database-view.js';
import { UsageError, type Command } from '../context.js';
import { formatBytes, formatDuration, type Output } from '../output.js';
import { renderSessionTable } from '../sessions-view.js';

/** The most recent sessions shown under the daemon's status; `memctl sessions` lists all. */
const STATUS_SESSION_ROWS = 10;

/** Cells of the backfill progress bar. */
const PROGRESS_CELLS = 20;

function renderIngest(status: DaemonStatus, out: Output): string[] {
  const { progress, stats } = status.ingest;
  const lines = [
    `  ingest    ${stats.sessions} sessions, ${stats.files} files, ${stats.entries} entries, ${formatBytes(stats.bytesRead)} read${
      stats.badLines > 0 ? out.yellow(`, ${stats.badLines} bad lines skipped`) : ''
    }${progress.watching ? '' : out.yellow(' (projects dir missing; waiting for it)')}`,
  ];
  if (progress.state === 'backfilling') {
    const fraction = progress.bytesTotal > 0 ? progress.bytesDone / progress.bytesTotal : 0;
    const filled = Math.round(fraction * PROGRESS_CELLS);
    lines.push(
      `  backfill  ▕${'█'.repeat(filled)}${'░'.repeat(PROGRESS_CELLS - filled)}▏ ${Math.floor(fraction * 100)}% · ${progress.filesDone}/${progress.filesTotal} files · ${formatBytes(progress.bytesDone)}/${formatBytes(progress.bytesTotal)}`,
    );
  }
  const lastError = status.ingest.lastError;
  if (lastError) lines.push(out.yellow(`  warning   cannot read ${lastError.path}: ${lastError.message}`));
  return lines;
}

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
  lines.push(...renderIngest(status, out));
  const { compaction, extraction } = status;
  const jobs = extraction.jobs;
  const active = (jobs.queued ?? 0) + (jobs.running ?? 0) + (jobs.deferred ?? 0);
  if (active + (jobs.done ?? 0) + (jobs.failed ?? 0) > 0) {
    lines.push(`  memory    ${jobs.done ?? 0} extractions done, ${active} waiting or running${jobs.failed ? `, ${jobs.failed} failed` : ''}${extraction.locks.length > 0 ? `, ${extraction.locks.length} held by agents` : ''}`);
  }
  if (compaction.autoRuns > 0) lines.push(`  compact   ${compaction.autoRuns} auto-compaction${compaction.autoRuns === 1 ? '' : 's'} run`);
  for (const failing of compaction.failing) {
    const what = failing.stopped ? `auto-compaction stopped after ${failing.failures} failures` : `${failing.failures} auto-compaction failure${failing.failures === 1 ? '' : 's'}`;
    lines.push(out.yellow(`  warning   ${failing.sessionId.slice(0, 8)}: ${what} (${failing.lastError}); memctl compact ${failing.sessionId} --force retries`));
  }
  if (database.recoveredFrom) {
    lines.push(
      out.yellow(`  warning   the database was corrupt (${database.recoveredFrom.reason}); moved to ${database.recoveredFrom.movedTo} and rebuilt`),
    );
  }
  const incident = database.whileRunning;
  if (incident) lines.push(out.yellow(`  warning   ${databaseIncidentText(incident)}`));
  return lines;
}

export const status: Command = async (ctx) => {
  if (ctx.args.length > 1) throw new UsageError('status takes at most one SESSION');
  const client = ctx.client();
  try {
    const sessionId = ctx.args[0];
    if (sessionId !== undefined) {
      const [session, hooks] = await Promise.all([client.sessionsGet({ sessionId }), client.handoffStatus({ sessionId })]);
      // Everything the text view shows: the session and the hooks' records.
      if (ctx.json) ctx.out.out(JSON.stringify({ ...session, handoff: hooks }));
      else {
        const { renderSessionDetail, renderHookRecords } = await import('../session-detail.js');
        for (const line of [...renderSessionDetail(session, ctx.out), ...renderHookRecords(hooks, ctx.out)]) ctx.out.out(line);
      }
      return 0;
    }
    if (ctx.json) {
      ctx.out.out(JSON.stringify(await client.daemonStatus()));
      return 0;
    }
    // Both requests go out at once: memctl status is measured against bare node start-up.
    const [result, { sessions }] = await Promise.all([client.daemonStatus(), client.sessionsList({ limit: STATUS_SESSION_ROWS })]);
    for (const line of renderStatus(result, ctx.out)) ctx.out.out(line);
    ctx.out.out('');
    for (const line of renderSessionTable(sessions, ctx.out)) ctx.out.out(line);
    return 0;
  } finally {
    client.close();
  }
};
