/**
 * Bounds of a context window a client states for a session (`sessions.get`'s `window`): outside
 * them it is not a window Claude Code runs with (200K and 1M today). Its own module, so that the
 * status line takes these without the method table.
 */
export const MIN_STATED_WINDOW = 1_000;
export const MAX_STATED_WINDOW = 100_000_000;
