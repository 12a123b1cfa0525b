/**
 * Cost and telemetry (issue 18): the usage book, which follows what ingest commits (follower.ts),
 * and `usage.report` answered from it, of every device or one (issue 35).
 */
import type Database from 'better-sqlite3';
import { sanitizeProjectDirName } from '../../shared/paths.js';
import { invalidParams } from '../../shared/protocol/errors.js';
import type { UsageGrouping, UsageReportResult } from '../../shared/protocol/usage.js';
import { timestampMs } from '../../shared/transcript/timestamp.js';
import { BOUND_FORMATS, type Bound, parseBound } from '../../shared/usage/bounds.js';
import type { IndexFollower } from '../ingest/index.js';
import type { Logger } from '../log/logger.js';
import { createSlicer, SLICE_BUDGET_MS } from '../workers/slices.js';
import { BLOCK_MS, type Block, createBlockFold, foldStartSlot, type TimedResponse } from './blocks.js';
import { type BookScope, createUsageBook, EVERYTHING, type SlotRow, type TimedRow } from './book.js';
import { usageOfRow } from './book-rows.js';
import { resolveWindow, SLOT_MS, type Zone, zoneNamed } from './days.js';
import { createUsageDevices, type ThisDevice } from './devices.js';
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
  /** A device's id or name (issue 35): only the usage counted in its transcripts. */
  device?: string;
}

export interface UsageServiceDeps {
  db: Database.Database;
  log: Logger;
  clock: () => number;
  /** This machine's device id and name: its files rank and report under them among other machines' (issue 35). */
  device: ThisDevice;
  /** Rows per slice of the book's folds, and per page of a report's responses (tests make it small). */
  sliceRows?: number;
  /** A slice's time budget (tests make it 0: a turn of the event loop after every page). */
  sliceMs?: number;
  /** Each project folder's name as tables show it (sessions/project-name.ts). */
  projectNames?: () => ReadonlyMap<string, string>;
}

