/**
 * memd as `memctl install-service` runs it (issue 29, item 1): the unit's ProtectHome=read-only
 * leaves the project read-only to the daemon, so the PreCompact hook, running as the user in the
 * project, writes the handoff the daemon made and prints the user's rules to pin; with no daemon
 * the hook still prints them. The sandbox is emulated with a mount namespace (`unshare -m`, the
 * home bind-mounted read-only, `~/.claude` writable again as ReadWritePaths has it) where this
 * runs as root, and is the unit's own under `systemd-run --user` where a user manager answers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { renderUnits } from '../../client/memctl/units.js';
import { createBus } from '../../daemon/bus/bus.js';
import { createDispatcher, handle } from '../../daemon/rpc/dispatch.js';
import { createRpcServer } from '../../daemon/rpc/server.js';
import type { HandoffResult } from '../../shared/protocol/handoff.js';
import { type MethodDescriptor, Methods } from '../../shared/protocol/methods.js';
import { object, optional, str, union } from '../../shared/protocol/schema.js';
import { createClient } from '../helpers/client.js';
import { fakeLogger } from '../helpers/fake-logger.js';
import { manifest } from '../helpers/fixtures.js';
import { FIXTURES } from '../helpers/ingest.js';
import {
  DAEMON_MAIN,
  type DaemonProcess,
  eventually,
  keepForFile,
  makeSandbox,
  runMemctl,
  type Sandbox,
  spawnTracked,
  waitReady,
} from '../helpers/sandbox.js';

const SCENARIO = join(FIXTURES, 'compactions');
const RECORDED_CWD = '/home/user/src/payments-api';
const RECORDED_PROJECTS = '/home/user/.claude/projects';
const PROJECT = '-home-user-src-payments-api';
const compactions = manifest('compactions');
const RULE = 'Never push to main without running npm test first.';
const RULED_OUT = "Don't use regex to parse the CSV export.";

/** Whether this process may make a mount namespace and bind-mount in it (root, or a capable user). */
function canUnshare(): boolean {
  return (
    spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind / /mnt 2>/dev/null || mount --bind /tmp /tmp'], {
      stdio: 'ignore',
    }).status === 0
  );
}

/** Whether `systemd-run --user` reaches a user manager (none in most containers and CI runners). */
function hasUserManager(): boolean {
  if (process.env.XDG_RUNTIME_DIR === undefined) return false;
  return (
    spawnSync('systemd-run', ['--user', '--wait', '--collect', '--quiet', 'true'], { stdio: 'ignore', timeout: 10_000 })
      .status === 0
  );
}

interface Project {
  cwd: string;
  transcript: string;
}

/** The recorded session, moved to `cwd`, with the user's rules said in one more prompt. */
function setUpProject(sandbox: Sandbox, cwd: string): Project {
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(sandbox.projectsDir, PROJECT), { recursive: true });
  const transcript = join(sandbox.projectsDir, PROJECT, `${compactions.sessionId}.jsonl`);
  writeFileSync(
    transcript,
    readFileSync(join(SCENARIO, 'projects', PROJECT, `${compactions.sessionId}.jsonl`), 'utf8').replaceAll(
      RECORDED_CWD,
      cwd,
    ),
  );
  const prompt = {
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: `${RULE} ${RULED_OUT}` },
    uuid: '9f0c1e7a-1b2c-4d3e-8f4a-5b6c7d8e9f01',
    timestamp: new Date().toISOString(),
    sessionId: compactions.sessionId,
    cwd,
  };
  appendFileSync(transcript, `${JSON.stringify(prompt)}\n`);
  return { cwd, transcript };
}

function hookInput(sandbox: Sandbox, project: Project, file: string): string {
  const recorded = JSON.parse(readFileSync(join(SCENARIO, 'hooks', file), 'utf8')) as {
    stdin: Record<string, unknown>;
  };
  return JSON.stringify(recorded.stdin)
    .replaceAll(RECORDED_PROJECTS, sandbox.projectsDir)
    .replaceAll(RECORDED_CWD, project.cwd);
}

/** memd in a mount namespace where `home` is read-only but `home/.claude` (ProtectHome=read-only, ReadWritePaths=%h/.claude). */
function spawnUnderReadOnlyHome(sandbox: Sandbox, home: string): DaemonProcess {
  const claude = join(home, '.claude');
  mkdirSync(claude, { recursive: true });
  const script = [
    'set -e',
    'mount --bind "$RO_HOME" "$RO_HOME"',
    'mount -o remount,bind,ro "$RO_HOME"',
    'mount --bind "$RW_CLAUDE" "$RW_CLAUDE"',
    'mount -o remount,bind,rw "$RW_CLAUDE"',
    'exec "$NODE" "$MEMD" --foreground',
  ].join('\n');
  return spawnTracked('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], {
    ...sandbox.env,
    RO_HOME: home,
    RW_CLAUDE: claude,
    NODE: process.execPath,
    MEMD: DAEMON_MAIN,
  });
}

