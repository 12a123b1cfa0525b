/** `memctl doctor`: every check prints one line with what to do when it fails. */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memdHookCommands, memdHookStates, memdHooksFor } from '../../../shared/hooks/settings.js';
import { isMemdStatusLine, memdStatusLineCommand } from '../../../shared/hooks/statusline.js';
import { checkSocketPath, claudeSettingsPath, type MemdPaths } from '../../../shared/paths.js';
import { type DaemonStatus, PROTOCOL_VERSION } from '../../../shared/protocol/daemon.js';
import { daemonMainPath, memctlCommandPath } from '../../install-paths.js';
import { runningClaudeVersion } from '../claude-version.js';
import { type Command, type CommandContext, UsageError } from '../context.js';
import { startAdvice, starterOf } from '../daemon-starter.js';
import { checkMcpRegistration } from '../mcp-registration.js';
import { UNIT_NAMES } from '../units.js';
import { databaseIncidentText } from '../views/database.js';

/** package.json's engines field: the oldest Node memd is tested on. */
const MIN_NODE = [20, 10] as const;
/** A child `memd --check-db` reads the whole database; give it time on a large one. */
const CHILD_TIMEOUT_MS = 60_000;

/** How far back doctor warns of transcripts Claude Code deleted that memd did not hold: a warning past it says nothing new. */
const DELETION_WARNING_SPAN = '30d';

/** `warn`: worth saying, but nothing to fix (doctor still exits 0). */
type Check = { ok: boolean | 'skip' | 'warn'; label: string; detail: string; hint?: string };

function checkNode(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    ok,
    label: 'node',
    detail: `v${process.versions.node} (${process.execPath})`,
    hint: `install Node ${MIN_NODE.join('.')} or newer`,
  };
}

function checkPrivateDir(dir: string, label: string): Check {
  let stats;
  try {
    stats = lstatSync(dir);
  } catch {
    return { ok: 'skip', label, detail: `${dir} does not exist yet; memd creates it 0700 at start` };
  }
  const uid = process.getuid?.();
  const mode = stats.mode & 0o777;
  const modeText = mode.toString(8).padStart(4, '0');
  if (!stats.isDirectory() || stats.isSymbolicLink())
    return { ok: false, label, detail: `${dir} is not a directory`, hint: `remove ${dir}` };
  if (uid !== undefined && stats.uid !== uid) {
    return {
      ok: false,
      label,
      detail: `${dir} belongs to uid ${stats.uid}`,
      hint: `memd refuses it; set MEMD_STATE_DIR or XDG_RUNTIME_DIR`,
    };
  }
  if ((mode & 0o077) !== 0)
    return { ok: false, label, detail: `${dir} has mode ${modeText}`, hint: `chmod 700 ${dir}` };
  return { ok: true, label, detail: `${dir} (${modeText}, yours)` };
}

async function checkSocket(ctx: CommandContext): Promise<Check> {
  const client = ctx.client({ autostart: false });
  const tooLong = checkSocketPath(client.socketPath);
  if (tooLong) return { ok: false, label: 'socket', detail: tooLong };
  try {
    const version = await client.daemonVersion();
    const same = version.protocol === PROTOCOL_VERSION;
    return {
      ok: same,
      label: 'socket',
      detail: `${client.socketPath} answers: memd ${version.version}, protocol ${version.protocol}`,
      hint: 'restart the daemon: memctl stop && memctl start',
    };
  } catch (error) {
    // Down, it is said who brings it up: the hooks, status line and MCP server keep nothing until then.
    const down = (error as { kind?: unknown }).kind === 'NoDaemon';
    const hint = down ? startAdvice(starterOf(client.paths, ctx.env)) : 'start it: memctl start';
    return { ok: false, label: 'socket', detail: `${client.socketPath}: ${(error as Error).message}`, hint };
  } finally {
    client.close();
  }
}

function runDaemon(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [daemonMainPath(), ...args], { timeout: CHILD_TIMEOUT_MS }, (error, stdout) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout });
    });
  });
}

/**
 * The file on disk, and what the running daemon says of it: a file deleted while memd runs looks
 * like "not created yet" on disk, but the daemon still holds (and writes back) its content.
 */
