/**
 * The daemon-wide budget of answers (issue 27, item 4): per-connection limits alone let 30
 * connections that never read grow memd to gigabytes. Heavy requests (those that build megabytes
 * or take CPU seconds) run a few at a time, each reserving room for its answer in one budget of
 * answer bytes shared by every connection: bytes written to sockets and not drained yet, plus the
 * reservations of answers being built. A connection whose own answers are not drained waits for
 * them (its share); a request the budget cannot hold because others' answers sit undrained is
 * answered Busy (-32005) with `data.retryAfterMs`. Cheap requests never pass through here.
 */
import { ErrorCode, RpcError } from '../../shared/protocol/errors.js';
import { MAX_FRAME_BYTES } from '../../shared/protocol/framing.js';
import { Methods } from '../../shared/protocol/methods.js';

/** Methods whose answer runs to megabytes or whose work takes CPU seconds on a large session. */
export const HEAVY_METHODS: ReadonlySet<string> = new Set(
  [
    Methods.exportSession,
    Methods.searchContext,
    Methods.toolResultsGet,
    Methods.compactMicro,
    Methods.compactCacheEdits,
    Methods.compactAuto,
    Methods.compactReactive,
    Methods.archiveRestore,
    Methods.archiveVerify,
    Methods.archivePrune,
    Methods.rewindList,
    Methods.rewindRestore,
  ].map((method) => method.name),
);

/** What one heavy answer may take while built and queued: the largest frame memd sends. */
export const HEAVY_ANSWER_RESERVE_BYTES = MAX_FRAME_BYTES;
/** A connection may overlap this many heavy requests (an MCP server's context lookup beside a compaction); more would take others' slots. */
export const MAX_HEAVY_PER_CONNECTION = 2;
/** Heavy requests of one connection waiting their turn; one more is Busy (a flood gets answers, not memory). */
export const MAX_WAITING_PER_CONNECTION = 8;
/** Undrained bytes over which a connection's next heavy request waits: less than a page left means its client reads. */
export const CONNECTION_SHARE_BYTES = 1024 * 1024;
/** The retry hint of Busy: stuck answers drain, or their connections are cut, on a scale of seconds. */
export const BUSY_RETRY_AFTER_MS = 1_000;

export interface BudgetLimits {
  /** Answer bytes queued on sockets plus reserved for answers being built, all connections together. */
  maxAnswerBytes: number;
  /** Heavy requests running at once, all connections together. */
  maxHeavyRequests: number;
}

/** A connection as the budget sees it. */
export interface BudgetMember {
  readonly id: number;
  /** Bytes written to its socket that its client has not read yet. */
  queuedBytes(): number;
}

export interface BudgetStats {
  queuedBytes: number;
  reservedBytes: number;
  heavyRunning: number;
  heavyWaiting: number;
  busyAnswers: number;
}

export interface AnswerBudget {
  isHeavy(method: string): boolean;
  join(member: BudgetMember): void;
  /** The member is gone: its waiting requests are dropped at once (their signals abort them too). */
  leave(member: BudgetMember): void;
  /**
   * Waits for the turn of a heavy request; resolves with its ticket. Rejects with Busy, or
   * Cancelled when `signal` aborts.
   */
  admit(member: BudgetMember, method: string, signal: AbortSignal): Promise<Ticket>;
  /** Some answers drained: requests waiting for them may run. */
  wake(): void;
  stats(): BudgetStats;
}

/**
 * A heavy request's slot and reservation. The slot is given back when its handler returns; the
 * reservation once its answer is written (a batch holds its answers until all of them are done).
 */
export interface Ticket {
  finished(): void;
  /** Also finishes. */
  sent(): void;
}

interface MemberState {
  running: number;
  waiting: number;
}

interface Waiter {
  member: BudgetMember;
  method: string;
  resolve(ticket: Ticket): void;
  reject(error: RpcError): void;
  signal: AbortSignal;
  onAbort(): void;
}

export function busyError(message: string, data: Record<string, unknown> = {}): RpcError {
  return new RpcError(ErrorCode.Busy, 'Busy', message, { retryAfterMs: BUSY_RETRY_AFTER_MS, ...data });
}

