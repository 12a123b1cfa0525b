/** The daemon's status as `memctl status` prints it: paths, counts, ingest, extraction, warnings. */
import type { DaemonStatus } from '../../../shared/protocol/daemon.js';
import type { IngestFailure, IngestStatus } from '../../../shared/protocol/ingest.js';
import { SPEND_KINDS, type SpendKind } from '../../../shared/protocol/memory.js';
import { formatBytes, formatDuration, type Output } from '../output.js';
import { renderArchiveStatus } from './archive-status.js';
import { databaseIncidentText } from './database.js';
import { deletionSentence } from './deletions.js';

/** Cells of the backfill progress bar. */
const PROGRESS_CELLS = 20;

const FAILURE_LABELS: Record<IngestFailure['kind'], string> = {
  read: 'cannot read',
  parse: 'parse failed',
  store: 'cannot write the index',
};

/**
 * What today's spend went on: `extraction` when one kind (or an older memd, which counted only
 * extraction), else each kind with its share (`extraction $0.41, compaction $0.12`).
 */
function spentOn(byKind: Record<SpendKind, number> | undefined): string {
  const kinds = SPEND_KINDS.filter((kind) => (byKind?.[kind] ?? 0) > 0);
  if (byKind === undefined || kinds.length === 0) return 'extraction';
  if (kinds.length === 1) return kinds[0] as SpendKind;
  return kinds.map((kind) => `${kind} $${byKind[kind].toFixed(2)}`).join(', ');
}

/** `in 40s`, or `now` for a retry that is due. */
function retryIn(retryAt: string, now: number): string {
  const ms = Date.parse(retryAt) - now;
  return ms < 1_000 ? 'now' : `in ${formatDuration(ms)}`;
}

/** One line for the store, one for the files, each with the soonest retry (issue 13 item 8). */
function renderFailing(ingest: IngestStatus, out: Output, now: number): string[] {
  const failing = ingest.failing ?? [];
  const store = failing.find((failure) => failure.kind === 'store');
  const files = failing.filter((failure) => failure.kind !== 'store');
  const fileCount = (ingest.failingCount ?? failing.length) - (store === undefined ? 0 : 1);
  const lines: string[] = [];
  if (store !== undefined) {
    lines.push(
      out.yellow(
        `  warning   ingest paused: ${FAILURE_LABELS.store} (${store.code ?? 'error'}: ${store.message}), ${store.failures} failure${store.failures === 1 ? '' : 's'} — next retry ${retryIn(store.retryAt, now)}`,
      ),
    );
  }
  const first = files[0];
  if (first !== undefined) {
    const retryAt = files.reduce(
      // biome-ignore lint/complexity/useMathMinMax: retry times are ISO strings, which compare as strings
      (soonest, failure) => (failure.retryAt < soonest ? failure.retryAt : soonest),
      first.retryAt,
    );
    lines.push(
      out.yellow(
        `  warning   ingest: ${fileCount} file${fileCount === 1 ? '' : 's'} failing (${FAILURE_LABELS[first.kind]}: ${first.code ?? first.message}, ${first.path}) — next retry ${retryIn(retryAt, now)}`,
      ),
    );
  }
  return lines;
}

function renderWatcher(ingest: IngestStatus, out: Output): string {
  const watcher = ingest.watcher;
  if (watcher === undefined)
    return ingest.progress.watching ? '' : out.yellow(' (projects dir missing; waiting for it)');
  if (watcher.state === 'missing') return out.yellow(' (projects dir missing; waiting for it)');
  if (watcher.state === 'refused') return out.red(` (projects dir refused: ${watcher.reason ?? 'a system tree'})`);
  if (watcher.state === 'degraded') {
    const since = watcher.since === null ? '?' : new Date(watcher.since).toTimeString().slice(0, 8);
    return out.yellow(` (watcher degraded since ${since}: ${watcher.reason ?? 'unknown'}; re-armed once it can be)`);
  }
  return '';
}

function renderIngest(status: DaemonStatus, out: Output, now: number): string[] {
  const { progress, stats } = status.ingest;
  const lines = [
    `  ingest    ${stats.sessions} sessions, ${stats.files} files, ${stats.entries} entries, ${formatBytes(stats.bytesRead)} read${
      stats.badLines > 0 ? out.yellow(`, ${stats.badLines} bad lines skipped`) : ''
    }${renderWatcher(status.ingest, out)}`,
  ];
  if (progress.state === 'starting') lines.push('  backfill  starting: scanning the projects dir');
  if (progress.state === 'backfilling') {
    const fraction = progress.bytesTotal > 0 ? progress.bytesDone / progress.bytesTotal : 0;
    const filled = Math.round(fraction * PROGRESS_CELLS);
    lines.push(
      `  backfill  ▕${'█'.repeat(filled)}${'░'.repeat(PROGRESS_CELLS - filled)}▏ ${Math.floor(fraction * 100)}% · ${progress.filesDone}/${progress.filesTotal} files · ${formatBytes(progress.bytesDone)}/${formatBytes(progress.bytesTotal)}${
        typeof progress.backfillEtaMs === 'number'
          ? ` · about ${formatDuration(Math.max(progress.backfillEtaMs, 1_000))} left`
          : ''
      }`,
    );
  }
  const failing = renderFailing(status.ingest, out, now);
  lines.push(...failing);
  // From a daemon older than `failing`; a newer one's lastError may be long recovered from.
  const lastError = status.ingest.lastError;
  if (lastError && status.ingest.failing === undefined)
    lines.push(out.yellow(`  warning   cannot read ${lastError.path}: ${lastError.message}`));
  return lines;
}