/** The hook's run against the sandboxed daemon: a real handoff in the project, the rules on stdout. */
async function expectHandoffWrittenByTheHook(sandbox: Sandbox, project: Project): Promise<void> {
  const client = createClient({ env: sandbox.env, autostart: false });
  try {
    await eventually(async () => (await client.daemonStatus()).ingest.stats.files === 1, 'the session to be indexed');
    // The sandbox holds: memd itself may not write in the project (the bug's EROFS).
    await expect(client.handoffGenerate({ sessionId: compactions.sessionId, cwd: project.cwd })).rejects.toThrow(
      /read-only|EROFS/i,
    );
  } finally {
    client.close();
  }
  const run = await runMemctl(sandbox, ['hook', 'pre-compact'], {}, hookInput(sandbox, project, '05-PreCompact.json'));
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('User rules:');
  expect(run.stdout).toContain(`- ${RULE}`);
  expect(run.stdout).toContain(`- ${RULED_OUT}`);
  const path = join(project.cwd, 'docs', 'handoff-context.md');
  const handoff = readFileSync(path, 'utf8');
  expect(handoff.split('\n')[0]).toContain(`session ${compactions.sessionId}`);
  expect(handoff).not.toContain('HANDOFF_AUTO_PARTIAL');
  expect(handoff).toContain('## Resume Prompt');
  expect(handoff).toContain(RULE);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  // docs/ is the user's repository's: made with the user's umask (022 here), not 0700.
  expect(lstatSync(join(project.cwd, 'docs')).mode & 0o777).toBe(0o755 & ~process.umask());
  expect(readFileSync(join(project.cwd, '.gitignore'), 'utf8')).toContain('docs/handoff-context.md');
  // memd recorded it as its own: SessionStart after the compaction injects it.
  const start = await runMemctl(
    sandbox,
    ['hook', 'session-start'],
    {},
    hookInput(sandbox, project, '07-SessionStart.json'),
  );
  expect(start).toMatchObject({ code: 0, stderr: '' });
  const context = (JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;
  expect(context).toContain('## Resume Prompt');
}

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!canUnshare())('memd under ProtectHome=read-only, emulated with a mount namespace', () => {
  it('PreCompact: memd makes the handoff, the hook writes it as the user and prints the pinned rules', async () => {
    const sandbox = makeSandbox();
    const home = join(sandbox.root, 'home');
    const project = setUpProject(sandbox, join(home, 'src', 'payments-api'));
    const daemon = spawnUnderReadOnlyHome(sandbox, home);
    keepForFile(sandbox, daemon);
    await waitReady(sandbox, daemon);
    await expectHandoffWrittenByTheHook(sandbox, project);
    // `memctl handoff` by hand writes it as the user too.
    rmSync(join(project.cwd, 'docs'), { recursive: true });
    const manual = await runMemctl(sandbox, ['handoff', compactions.sessionId, '--cwd', project.cwd]);
    expect(manual).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(join(project.cwd, 'docs', 'handoff-context.md'), 'utf8')).toContain('trigger: manual');
  });
});

describe('the PreCompact hook with no daemon', () => {
  it('still prints the pinned rules, read from the transcript, and writes the partial handoff', async () => {
    const sandbox = makeSandbox();
    const project = setUpProject(sandbox, join(sandbox.root, 'home', 'src', 'payments-api'));
    const run = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'pre-compact'],
      {},
      hookInput(sandbox, project, '05-PreCompact.json'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `Keep these in the summary word for word; they still apply after the compaction.\nUser rules:\n- ${RULE}\nApproaches the user ruled out (do not retry them):\n- ${RULED_OUT}\n\n`,
    );
    expect(readFileSync(join(project.cwd, 'docs', 'handoff-context.md'), 'utf8').split('\n')[0]).toContain(
      'HANDOFF_AUTO_PARTIAL',
    );
  });
});

