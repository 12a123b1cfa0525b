/**
 * Claude Code's recorded hook inputs replayed into `memctl hook ...` against a real daemon: the
 * documented outputs, exit code 0 in every case (daemon down, missing transcript, a summarizer that
 * hangs), and the SessionStart injection checked in the transcript afterwards.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../client/index.js';
import { hookLogPath } from '../../client/memctl/hook-log.js';
import { createClient } from '../helpers/client.js';
import { manifest } from '../helpers/fixtures.js';
import { copyFixtureProjects, FIXTURES } from '../helpers/ingest.js';
import { type MessagesApi, startMessagesApi } from '../helpers/messages-api.js';
import { eventually, keepForFile, makeSandbox, runMemctl, type Sandbox, startDaemon } from '../helpers/sandbox.js';

const SCENARIO = join(FIXTURES, 'compactions');
const RECORDED_CWD = '/home/user/src/payments-api';
const RECORDED_PROJECTS = '/home/user/.claude/projects';
const PROJECT = '-home-user-src-payments-api';
const compactions = manifest('compactions');

interface Recorded {
  stdin: Record<string, unknown>;
}

/** A recorded hook's stdin, its paths moved into the sandbox. */
function hookInput(file: string, sandbox: Sandbox, cwd: string, changes: Record<string, unknown> = {}): string {
  const recorded = JSON.parse(readFileSync(join(SCENARIO, 'hooks', file), 'utf8')) as Recorded;
  const text = JSON.stringify({ ...recorded.stdin, ...changes })
    .replaceAll(RECORDED_PROJECTS, sandbox.projectsDir)
    .replaceAll(RECORDED_CWD, cwd);
  return text;
}

function setUp(sandbox: Sandbox): { cwd: string; transcript: string } {
  const cwd = join(sandbox.root, 'payments-api');
  mkdirSync(cwd);
  mkdirSync(join(sandbox.projectsDir, PROJECT));
  const transcript = join(sandbox.projectsDir, PROJECT, `${compactions.sessionId}.jsonl`);
  writeFileSync(
    transcript,
    readFileSync(join(SCENARIO, 'projects', PROJECT, `${compactions.sessionId}.jsonl`), 'utf8').replaceAll(
      RECORDED_CWD,
      cwd,
    ),
  );
  return { cwd, transcript };
}

const SECTIONS = [
  '## Session Started',
  '## Task',
  '## Completed Tasks',
  '## Current State',
  '## Constraints',
  '## Files Touched',
  '## Issues Discovered',
  '## Open Questions',
  '## Next Steps',
  '## Resume Prompt',
];