export function renderStatus(status: DaemonStatus, out: Output, now = Date.now()): string[] {
  const { counts, paths, database } = status;
  const lines = [
    `${out.bold('memd')} ${status.version} ${out.green('running')} (pid ${status.pid}, up ${formatDuration(status.uptimeMs)}${status.socketActivated ? ', socket-activated' : ''})`,
    `  socket    ${paths.socket}`,
    `  state     ${paths.stateDir}`,
    `  database  ${paths.database} (schema ${database.schemaVersion})`,
    `  log       ${paths.log ?? 'stderr (journal or foreground)'}`,
    `  config    ${paths.config}`,
    `  projects  ${paths.projectsDir}`,
    `  clients   ${counts.connections} connected, ${counts.subscriptions} subscriptions, ${counts.requestsServed} requests served, ${counts.protocolErrors} protocol errors`,
    // `process`, not `memory`: that row is session memory's extraction, below.
    `  process   ${formatBytes(status.memory.rssBytes)} RSS, ${formatBytes(status.memory.heapUsedBytes)} heap`,
  ];
  // Shown only when clients leave answers unread or were told Busy (an older daemon sends no budget).
  const answers = counts.answers as DaemonStatus['counts']['answers'] | undefined;
  if (answers !== undefined && (answers.queuedBytes > 0 || answers.heavyWaiting > 0 || answers.busyAnswers > 0)) {
    lines.push(
      `  answers   ${formatBytes(answers.queuedBytes)} not read yet by clients, ${answers.heavyRunning} heavy requests running, ${answers.heavyWaiting} waiting, ${answers.busyAnswers} answered Busy`,
    );
  }
  lines.push(...renderIngest(status, out, now));
  // Issue 34: a big first backfill leaves the search texts to the index's build, which follows it.
  const index = status.search.index;
  if (index?.state === 'building')
    lines.push(
      `  search    index being built: ${index.filesDone}/${index.filesTotal} files read; searches find what is read so far`,
    );
  const { compaction, extraction } = status;
  const jobs = extraction.jobs;
  const active = (jobs.queued ?? 0) + (jobs.running ?? 0) + (jobs.deferred ?? 0);
  if (active + (jobs.done ?? 0) + (jobs.failed ?? 0) > 0) {
    lines.push(
      `  memory    ${jobs.done ?? 0} extractions done, ${active} waiting or running${jobs.failed ? `, ${jobs.failed} failed` : ''}${extraction.locks.length > 0 ? `, ${extraction.locks.length} held by agents` : ''}`,
    );
  }
  if (extraction.paused) lines.push(out.yellow('  memory    background extraction paused (memctl memory resume)'));
  // One budget for every kind of memd's model calls (issue 32).
  const { budget } = extraction;
  if (budget.spentTodayUsd > 0 || budget.reached) {
    const top = extraction.spentToday
      .slice(0, 3)
      .map((spent) => `${spent.sessionId.slice(0, 8)} $${spent.usd.toFixed(2)}`);
    const line = `  spend     $${budget.spentTodayUsd.toFixed(2)} of $${budget.dailyUsd.toFixed(2)} today on ${spentOn(budget.byKind)}${top.length > 0 ? ` (${top.join(', ')})` : ''}`;
    lines.push(
      budget.reached ? out.yellow(`${line}; budget reached, background extraction waits until tomorrow`) : line,
    );
  }
  // A daemon from before the archive answers without it.
  if (status.archive !== undefined) {
    const line = `  ${renderArchiveStatus(status.archive, out)}`;
    lines.push(status.archive.state === 'stopped' ? out.yellow(line) : line);
  }
  // Issue 31: the latest burst of deletions; the whole record is `memctl archive deleted`.
  const deleted = status.deletions?.last;
  if (deleted != null) {
    const line = `  deleted   ${deletionSentence(deleted, now)}`;
    lines.push(deleted.notHeld > 0 ? out.yellow(`${line} (memctl archive deleted)`) : line);
  }
  if (compaction.autoRuns > 0)
    lines.push(`  compact   ${compaction.autoRuns} auto-compaction${compaction.autoRuns === 1 ? '' : 's'} run`);
  for (const failing of compaction.failing) {
    const what = failing.stopped
      ? `auto-compaction stopped after ${failing.failures} failures`
      : `${failing.failures} auto-compaction failure${failing.failures === 1 ? '' : 's'}`;
    lines.push(
      out.yellow(
        `  warning   ${failing.sessionId.slice(0, 8)}: ${what} (${failing.lastError}); memctl compact ${failing.sessionId} --force retries`,
      ),
    );
  }
  if (database.recoveredFrom) {
    lines.push(
      out.yellow(
        `  warning   the database was corrupt (${database.recoveredFrom.reason}); moved to ${database.recoveredFrom.movedTo} and rebuilt`,
      ),
    );
  }
  const incident = database.whileRunning;
  if (incident) lines.push(out.yellow(`  warning   ${databaseIncidentText(incident)}`));
  return lines;
}