async function checkDatabase(ctx: CommandContext): Promise<Check> {
  const { stdout } = await runDaemon(['--check-db']);
  let result: { path?: string; exists?: boolean; ok?: boolean; schemaVersion?: number | null; problems?: string[] };
  try {
    result = JSON.parse(stdout) as typeof result;
  } catch {
    return { ok: false, label: 'database', detail: `memd --check-db printed no result`, hint: `run: memd --check-db` };
  }
  const running = await runningDatabase(ctx);
  const incident = running?.whileRunning ? ` (last incident: ${databaseIncidentText(running.whileRunning)})` : '';
  if (!result.exists) {
    if (running === null) return { ok: 'skip', label: 'database', detail: `${result.path} not created yet` };
    return {
      ok: false,
      label: 'database',
      detail: `${result.path} is missing while memd runs: its content is only in the open connection${incident}`,
      hint: 'memd writes it back at its next check (MEMD_DB_CHECK_MS); or restart memd',
    };
  }
  if (result.ok)
    return {
      ok: true,
      label: 'database',
      detail: `${result.path} passes integrity_check (schema ${result.schemaVersion})${incident}`,
    };
  return {
    ok: false,
    label: 'database',
    detail: `${result.path}: ${(result.problems ?? []).slice(0, 2).join('; ')}${incident}`,
    hint:
      running === null
        ? 'start memd: it moves a corrupt database aside and rebuilds it'
        : 'memd rebuilds it at its next check; or restart memd',
  };
}

/** The running daemon's database status, or null when no daemon answers. */
async function runningDatabase(ctx: CommandContext): Promise<DaemonStatus['database'] | null> {
  const client = ctx.client({ autostart: false });
  try {
    return (await client.daemonStatus()).database;
  } catch {
    return null;
  } finally {
    client.close();
  }
}

async function checkConfig(): Promise<Check> {
  const { stdout } = await runDaemon(['--print-config']);
  try {
    const printed = JSON.parse(stdout) as { problems: string[]; paths: { configPath: string } };
    if (printed.problems.length === 0)
      return { ok: true, label: 'config', detail: `${printed.paths.configPath} (or defaults)` };
    return {
      ok: false,
      label: 'config',
      detail: printed.problems.join('; '),
      hint: 'fix the settings named (docs/configuration.md)',
    };
  } catch {
    return {
      ok: false,
      label: 'config',
      detail: 'memd --print-config printed no result',
      hint: 'run: memd --print-config',
    };
  }
}

function checkProjects(paths: MemdPaths): Check {
  const present = existsSync(paths.projectsDir);
  return present
    ? { ok: true, label: 'projects', detail: paths.projectsDir }
    : {
        ok: false,
        label: 'projects',
        detail: `${paths.projectsDir} does not exist`,
        hint: 'run Claude Code once, or set MEMD_PROJECTS_DIR',
      };
}

function checkUnits(paths: MemdPaths): Check {
  const missing = UNIT_NAMES.filter((name) => !existsSync(join(paths.systemdUserDir, name)));
  if (missing.length === UNIT_NAMES.length) {
    return {
      ok: 'skip',
      label: 'units',
      detail: `not installed in ${paths.systemdUserDir} (optional: memctl install-service)`,
    };
  }
  if (missing.length > 0)
    return { ok: false, label: 'units', detail: `missing ${missing.join(', ')}`, hint: 'memctl install-service' };
  const service = readFileSync(join(paths.systemdUserDir, 'memd.service'), 'utf8');
  const execStart = /^ExecStart=(.*)$/m.exec(service)?.[1] ?? '';
  const current = service.includes(daemonMainPath()) && service.includes(process.execPath);
  return current
    ? { ok: true, label: 'units', detail: `installed in ${paths.systemdUserDir}` }
    : {
        ok: false,
        label: 'units',
        detail: `memd.service runs ${execStart}, not this memd`,
        hint: 'memctl install-service',
      };
}

/** Whether Claude Code runs memd's hooks (optional: without them there are no handoffs). */
function checkHooks(paths: MemdPaths, env: NodeJS.ProcessEnv): Check {
  const path = claudeSettingsPath(paths.claudeRoot);
  let settings: unknown;
  try {
    settings = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { ok: 'skip', label: 'hooks', detail: `no ${path} (optional: memctl install-hooks)` };
    return {
      ok: false,
      label: 'hooks',
      detail: `${path} is not valid JSON: ${(error as Error).message}`,
      hint: 'fix the file; Claude Code cannot read it either',
    };
  }
  let states;
  try {
    states = memdHookStates(
      settings,
      memdHookCommands(process.execPath, memctlCommandPath()),
      memdHooksFor(runningClaudeVersion(env)),
    );
  } catch (error) {
    return {
      ok: false,
      label: 'hooks',
      detail: `${path}: ${(error as Error).message}`,
      hint: 'fix the hooks key of the file',
    };
  }
  const missing = states.filter((state) => state.state === 'missing');
  if (missing.length === states.length)
    return { ok: 'skip', label: 'hooks', detail: `not installed in ${path} (optional: memctl install-hooks)` };
  const wrong = states
    .filter((state) => state.state !== 'installed')
    .map((state) => `${state.spec.event} ${state.state}`);
  return wrong.length === 0
    ? {
        ok: true,
        label: 'hooks',
        detail: `${[...new Set(states.map((state) => state.spec.event))].join(', ')} in ${path}`,
      }
    : { ok: false, label: 'hooks', detail: wrong.join(', '), hint: 'memctl install-hooks' };
}