describe('hooks against a running daemon', () => {
  let sandbox: Sandbox;
  let client: Client;
  let cwd: string;
  let transcript: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    ({ cwd, transcript } = setUp(sandbox));
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    client = createClient({ env: sandbox.env, autostart: false });
    await eventually(async () => (await client.daemonStatus()).ingest.stats.files === 1, 'the session to be indexed');
  });
  afterAll(() => client?.close());

  it('pre-compact writes the handoff with every section and exits 0', async () => {
    const run = await runMemctl(sandbox, ['hook', 'pre-compact'], {}, hookInput('05-PreCompact.json', sandbox, cwd));
    expect(run.code).toBe(0);
    const handoff = readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8');
    for (const section of SECTIONS) expect(handoff).toContain(section);
    for (const file of compactions.files.edited) expect(handoff).toContain(file.split('/').at(-1));
    expect(readFileSync(join(cwd, '.gitignore'), 'utf8')).toContain('docs/handoff-context.md');
    // This session set no rules: nothing is pinned, so nothing is printed.
    expect(run.stdout).toBe('');
  });

  it('session-start after a compaction prints the handoff as additionalContext; for startup it prints nothing', async () => {
    const run = await runMemctl(
      sandbox,
      ['hook', 'session-start'],
      {},
      hookInput('07-SessionStart.json', sandbox, cwd),
    );
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(output.hookSpecificOutput.additionalContext).toContain('## Resume Prompt');
    expect(output.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(10_000);
    const startup = await runMemctl(
      sandbox,
      ['hook', 'session-start'],
      {},
      hookInput('00-SessionStart.json', sandbox, cwd),
    );
    expect(startup).toMatchObject({ code: 0, stdout: '' });
  });

  it('records whether the SessionStart context reached the transcript', async () => {
    const run = await runMemctl(
      sandbox,
      ['hook', 'session-start'],
      {},
      hookInput('07-SessionStart.json', sandbox, cwd),
    );
    const context = (JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
      .additionalContext;
    expect((await client.handoffStatus({ sessionId: compactions.sessionId })).injection).toMatchObject({
      source: 'compact',
      injected: null,
    });
    const at = new Date().toISOString();
    const line = (entry: Record<string, unknown>) =>
      `${JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: compactions.sessionId, cwd, timestamp: at, ...entry })}\n`;
    appendFileSync(
      transcript,
      line({
        type: 'attachment',
        uuid: 'b0000000-0000-4000-8000-000000000001',
        attachment: {
          type: 'hook_additional_context',
          content: [context],
          hookName: 'SessionStart',
          hookEvent: 'SessionStart',
        },
      }),
    );
    appendFileSync(
      transcript,
      line({ type: 'user', uuid: 'b0000000-0000-4000-8000-000000000002', message: { role: 'user', content: 'go on' } }),
    );
    await eventually(
      async () => (await client.handoffStatus({ sessionId: compactions.sessionId })).injection?.injected === true,
      'the injection to be found',
    );
    const status = await runMemctl(sandbox, ['status', compactions.sessionId]);
    expect(status.stdout).toContain('injected yes');

    // Another SessionStart whose context never shows up: reported as not injected.
    await runMemctl(sandbox, ['hook', 'session-start'], {}, hookInput('07-SessionStart.json', sandbox, cwd));
    appendFileSync(
      transcript,
      line({
        type: 'user',
        uuid: 'b0000000-0000-4000-8000-000000000003',
        timestamp: new Date(Date.now() + 1_000).toISOString(),
        message: { role: 'user', content: 'and again' },
      }),
    );
    await eventually(
      async () => (await client.handoffStatus({ sessionId: compactions.sessionId })).injection?.injected === false,
      'the missing injection to be reported',
    );
    expect((await runMemctl(sandbox, ['status', compactions.sessionId])).stdout).toContain('injected NO');
  });

  it('post-compact records the summary and what it lost', async () => {
    const run = await runMemctl(sandbox, ['hook', 'post-compact'], {}, hookInput('08-PostCompact.json', sandbox, cwd));
    expect(run).toMatchObject({ code: 0, stdout: '' });
    const status = await client.handoffStatus({ sessionId: compactions.sessionId });
    expect(status.compactions[0]).toMatchObject({ trigger: 'manual' });
    expect(status.compactions[0]?.summaryChars).toBeGreaterThan(100);
    expect(status.compactions[0]?.lost).not.toBeNull();
  });

  it('exits 0 with a partial handoff when the transcript is missing and the session unknown', async () => {
    const elsewhere = join(sandbox.root, 'elsewhere');
    mkdirSync(elsewhere);
    const input = hookInput('05-PreCompact.json', sandbox, elsewhere, {
      session_id: 'c0000000-0000-4000-8000-000000000000',
      transcript_path: join(sandbox.projectsDir, PROJECT, 'missing.jsonl'),
    });
    const run = await runMemctl(sandbox, ['hook', 'pre-compact'], {}, input);
    expect(run.code).toBe(0);
    expect(readFileSync(join(elsewhere, 'docs', 'handoff-context.md'), 'utf8')).toContain('HANDOFF_AUTO_PARTIAL');
  });

  it('exits 0 on input that is not the hook JSON', async () => {
    expect(await runMemctl(sandbox, ['hook', 'pre-compact'], {}, 'not json')).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('hooks with the daemon down', () => {
  it('pre-compact writes the HANDOFF_AUTO_PARTIAL fallback itself with the transcript tail; session-start falls back to the file', async () => {
    const sandbox = makeSandbox();
    const { cwd } = setUp(sandbox);
    const run = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'pre-compact'],
      {},
      hookInput('05-PreCompact.json', sandbox, cwd),
    );
    // A hook writes nothing to stderr whatever happens: what it has to say is in the state dir's hooks.log.
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(hookLogPath(sandbox.env), 'utf8')).toContain('wrote a partial handoff');
    const handoff = readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8');
    expect(handoff.split('\n')[0]).toContain('HANDOFF_AUTO_PARTIAL');
    expect(handoff).toContain('idempotency');
    const start = await runMemctl(
      sandbox,
      ['--no-autostart', 'hook', 'session-start'],
      {},
      hookInput('07-SessionStart.json', sandbox, cwd),
    );
    expect(start).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(start.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'SessionStart' } });
    expect(
      await runMemctl(
        sandbox,
        ['--no-autostart', 'hook', 'post-compact'],
        {},
        hookInput('08-PostCompact.json', sandbox, cwd),
      ),
    ).toMatchObject({ code: 0, stderr: '' });
    expect(await runMemctl(sandbox, ['--no-autostart', 'hook', 'pre-compact'], {}, 'not json')).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });
});

