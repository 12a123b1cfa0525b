/**
 * The recall hooks' timing (issue 33), apart from the protocol's schemas: the hooks run from the
 * quick bundle (client/memctl/quick/), which loads only small modules.
 */

/**
 * The hook's whole wait for memd: Claude Code holds the prompt (or the next model call) while the
 * hook runs, and a hook adds at most 50 ms (issue 33). The daemon is given RECALL_DAEMON_DEADLINE_MS
 * of it and answers what it found by then.
 */
export const RECALL_HOOK_DEADLINE_MS = 50;
/** The daemon's share: the rest is the exchange itself and the hook's printing. */
export const RECALL_DAEMON_DEADLINE_MS = 35;