export function createAnswerBudget(limits: BudgetLimits): AnswerBudget {
  // A budget under one answer's reservation would refuse every heavy request even on an idle daemon.
  const maxAnswerBytes = Math.max(limits.maxAnswerBytes, HEAVY_ANSWER_RESERVE_BYTES);
  const members = new Map<BudgetMember, MemberState>();
  const waiters: Waiter[] = [];
  let running = 0;
  let reserved = 0;
  let busyAnswers = 0;

  const queuedBytes = (): number => {
    let sum = 0;
    for (const member of members.keys()) sum += member.queuedBytes();
    return sum;
  };
  /** Its own connection holds it back: too many of its requests run, or its answers are not read. */
  const heldByOwnConnection = (waiter: Waiter): boolean => {
    const state = members.get(waiter.member);
    return (
      state === undefined ||
      state.running >= MAX_HEAVY_PER_CONNECTION ||
      waiter.member.queuedBytes() > CONNECTION_SHARE_BYTES
    );
  };

  const removeWaiter = (waiter: Waiter): void => {
    const index = waiters.indexOf(waiter);
    if (index === -1) return;
    waiters.splice(index, 1);
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    const state = members.get(waiter.member);
    if (state !== undefined) state.waiting--;
  };

  const start = (waiter: Waiter): void => {
    removeWaiter(waiter);
    const state = members.get(waiter.member);
    if (state !== undefined) state.running++;
    running++;
    reserved += HEAVY_ANSWER_RESERVE_BYTES;
    let finished = false;
    let sent = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      running--;
      const current = members.get(waiter.member);
      if (current !== undefined) current.running--;
    };
    waiter.resolve({
      finished() {
        finish();
        pump();
      },
      sent() {
        finish();
        if (!sent) {
          sent = true;
          reserved -= HEAVY_ANSWER_RESERVE_BYTES;
        }
        pump();
      },
    });
  };

  const refuse = (waiter: Waiter, queued: number): void => {
    removeWaiter(waiter);
    busyAnswers++;
    const reason = `memd holds ${Math.round(queued / 1024 / 1024)} MiB of answers that their clients have not read, at its ${Math.round(maxAnswerBytes / 1024 / 1024)} MiB budget (maxAnswerBytes)`;
    waiter.reject(
      busyError(`memd is busy: ${reason}; ${waiter.method} was not run, retry in a moment`, { method: waiter.method }),
    );
  };

  /** Starts what may start, oldest first; a request held back by its own connection lets the next one by. */
  function pump(): void {
    if (waiters.length === 0) return;
    // Starting or refusing a request changes no socket's queue: one sum serves the whole pass.
    const queued = queuedBytes();
    for (const waiter of [...waiters]) {
      if (heldByOwnConnection(waiter)) continue;
      if (running >= limits.maxHeavyRequests) return;
      if (queued + reserved + HEAVY_ANSWER_RESERVE_BYTES <= maxAnswerBytes) {
        start(waiter);
        continue;
      }
      // Requests running now free their reservations soon; with none running, the budget is
      // held by answers nobody reads, and waiting could last as long as their clients sleep.
      if (running > 0) return;
      refuse(waiter, queued);
    }
  }

  return {
    isHeavy: (method) => HEAVY_METHODS.has(method),
    join(member) {
      members.set(member, { running: 0, waiting: 0 });
    },
    leave(member) {
      for (const waiter of waiters.filter((candidate) => candidate.member === member)) {
        removeWaiter(waiter);
        waiter.reject(new RpcError(ErrorCode.Cancelled, 'Cancelled', 'the connection closed'));
      }
      members.delete(member);
      pump();
    },
    admit(member, method, signal) {
      const state = members.get(member);
      if (state === undefined || signal.aborted)
        return Promise.reject(new RpcError(ErrorCode.Cancelled, 'Cancelled', 'the request was cancelled'));
      if (state.waiting >= MAX_WAITING_PER_CONNECTION) {
        busyAnswers++;
        return Promise.reject(
          busyError(
            `memd is busy: this connection already has ${state.waiting} heavy requests waiting (at most ${MAX_WAITING_PER_CONNECTION}); read the answers before asking for more`,
            { method },
          ),
        );
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          member,
          method,
          resolve,
          reject,
          signal,
          onAbort: () => {
            removeWaiter(waiter);
            reject(new RpcError(ErrorCode.Cancelled, 'Cancelled', 'the request was cancelled'));
          },
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
        waiters.push(waiter);
        state.waiting++;
        pump();
      });
    },
    wake: () => pump(),
    stats: () => ({
      queuedBytes: queuedBytes(),
      reservedBytes: reserved,
      heavyRunning: running,
      heavyWaiting: waiters.length,
      busyAnswers,
    }),
  };
}