/** Whether Claude Code's status line is memd's (optional), someone else's, or memd's from another install. */
function checkStatusLine(paths: MemdPaths): Check {
  const path = claudeSettingsPath(paths.claudeRoot);
  let command: unknown;
  try {
    command = (JSON.parse(readFileSync(path, 'utf8')) as { statusLine?: { command?: unknown } } | null)?.statusLine
      ?.command;
  } catch {
    // A missing or broken settings.json is the hooks check's to report.
    return { ok: 'skip', label: 'statusline', detail: `not set (optional: memctl install-statusline)` };
  }
  if (command === undefined)
    return { ok: 'skip', label: 'statusline', detail: `not set in ${path} (optional: memctl install-statusline)` };
  if (!isMemdStatusLine(command))
    return {
      ok: 'skip',
      label: 'statusline',
      detail: `another tool's (${String(command)}); memctl install-statusline shows how to combine them`,
    };
  return command === memdStatusLineCommand(process.execPath, memctlCommandPath())
    ? { ok: true, label: 'statusline', detail: `memctl statusline in ${path}` }
    : {
        ok: false,
        label: 'statusline',
        detail: `runs another memctl: ${String(command)}`,
        hint: 'memctl install-statusline',
      };
}

/** Transcripts Claude Code deleted lately that memd did not hold whole (issue 31). */
async function checkDeletions(ctx: CommandContext): Promise<Check> {
  const client = ctx.client({ autostart: false });
  try {
    const { events } = await client.archiveDeleted({ since: DELETION_WARNING_SPAN, limit: 1 });
    const sessions = events.reduce((sum, event) => sum + event.sessions, 0);
    const notHeld = events.reduce((sum, event) => sum + event.notHeld, 0);
    if (sessions === 0)
      return { ok: true, label: 'deleted', detail: `Claude Code deleted no transcript in ${DELETION_WARNING_SPAN}` };
    if (notHeld === 0)
      return {
        ok: true,
        label: 'deleted',
        detail: `Claude Code deleted ${sessions} sessions in ${DELETION_WARNING_SPAN}; memd holds them all, verified`,
      };
    return {
      ok: 'warn',
      label: 'deleted',
      detail: `Claude Code deleted ${sessions} sessions in ${DELETION_WARNING_SPAN}; memd did not hold ${notHeld} of them whole`,
      hint: 'memctl archive deleted lists them; keep the archive on (archiveEnabled) and raise cleanupPeriodDays in Claude Code',
    };
  } catch {
    return { ok: 'skip', label: 'deleted', detail: 'no memd answered (or one from before issue 31)' };
  } finally {
    client.close();
  }
}

export const doctor: Command = async (ctx) => {
  if (ctx.args.length > 0) throw new UsageError('doctor takes no arguments');
  const paths = ctx.client({ autostart: false }).paths;
  const checks: Check[] = [
    checkNode(),
    checkPrivateDir(paths.stateDir, 'state dir'),
    checkPrivateDir(paths.runtimeDir, 'socket dir'),
    await checkSocket(ctx),
    await checkDatabase(ctx),
    await checkConfig(),
    checkProjects(paths),
    checkUnits(paths),
    checkHooks(paths, ctx.env),
    checkStatusLine(paths),
    checkMcpRegistration(ctx.env),
    await checkDeletions(ctx),
  ];
  if (ctx.json) {
    ctx.out.out(JSON.stringify({ ok: checks.every((check) => check.ok !== false), checks }));
  } else {
    for (const check of checks) {
      const mark =
        check.ok === true
          ? ctx.out.green('ok  ')
          : check.ok === 'skip'
            ? ctx.out.dim('--  ')
            : check.ok === 'warn'
              ? ctx.out.yellow('warn')
              : ctx.out.red('FAIL');
      ctx.out.out(`${mark} ${check.label.padEnd(10)} ${check.detail}`);
      if ((check.ok === false || check.ok === 'warn') && check.hint)
        ctx.out.out(`     ${''.padEnd(10)} ${ctx.out.yellow(`→ ${check.hint}`)}`);
    }
  }
  return checks.every((check) => check.ok !== false) ? 0 : 1;
};
