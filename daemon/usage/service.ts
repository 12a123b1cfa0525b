/**
 * Cost and telemetry (issue 18): the usage book, which follows what ingest commits (follower.ts),
 * and `usage.report` answered from it.
 */
import type Database from 'better-sqlite3';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { invalidParams } from '../../shared/protocol/errors.js';
import type { UsageGrouping, UsageReportResult } from '../../shared/protocol/usage.js';
import { timestampMs } from '../../shared/transcript/timestamp.js';
import { BOUND_FORMATS, type Bound, parseBound } from '../../shared/usage/bounds.js';
import type { IndexFollower } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import { blocksOf, type TimedResponse } from './blocks.js';
import { createUsageBook } from './book.js';
import { resolveWindow, SLOT_MS, type Zone, zoneNamed } from './days.js';
import { createUsageFollower } from './follower.js';
import { buildReport, seriesOf } from './report.js';

export interface UsageReportParams {
  since?: string;
  until?: string;
  by?: UsageGrouping;
  /** A project folder name or the project's cwd. */
  project?: string;
  /** An IANA zone; the daemon's own when absent. */
  timezone?: string;
}

export interface UsageServiceDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
  /** Rows per slice of the book's folds (tests make it small). */
  sliceRows?: number;
  /** Each project folder's name as tables show it (sessions/project-name.ts). */
  projectNames?: () => ReadonlyMap<string, string>;
}

export interface UsageService extends IndexFollower {
  report(params: UsageReportParams): UsageReportResult;
  /** Ingest committed rows: the book folds them soon. */
  committed(): void;
  /** Takes back what files no longer in the index counted (after a session was forgotten); returns how many. */
  dropOrphans(): number;
  /** Starts following the index (after the backfill: every file not folded yet is folded first). */
  start(): void;
  /** Resolves once the book holds everything ingest committed (tests, benchmarks). */
  caughtUp(): Promise<void>;
  stop(): void;
}

export function createUsageService(deps: UsageServiceDeps): UsageService {
  const { db, log, clock } = deps;
  const book = createUsageBook(db);
  const follower = createUsageFollower({
    db,
    book,
    log,
    ...(deps.sliceRows === undefined ? {} : { sliceRows: deps.sliceRows }),
  });
  const zones = new Map<string, Zone>();

  const zoneOf = (name: string | undefined): Zone => {
    const cached = zones.get(name ?? '');
    if (cached !== undefined) return cached;
    const zone = zoneNamed(name);
    if (zone === null)
      throw invalidParams(`timezone must be an IANA time zone such as Europe/Paris or America/New_York, got ${name}`, {
        field: 'timezone',
      });
    zones.set(name ?? '', zone);
    return zone;
  };
  const boundOf = (text: string | undefined, field: 'since' | 'until'): Bound | undefined => {
    if (text === undefined) return undefined;
    const bound = parseBound(text);
    if (bound === null) throw invalidParams(`${field} must be ${BOUND_FORMATS}, got "${text}"`, { field });
    return bound;
  };
  const dropOrphans = db.transaction(() => book.dropOrphans());
  /** The window's counted responses, oldest first, at their entry's instant (its quarter hour when the index lost it). */
  const timedResponses = (fromSlot: number | null, toSlot: number | null, project: string | null): TimedResponse[] =>
    book
      .responses(fromSlot, toSlot, project)
      .map((row) => ({
        ms: (row.timestamp === null ? null : timestampMs(row.timestamp)) ?? row.slot * SLOT_MS,
        model: row.model,
        input: row.input,
        output: row.output,
        cacheCreation: row.cache_creation,
        cacheRead: row.cache_read,
        cache5m: row.cache_5m,
        cache1h: row.cache_1h,
      }))
      .sort((a, b) => a.ms - b.ms);

  return {
    stopStep: 'stop the usage book build',
    committed: () => follower.wake(),
    report(params) {
      const zone = zoneOf(params.timezone);
      const since = boundOf(params.since, 'since');
      const until = boundOf(params.until, 'until');
      const now = clock();
      const { fromSlot, toSlot } = resolveWindow(since, until, now, zone);
      const project =
        params.project === undefined
          ? null
          : params.project.startsWith('/')
            ? sanitizeProjectDirName(params.project)
            : params.project;
      return db.transaction(() => {
        // One read transaction: the days, the projects and the totals agree with each other.
        const series = seriesOf(
          zone,
          fromSlot,
          toSlot,
          fromSlot === null || toSlot === null ? book.extent(project) : null,
          now,
        );
        const dayRows = series.days.length === 0 ? [] : book.byDay(series.bounds, project);
        const projectRows = book.byProject(fromSlot, toSlot, project);
        const by = params.by ?? 'day';
        const blocks =
          by === 'block' ? { blocks: blocksOf(timedResponses(fromSlot, toSlot, project)), now } : undefined;
        const report = buildReport({
          by,
          zone,
          fromSlot,
          toSlot,
          series,
          dayRows,
          projectRows,
          ...(blocks === undefined ? {} : { blocks }),
        });
        if (report.by === 'project' && deps.projectNames !== undefined && report.rows.length > 0) {
          const names = deps.projectNames();
          report.rows = report.rows.map((row) => ({ ...row, name: names.get(row.key) ?? row.key }));
        }
        return { ...report, index: follower.progress() };
      })();
    },
    dropOrphans: () => dropOrphans(),
    start() {
      // A zone's first use loads ICU's time zone data (~20 ms): paid at start, not by the first report.
      zoneOf(undefined).dateOf(clock());
      const dropped = dropOrphans();
      if (dropped > 0) log.info('usage book: files no longer indexed taken back', { files: dropped });
      follower.start();
    },
    caughtUp: () => follower.idle(),
    stop() {
      follower.stop();
    },
  };
}
