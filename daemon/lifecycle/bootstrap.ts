/**
 * The daemon's start, up to the point where its parts can be built (docs/architecture.md, start-up
 * order 1-7): arguments, paths and configuration, the umask and an activated socket, private
 * dirs, the logger, the instance lock, leftovers, and the store. One-shot flags (--help,
 * --version, --print-config, --check-db) are answered here and end the process's work.
 */
import { homedir } from 'node:os';
import { describeConfigKeys, type ResolvedConfig } from '../../shared/config.js';
import { checkSocketPath, type MemdPaths, resolvePaths } from '../../shared/paths.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { loadConfig } from '../config/load.js';
import { setUserUmask } from '../fs/work-tree.js';
import { stderrFormat } from '../log/format.js';
import { createLogger, type Logger, rotatingFileSink, stderrSink } from '../log/logger.js';
import { checkDatabase } from '../store/check.js';
import { openStore, type Store } from '../store/db.js';
import { cleanLeftovers } from '../store/leftovers.js';
import { ensurePrivateDir, UnsafeDirError } from './dirs.js';
import { acquireInstanceLock, type InstanceLock, LockHeldError } from './instance-lock.js';
import { takeActivatedSocket } from './socket-activation.js';
import { removeStaleSocket, SocketPathError } from './socket-file.js';

const USAGE = `usage: memd [--foreground] [--print-config] [--check-db] [--version] [--help]

Runs the memd daemon in the foreground (there is one per user).
  --foreground     log to stderr instead of memd.log (as under systemd); text lines on a
                   terminal, JSON otherwise (MEMD_LOG_FORMAT=json|text to choose)
  --print-config   print the resolved paths and configuration, then exit
  --check-db       check the state database's integrity (read-only), print JSON, then exit
  --version        print the version, then exit

Environment: MEMD_SOCKET, MEMD_STATE_DIR, MEMD_CONFIG, MEMD_PROJECTS_DIR, CLAUDE_CONFIG_DIR,
XDG_RUNTIME_DIR, XDG_STATE_HOME, XDG_CONFIG_HOME, and the keys in docs/configuration.md.`;

const FLAGS = new Set(['--foreground', '--print-config', '--check-db', '--version', '--help', '-h']);

/** Exit codes: 1 a runtime failure (another daemon, a bad dir), 2 bad usage or configuration. */
export const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

export function fail(message: string, code = EXIT_FAILURE): never {
  process.stderr.write(`memd: ${message}\n`);
  process.exit(code);
}

/** What the parts are built on. */
export interface Started<P> {
  paths: MemdPaths;
  resolved: ResolvedConfig;
  log: Logger;
  lock: InstanceLock;
  store: Store;
  /** Started before the store opens, so that it boots meanwhile (the parse worker: ~80 ms). */
  early: P;
  activatedFd: number | undefined;
}

/** Something started early that must be closed if the start fails after it. */
export interface EarlyPart {
  close(): Promise<void>;
}

function printConfig(paths: MemdPaths, resolved: ResolvedConfig): void {
  const keys = describeConfigKeys().map(({ key, env }) => ({
    key,
    env,
    value: resolved.config[key],
    source: resolved.sources[key],
  }));
  process.stdout.write(
    `${JSON.stringify({ version: MEMD_VERSION, paths, config: keys, problems: resolved.problems }, null, 2)}\n`,
  );
}

function openLogger(paths: MemdPaths, resolved: ResolvedConfig, foreground: boolean): Logger {
  const { config } = resolved;
  const underSystemd = process.env.JOURNAL_STREAM !== undefined && process.env.JOURNAL_STREAM !== '';
  if (underSystemd || foreground) {
    const format = stderrFormat(config.logFormat, { isTTY: process.stderr.isTTY === true, underSystemd });
    return createLogger(stderrSink(underSystemd), config.logLevel, undefined, format);
  }
  return createLogger(rotatingFileSink(paths.logPath, config.logMaxBytes, config.logFiles), config.logLevel);
}

/**
 * Runs start-up steps 1-7; null when a one-shot flag was answered. Exits the process (with the
 * reason on stderr) when memd cannot start. `startEarly` makes what should boot meanwhile.
 */
export async function bootstrap<P extends EarlyPart>(
  argv: readonly string[],
  startEarly: () => P,
  cleanAlso: (stateDir: string) => string[],
): Promise<Started<P> | null> {
  const unknown = argv.filter((arg) => !FLAGS.has(arg));
  if (unknown.length > 0) fail(`unknown argument ${unknown[0]}\n${USAGE}`, EXIT_USAGE);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return null;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`memd ${MEMD_VERSION}\n`);
    return null;
  }

  const paths = resolvePaths(process.env, homedir());
  const resolved = loadConfig(paths.configPath, process.env);
  if (argv.includes('--print-config')) {
    printConfig(paths, resolved);
    process.exitCode = resolved.problems.length > 0 ? EXIT_USAGE : 0;
    return null;
  }
  if (argv.includes('--check-db')) {
    const check = checkDatabase(paths.dbPath);
    process.stdout.write(`${JSON.stringify(check)}\n`);
    process.exitCode = check.ok ? 0 : EXIT_FAILURE;
    return null;
  }
  if (resolved.problems.length > 0) fail(`bad configuration:\n  ${resolved.problems.join('\n  ')}`, EXIT_USAGE);

  // Everything memd creates is private to the user; what it makes in a working tree follows theirs.
  setUserUmask(process.umask(0o077));
  const activated = takeActivatedSocket(process.env);
  if (!activated) {
    const socketProblem = checkSocketPath(paths.socketPath);
    if (socketProblem) fail(socketProblem, EXIT_USAGE);
  }
  try {
    ensurePrivateDir(paths.stateDir, 'state');
    ensurePrivateDir(paths.runtimeDir, 'socket');
  } catch (error) {
    if (error instanceof UnsafeDirError) fail(error.message);
    throw error;
  }

  const log = openLogger(paths, resolved, argv.includes('--foreground'));
  let lock: InstanceLock;
  try {
    lock = acquireInstanceLock(paths.lockPath);
  } catch (error) {
    if (error instanceof LockHeldError)
      fail(`already running as pid ${error.pid} (lock ${error.lockPath}); stop it with: memctl stop`);
    throw error;
  }

  const early = startEarly();
  let store: Store | undefined;
  try {
    if (!activated && removeStaleSocket(paths.socketPath))
      log.info('removed a stale socket', { socket: paths.socketPath });
    cleanLeftovers(paths.stateDir, paths.dbPath, log, () => cleanAlso(paths.stateDir));
    store = openStore(paths.dbPath, log);
  } catch (error) {
    await early.close();
    lock.release();
    if (error instanceof SocketPathError) fail(error.message);
    fail(`cannot open the state database ${paths.dbPath}: ${(error as Error).message}`);
  }
  return { paths, resolved, log, lock, store, early, activatedFd: activated?.fd };
}
