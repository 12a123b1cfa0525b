/**
 * One commit per turn of the event loop, whichever lane it comes from. A commit holds the main
 * thread for up to ~40 ms (tailer.ts DEFAULT_COMMIT_BYTES), and requests are read between turns:
 * with four lanes, the parse worker's answers often arrive together and each lane's commit ran
 * straight after the other's, so a `daemon.status` waited behind two or three of them (65-76 ms
 * at worst in a 942 MB backfill). A lane that finds this turn's commit taken waits for the next
 * turn; the turn is given back by a timer, which runs only after the loop has polled its sockets.
 */
let taken = false;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves in a turn of the event loop in which no other commit ran; the caller commits right away. */
export async function commitTurn(): Promise<void> {
  while (taken) await nextTurn();
  taken = true;
  setTimeout(() => {
    taken = false;
  }, 0);
}
