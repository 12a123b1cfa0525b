/** memctl: the command line. Each command module loads only when it runs, to keep start-up quick. */
import { RpcError } from '../../shared/protocol/errors.js';
import { InvalidAnswer } from '../../shared/protocol/schema.js';
import { MEMD_VERSION } from '../../shared/version.js';
import { ClientError } from '../errors.js';
import {
  autostartDisabledBy,
  type Command,
  EXIT_ERROR,
  EXIT_NO_DAEMON,
  EXIT_USAGE,
  makeClientFactory,
  UsageError,
} from './context.js';
import { COMMAND_USAGE, MAIN_USAGE } from './help.js';
import { createOutput, type Output } from './output.js';

const COMMANDS: Record<string, () => Promise<Command>> = {
  status: async () => (await import('./commands/status.js')).status,
  sessions: async () => (await import('./commands/sessions.js')).sessions,
  compact: async () => (await import('./commands/compact.js')).compact,
  memory: async () => (await import('./commands/memory.js')).memory,
  memdir: async () => (await import('./commands/memdir.js')).memdir,
  rewind: async () => (await import('./commands/rewind.js')).rewind,
  history: async () => (await import('./commands/history.js')).history,
  hook: async () => (await import('./commands/hook.js')).hook,
  handoff: async () => (await import('./commands/handoff.js')).handoff,
  'install-hooks': async () => (await import('./commands/install-hooks.js')).installHooks,
  'install-statusline': async () => (await import('./commands/install-statusline.js')).installStatusLineCommand,
  statusline: async () => (await import('./quick/statusline.js')).statusLineCommand,
  search: async () => (await import('./commands/search.js')).search,
  usage: async () => (await import('./commands/usage.js')).usage,
  archive: async () => (await import('./commands/archive.js')).archive,
  sync: async () => (await import('./commands/sync.js')).sync,
  export: async () => (await import('./commands/export.js')).exportCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcp,
  'install-mcp': async () => (await import('./commands/install-mcp.js')).installMcp,
  start: async () => (await import('./commands/lifecycle.js')).start,
  stop: async () => (await import('./commands/lifecycle.js')).stop,
  watch: async () => (await import('./commands/watch.js')).watch,
  call: async () => (await import('./commands/call.js')).call,
  doctor: async () => (await import('./commands/doctor.js')).doctor,
  'install-service': async () => (await import('./commands/install-service.js')).installService,
};

/** What to do next after an error answer, by `error.data.kind`. */
const NEXT_STEP_BY_KIND: Record<string, string> = {
  MethodNotFound: '`memctl call daemon.version` lists the methods this daemon serves',
  InvalidParams: "docs/protocol.md gives each method's params",
  ShuttingDown: 'memd is restarting; run the command again in a moment',
  Busy: 'memd is holding large answers that other clients have not read yet (memctl status shows its answer budget); run the command again in a few seconds',
  TooManyConnections: 'every connection slot is taken (maxConnections); run the command again in a moment',
  InternalError: 'this is a bug in memd; its log (memctl status shows where) has the details',
  Conflict: 'read it again (its etag is in --json) and retry',
  NothingToCompact:
    'the conversation is already as small as compaction would make it (memctl status SESSION shows its context)',
  PathRejected: 'data.reason (memctl call ... prints it) says which rule the path broke',
};

/** What to do next, by failure. */
function describeFailure(error: unknown): { message: string; code: number } {
  if (error instanceof UsageError) return { message: `${error.message} (see memctl --help)`, code: EXIT_USAGE };
  if (error instanceof RpcError) {
    const hint = NEXT_STEP_BY_KIND[error.kind];
    return {
      message: `memd answered ${error.kind} (${error.code}): ${error.message}${hint ? `; ${hint}` : ''}`,
      code: EXIT_ERROR,
    };
  }
  // A running daemon older than this memctl may lack a field it reads: a restart starts the installed one.
  if (error instanceof InvalidAnswer)
    return {
      message: `${error.message}; if memd is older than this memctl, restart it (memctl stop && memctl start)`,
      code: EXIT_ERROR,
    };
  if (error instanceof ClientError) {
    const hint = error.kind === 'Timeout' ? '; check `memctl doctor`' : '';
    return { message: `${error.message}${hint}`, code: EXIT_NO_DAEMON };
  }
  return { message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}`, code: EXIT_ERROR };
}

async function run(argv: string[], out: Output): Promise<number> {
  let json = false;
  let autostart = !autostartDisabledBy(process.env);
  let help = false;
  const args: string[] = [];
  for (const arg of argv) {
    if (arg === '--json') json = true;
    else if (arg === '--no-autostart') autostart = false;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version' && args.length === 0) {
      out.out(`memctl ${MEMD_VERSION}`);
      return 0;
    } else args.push(arg);
  }
  const [name, ...rest] = args;
  if (name === undefined) {
    (help ? out.out : out.err)(MAIN_USAGE);
    return help ? 0 : EXIT_USAGE;
  }
  if (name === 'help') {
    out.out(rest[0] !== undefined ? (COMMAND_USAGE[rest[0]] ?? MAIN_USAGE) : MAIN_USAGE);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) throw new UsageError(`unknown command "${name}"`);
  if (help) {
    out.out(COMMAND_USAGE[name] ?? MAIN_USAGE);
    return 0;
  }
  const command = await load();
  const env = process.env;
  return command({ args: rest, json, autostart, out, env, client: makeClientFactory(env, autostart) });
}

/**
 * A reader that goes away early (`memctl status | head -1`) is not a failure of the command: the
 * rest of the output is dropped and the command still finishes what it was asked to do.
 */
function ignoreClosedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}
process.stdout.on('error', ignoreClosedReader);
process.stderr.on('error', ignoreClosedReader);

const out = createOutput();
run(process.argv.slice(2), out).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { message, code } = describeFailure(error);
    out.err(`memctl: ${message}`);
    process.exitCode = code;
  },
);