describe('a summarizer that hangs', () => {
  let api: MessagesApi;
  beforeAll(async () => {
    api = await startMessagesApi();
  });
  afterAll(() => api?.close());

  it('pre-compact returns within its deadline, exit 0, with a partial handoff', async () => {
    const sandbox = makeSandbox();
    const { cwd } = setUp(sandbox);
    api.script({ kind: 'slow', delayMs: 120_000, then: { kind: 'text', text: '{}' } });
    const daemon = await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
    });
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.daemonStatus()).ingest.stats.files === 1, 'the session to be indexed');
    } finally {
      client.close();
    }
    const deadlineMs = 3_000;
    const started = Date.now();
    const run = await runMemctl(
      sandbox,
      ['hook', 'pre-compact'],
      { MEMD_HOOK_DEADLINE_MS: String(deadlineMs) },
      hookInput('05-PreCompact.json', sandbox, cwd),
    );
    expect(run.code).toBe(0);
    // The hook's own deadline, plus node's start-up; far below Claude Code's 60 s.
    expect(Date.now() - started).toBeLessThan(deadlineMs + 10_000);
    expect(existsSync(join(cwd, 'docs', 'handoff-context.md'))).toBe(true);
    expect(readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8')).toContain('HANDOFF_AUTO_PARTIAL');
  });
});

describe('a summarizer that takes longer than the client default of 3 s', () => {
  let api: MessagesApi;
  beforeAll(async () => {
    api = await startMessagesApi();
  });
  afterAll(() => api?.close());

  it('pre-compact waits for it within its own deadline and writes the whole handoff', async () => {
    const sandbox = makeSandbox();
    const { cwd } = setUp(sandbox);
    const narrative = {
      task: 'Finish the invoice service',
      completedTasks: ['tests pass'],
      currentState: ['half done'],
      issues: [],
      openQuestions: [],
      nextSteps: ['write the export'],
      resumePrompt: 'Continue with the export.',
    };
    api.script({ kind: 'slow', delayMs: 4_000, then: { kind: 'text', text: JSON.stringify(narrative) } });
    const daemon = await startDaemon(sandbox, undefined, {
      MEMD_SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: api.url,
    });
    keepForFile(sandbox, daemon);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.daemonStatus()).ingest.stats.files === 1, 'the session to be indexed');
    } finally {
      client.close();
    }
    const run = await runMemctl(sandbox, ['hook', 'pre-compact'], {}, hookInput('05-PreCompact.json', sandbox, cwd));
    expect(run.code).toBe(0);
    // Before, the client gave up after 3 s and the hook wrote the partial fallback.
    const handoff = readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8');
    expect(handoff).not.toContain('HANDOFF_AUTO_PARTIAL');
    expect(handoff).toContain('Continue with the export.');
    expect(api.requests.length).toBe(1);
  });
});

describe('every recorded hook input of every fixture', () => {
  const HOOK_OF: Record<string, string> = {
    PreCompact: 'pre-compact',
    SessionStart: 'session-start',
    PostCompact: 'post-compact',
  };

  it('gives exit 0 and the documented output, replayed into memctl hook', { timeout: 180_000 }, async () => {
    const sandbox = makeSandbox();
    const scenarios = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, 'hooks')));
    copyFixtureProjects(sandbox.projectsDir, scenarios);
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    let replayed = 0;
    for (const scenario of scenarios) {
      const cwd = join(sandbox.root, 'cwd', scenario);
      mkdirSync(cwd, { recursive: true });
      for (const file of readdirSync(join(FIXTURES, scenario, 'hooks')).sort()) {
        const recorded = JSON.parse(readFileSync(join(FIXTURES, scenario, 'hooks', file), 'utf8')) as Recorded;
        const name = HOOK_OF[String(recorded.stdin.hook_event_name)];
        if (name === undefined) continue;
        const input = JSON.stringify({
          ...recorded.stdin,
          cwd,
          transcript_path: String(recorded.stdin.transcript_path).replace(RECORDED_PROJECTS, sandbox.projectsDir),
        });
        const run = await runMemctl(sandbox, ['hook', name], {}, input);
        replayed++;
        expect(run.code, `${scenario}/${file}: ${run.stderr}`).toBe(0);
        if (name === 'pre-compact')
          expect(readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8')).toContain('## Resume Prompt');
        if (name === 'post-compact') expect(run.stdout).toBe('');
        if (name === 'session-start') {
          const source = String(recorded.stdin.source);
          const handoffThere = existsSync(join(cwd, 'docs', 'handoff-context.md'));
          if ((source === 'compact' || source === 'resume') && handoffThere) {
            expect(JSON.parse(run.stdout)).toMatchObject({
              hookSpecificOutput: {
                hookEventName: 'SessionStart',
                additionalContext: expect.stringContaining('## Resume Prompt'),
              },
            });
          } else expect(run.stdout, `${scenario}/${file} (${source})`).toBe('');
        }
      }
    }
    expect(replayed).toBe(27);
  });
});