describe('the PreCompact hook and a memd older than writeFile', () => {
  it('asks again without it, prints what memd pins, and leaves the file to memd', async () => {
    const sandbox = makeSandbox();
    const project = setUpProject(sandbox, join(sandbox.root, 'home', 'src', 'payments-api'));
    // handoff.generate as e4e3ae0 validated it: no writeFile; the result has no `written`.
    const older: MethodDescriptor<unknown, HandoffResult> = {
      name: 'handoff.generate',
      params: union(
        object({ sessionId: str(), cwd: str(), trigger: optional(str()) }),
        object({ transcriptPath: str(), cwd: str(), trigger: optional(str()) }),
      ),
    };
    const asked: unknown[] = [];
    const answer = {
      pinned: 'PINNED BY THE OLDER MEMD\n',
      written: undefined,
      text: 'never written by the hook',
      path: join(project.cwd, 'docs', 'handoff-context.md'),
    };
    const handlers = [
      handle(Methods.daemonVersion, () => ({ name: 'memd' as const, version: '0.1.0', protocol: 1, capabilities: [] })),
      handle(older, (params) => {
        asked.push(params);
        return answer as unknown as HandoffResult;
      }),
    ];
    const server = createRpcServer({
      dispatcher: createDispatcher(handlers, fakeLogger()),
      bus: createBus((error) => {
        throw error;
      }),
      log: fakeLogger(),
      maxConnections: 10,
      limits: { idleMs: 60_000, frameMs: 10_000, stallMs: 30_000 },
      budget: { maxAnswerBytes: 1024 * 1024, maxHeavyRequests: 4 },
    });
    mkdirSync(sandbox.runtimeDir, { recursive: true, mode: 0o700 });
    await server.listen({ kind: 'path', path: sandbox.socketPath });
    try {
      for (const source of [{}, { session_id: null }]) {
        asked.length = 0;
        const input = JSON.stringify({
          ...(JSON.parse(hookInput(sandbox, project, '05-PreCompact.json')) as Record<string, unknown>),
          ...source,
        });
        const run = await runMemctl(sandbox, ['--no-autostart', 'hook', 'pre-compact'], {}, input);
        expect(run).toMatchObject({ code: 0, stdout: 'PINNED BY THE OLDER MEMD\n\n', stderr: '' });
        expect(asked).toHaveLength(1);
        expect(asked[0]).not.toHaveProperty('writeFile');
      }
      expect(() => lstatSync(join(project.cwd, 'docs'))).toThrow(/ENOENT/);
    } finally {
      await server.stopAccepting();
      server.closeConnections();
    }
  });
});

/** `Key=value` lines of the installed unit's [Service] section that sandbox it. */
function sandboxProperties(sandbox: Sandbox, home: string): string[] {
  const unit = renderUnits(process.execPath, DAEMON_MAIN)['memd.service'] ?? '';
  const service = unit.slice(unit.indexOf('[Service]'));
  const keep =
    /^(ProtectSystem|ProtectHome|ReadWritePaths|NoNewPrivileges|LockPersonality|RestrictRealtime|RestrictSUIDSGID|RestrictNamespaces|SystemCallArchitectures|RestrictAddressFamilies|UMask)=/;
  const lines = service
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => keep.test(line))
    // The test's state and socket live in /tmp: PrivateTmp and StateDirectory are left out, their dirs opened instead.
    .map((line) => line.replaceAll('%h', home).replaceAll('%t/memd', sandbox.runtimeDir));
  return [...lines, `ReadWritePaths=${sandbox.root}/state ${sandbox.root}/run`];
}

describe.skipIf(!hasUserManager())("memd under systemd-run --user with the unit's sandbox", () => {
  const units: string[] = [];
  afterAll(() => {
    for (const unit of units) spawnSync('systemctl', ['--user', 'stop', unit], { stdio: 'ignore' });
  });

  it('PreCompact: the hook writes the handoff in a project under the home and prints the pinned rules', async () => {
    const sandbox = makeSandbox();
    // ProtectHome covers the real home: the project is made there, and removed after.
    const home = homedir();
    const projectRoot = mkdtempSync(join(home, '.memd-service-test-'));
    scratch.push(projectRoot);
    const project = setUpProject(sandbox, join(projectRoot, 'payments-api'));
    const unit = `memd-test-${process.pid}-${Date.now()}`;
    units.push(unit);
    const env = Object.entries(sandbox.env).flatMap(([key, value]) =>
      value === undefined || !/^(HOME|XDG_|MEMD_|CLAUDE_CONFIG_DIR)/.test(key) ? [] : [`--setenv=${key}=${value}`],
    );
    const properties = sandboxProperties(sandbox, home).flatMap((property) => ['-p', property]);
    execFileSync('systemd-run', [
      '--user',
      '--collect',
      '--quiet',
      `--unit=${unit}`,
      ...properties,
      ...env,
      process.execPath,
      DAEMON_MAIN,
      '--foreground',
    ]);
    await waitReady(sandbox);
    await expectHandoffWrittenByTheHook(sandbox, project);
  });
});