export interface UsageService extends IndexFollower {
  /** By block, the window's responses are read in slices; the signal stops the work between them. */
  report(params: UsageReportParams, signal?: AbortSignal): Promise<UsageReportResult>;
  /** The counted usage of every project in the quarter hours from `fromMs` to `toMs` (usage.status's window spend). */
  windowUsage(fromMs: number, toMs: number): SlotRow[];
  /** One session's counted responses from `fromMs`'s quarter hour on, with their instants (usage.status's pace). */
  sessionResponses(sessionId: string, fromMs: number): TimedRow[];
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

/**
 * Responses per page of a report by block: ~6 ms of query each (a 30-day window of 83,340
 * responses: 170 pages, 1.1 s in all, against 1.0-1.3 s read at once), so a slice of the
 * budget's 12 ms runs two or three.
 */
const RESPONSE_PAGE_ROWS = 500;
/**
 * How far back from a window's start a report by block looks for the pause its blocks are cut
 * from (blocks.ts foldStartSlot): a month of slot rows is a few thousand; no one works a month
 * without five idle hours.
 */
const BLOCK_LOOKBACK_MS = 31 * 24 * 3_600_000;

export function createUsageService(deps: UsageServiceDeps): UsageService {
  const { db, log, clock } = deps;
  const book = createUsageBook(db, { deviceId: deps.device.id });
  const devices = createUsageDevices(db, deps.device);
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
  /**
   * The blocks of the window as ccusage's `blocks --since/--until` gives them: cut from the whole
   * history (the fold starts at the last five-hour pause before the window), kept whole when they
   * start inside it, so one that starts before `until` holds its responses after it. The
   * responses are read a page at a time in slices (a month of a heavy user's responses held the
   * event loop 1.3 s read at once). Pages come by slot, and a response's slot is its instant's
   * quarter hour (rank.ts), so each page sorted by instant follows the last. Each page is its
   * own read: a response ingest folds meanwhile may be in the blocks and not in the totals. The
   * fold keeps each block's sums, not its responses, so memory is bounded by the blocks.
   */
  const timedBlocks = async (
    fromSlot: number | null,
    toSlot: number | null,
    scope: BookScope,
    signal: AbortSignal | undefined,
  ): Promise<Block[]> => {
    const slicer = createSlicer(signal, deps.sliceMs ?? SLICE_BUDGET_MS);
    const pageRows = deps.sliceRows ?? RESPONSE_PAGE_ROWS;
    const fold = createBlockFold();
    let from = fromSlot;
    if (fromSlot !== null) {
      const lookbackFrom = fromSlot - BLOCK_LOOKBACK_MS / SLOT_MS;
      const busy = [...new Set(book.slots(lookbackFrom, fromSlot, scope).map((row) => row.slot))];
      from = foldStartSlot(busy, fromSlot, lookbackFrom);
    }
    const to = toSlot === null ? null : toSlot + BLOCK_MS / SLOT_MS;
    const inWindow = (block: Block) =>
      (fromSlot === null || block.startMs >= fromSlot * SLOT_MS) &&
      (toSlot === null || block.startMs < toSlot * SLOT_MS);
    for (;;) {
      const wait = slicer.tick();
      if (wait !== undefined) await wait;
      const page = book.responses(from, to, scope, pageRows);
      const timed = page.rows.map(
        (row): TimedResponse => ({
          // Its entry's instant, or its quarter hour when the index lost it.
          ms: (row.timestamp === null ? null : timestampMs(row.timestamp)) ?? row.slot * SLOT_MS,
          model: row.model,
          ...usageOfRow(row),
        }),
      );
      timed.sort((a, b) => a.ms - b.ms);
      for (const response of timed) fold.add(response);
      if (page.next === null) return fold.blocks().filter(inWindow);
      from = page.next;
    }
  };

  return {
    stopStep: 'stop the usage book build',
    committed: () => follower.wake(),
    async report(params, signal) {
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
      const scope: BookScope = {
        project,
        device: params.device === undefined ? null : devices.resolve(params.device),
      };
      const by = params.by ?? 'day';
      const blocks = by === 'block' ? { blocks: await timedBlocks(fromSlot, toSlot, scope, signal), now } : undefined;
      return db.transaction(() => {
        // One read transaction: the days, the projects and the totals agree with each other.
        const series = seriesOf(
          zone,
          fromSlot,
          toSlot,
          fromSlot === null || toSlot === null ? book.extent(scope) : null,
          now,
        );
        const dayRows = series.days.length === 0 ? [] : book.byDay(series.bounds, scope);
        const groupRows = book
          .groups(fromSlot, toSlot, scope)
          .map((row) => ({ ...row, device: devices.idOf(row.device) }));
        const report = buildReport({
          by,
          zone,
          fromSlot,
          toSlot,
          series,
          dayRows,
          groupRows,
          ...(blocks === undefined ? {} : { blocks }),
        });
        if (report.by === 'project' && deps.projectNames !== undefined && report.rows.length > 0) {
          const names = deps.projectNames();
          report.rows = report.rows.map((row) => ({ ...row, name: names.get(row.key) ?? row.key }));
        }
        if (report.by === 'device' && report.rows.length > 0) {
          const names = devices.names();
          report.rows = report.rows.map((row) => ({
            ...row,
            name: names.get(row.key) ?? row.key,
            local: devices.isThis(row.key),
          }));
        }
        return { ...report, index: follower.progress() };
      })();
    },
    // Every device's: the plan's window is the account's, whichever machine spent in it.
    windowUsage: (fromMs, toMs) => book.slots(Math.floor(fromMs / SLOT_MS), Math.floor(toMs / SLOT_MS) + 1, EVERYTHING),
    sessionResponses: (sessionId, fromMs) => book.sessionResponses(sessionId, Math.floor(fromMs / SLOT_MS)),
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
