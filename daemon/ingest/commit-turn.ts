/**
 * One commit per turn of the event loop, whichever lane it comes from. A commit holds the main
 * thread for up to ~40 ms (tailer.ts DEFAULT_COMMIT_BYTES), and requests are read between turns:
 * with four lanes, the parse worker's answers often arrive together and each lane's commit ran
 * straight after the other's, so a `daemon.status` waited behind two or three of them (65-76 ms
 * at worst in a 942 MB backfill). The turn is given back by a timer and handed on by setImmediate,
 * so that the loop polls its sockets between two commits.
 *
 * Waiting commits go by rank, lowest first (then in arrival order): the ingestor ranks a changed
 * file's pass before any backfill pass, and backfill passes in the order they began, which is
 * newest file first, so that the sessions a user works in are exact first rather than every lane's
 * file advancing together.
 */
interface Waiting {
  rank: number;
  seq: number;
  resolve: () => void;
}

const waiting: Waiting[] = [];
let taken = false;
let arrivals = 0;

function take(): void {
  taken = true;
  setTimeout(release, 0);
}

function release(): void {
  let best = -1;
  for (let at = 0; at < waiting.length; at++) {
    const candidate = waiting[at] as Waiting;
    const current = waiting[best];
    if (
      current === undefined ||
      candidate.rank < current.rank ||
      (candidate.rank === current.rank && candidate.seq < current.seq)
    )
      best = at;
  }
  if (best === -1) {
    taken = false;
    return;
  }
  const [next] = waiting.splice(best, 1);
  // Still taken: the turn is this commit's, after the sockets' poll.
  setImmediate(() => {
    take();
    next?.resolve();
  });
}

/** Resolves in a turn of the event loop in which no other commit ran; the caller commits right away. */
export function commitTurn(rank = 0): Promise<void> {
  if (!taken) {
    take();
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push({ rank, seq: arrivals++, resolve }));
}