describe('memctl handoff and install-hooks as commands', () => {
  it('memctl handoff prints the pinned rules of the user verbatim and writes the file in the session cwd', async () => {
    const sandbox = makeSandbox();
    copyFixtureProjects(sandbox.projectsDir, ['corrections']);
    const corrections = manifest('corrections');
    const daemon = await startDaemon(sandbox);
    keepForFile(sandbox, daemon);
    const cwd = join(sandbox.root, 'price-scraper');
    mkdirSync(cwd);
    const client = createClient({ env: sandbox.env, autostart: false });
    try {
      await eventually(async () => (await client.daemonStatus()).ingest.stats.files >= 1, 'the session to be indexed');
    } finally {
      client.close();
    }
    const run = await runMemctl(sandbox, ['handoff', corrections.sessionId, '--cwd', cwd]);
    expect(run.code).toBe(0);
    for (const constraint of corrections.constraints) expect(run.stdout).toContain(constraint.text);
    expect(readFileSync(join(cwd, 'docs', 'handoff-context.md'), 'utf8')).toContain(corrections.constraints[0]?.text);
  });

  it('memctl install-hooks merges into settings.json with the other hooks kept, twice without change, and refuses invalid JSON', async () => {
    const sandbox = makeSandbox();
    const claudeRoot = sandbox.env.CLAUDE_CONFIG_DIR as string;
    mkdirSync(claudeRoot, { recursive: true });
    cpSync(join(SCENARIO, 'settings.json'), join(claudeRoot, 'settings.json'));
    const first = await runMemctl(sandbox, ['install-hooks']);
    expect(first.code).toBe(0);
    const settings = JSON.parse(readFileSync(join(claudeRoot, 'settings.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const commands = Object.values(settings.hooks)
      .flat()
      .flatMap((entry) => entry.hooks.map((hook) => hook.command));
    for (const name of ['pre-compact', 'session-start', 'post-compact', 'turn-start', 'turn-end', 'tool-failed'])
      expect(commands.some((command) => command.endsWith(`hook ${name}`))).toBe(true);
    // Issue 33: the failure note on PostToolUseFailure (a failing Bash call fires no PostToolUse).
    expect(settings.hooks.PostToolUseFailure?.flatMap((entry) => entry.hooks.map((hook) => hook.command))).toEqual([
      expect.stringMatching(/hook tool-failed$/),
    ]);
    expect(commands.filter((command) => command.includes('hook-log.mjs'))).toHaveLength(7);
    const doctor = (await runMemctl(sandbox, ['--no-autostart', 'doctor'])).stdout;
    expect(doctor).toMatch(
      /ok +hooks +PreCompact, SessionStart, PostCompact, UserPromptSubmit, Stop, SessionEnd, StopFailure, InstructionsLoaded, PostToolUseFailure in/,
    );
    expect(doctor).toMatch(/-- +statusline +not set in .* \(optional: memctl install-statusline\)/);
    expect((await runMemctl(sandbox, ['install-statusline'])).code).toBe(0);
    expect((await runMemctl(sandbox, ['--no-autostart', 'doctor'])).stdout).toMatch(
      /ok +statusline +memctl statusline in/,
    );
    const before = readFileSync(join(claudeRoot, 'settings.json'), 'utf8');
    expect((await runMemctl(sandbox, ['install-hooks'])).code).toBe(0);
    expect(readFileSync(join(claudeRoot, 'settings.json'), 'utf8')).toBe(before);
    writeFileSync(join(claudeRoot, 'settings.json'), '{ "hooks": { ');
    const refused = await runMemctl(sandbox, ['install-hooks']);
    expect(refused.code).toBe(1);
    expect(readFileSync(join(claudeRoot, 'settings.json'), 'utf8')).toBe('{ "hooks": { ');
  });
});
