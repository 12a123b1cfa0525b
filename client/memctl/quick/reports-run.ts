/**
 * The reports users type per call (issue 34): `usage`, `status`, `sessions`, `search` while a
 * daemon answers, from their own CommonJS bundle (`dist/client/memctl/reports.cjs`, made by `npm run
 * build` as quick.cjs is, scripts/bundle-quick.mjs): one exchange, their views and the protocol's
 * schemas, no command line or client library (each within 1.3× `node -e 0`, `npm run bench --
 * client`). Each command's module is loaded only when that command runs.
 */

/**
 * The reports a user types (issue 34): `usage`, `status`, `sessions`, `search`, each while a daemon answers;
 * the exit code, or null when the full command must run (no daemon, an error to explain, arguments
 * the quick path does not take).
 */
export async function runReportQuick(argv: readonly string[]): Promise<number | null> {
  const [command, ...rest] = argv;
  if (rest.includes('--help') || rest.includes('-h') || rest.includes('--no-autostart')) return null;
  if (command === 'usage') return (await import('./usage.js')).runUsageQuick(rest);
  if (command === 'status') return (await import('./sessions.js')).runStatusQuick(rest);
  if (command === 'sessions') return (await import('./sessions.js')).runSessionsQuick(rest);
  if (command === 'search') return (await import('./search.js')).runSearchQuick(rest);
  return null;
}
