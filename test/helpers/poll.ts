/** The tests' one way to wait: poll a condition with a deadline (no fixed sleeps in tests). */

/** How often a condition is checked: often enough that a wait ends promptly, rarely enough to cost nothing. */
const POLL_MS = 10;

/** Polls `condition` until it holds, or throws naming `what` once `deadlineMs` have passed. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
}
