// `npm run bench -- hooks`: what Claude Code pays on every message and every prompt. Wall time of
// `memctl statusline` (a real session, warm daemon) against bare `node -e 0` (target <= 1.3x),
// and the time `memctl hook turn-start` / `turn-end` add over `node -e 0` (target <= 50 ms), with
// a warm daemon and with none; the same with a prompt that recall answers (issue 33), and `memctl hook
// tool-failed` after a failed command (target <= 50 ms each). Runs alternate so that both sides see the same machine state.
// `memctl hook session-start` (source startup) with a warm daemon and with none, where it starts one
// in the background: what starting adds over the same hook with autostart off (target <= 50 ms,
// issue 29); the daemon it started is stopped after each run, so that every run finds none.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DAEMON_MAIN,
  fmt,
  MEMCTL_COMMAND,
  makeSandbox,
  median,
  percentile,
  ROOT,
  STEP_DEADLINE_MS,
  spawnProcess,
  waitForSocket,
} from './lib.js';

const RUNS = 40;
/** Each run with no daemon starts one and waits for it to stop again: fewer of them. */
const START_RUNS = 15;
const WARMUP_RUNS = 5;
/** Targets of issue 16. */
const MAX_STATUSLINE_RATIO = 1.3;
const MAX_HOOK_ADDED_MS = 50;
const FIXTURE = join(ROOT, 'test/fixtures/claude-code/coding-loop/projects');

function timeRun(args, env, input) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 || result.stderr.length > 0)
    throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout.toString() };
}

/** Medians (and p95s) of each command, alternated with `node -e 0` run by run. */
function alternate(commands, env) {
  const times = { node: [], ...Object.fromEntries(commands.map(({ name }) => [name, []])) };
  const sample = {};
  // The first output each printed (recall gives a passage once per session: later runs print nothing).
  const printed = {};
  for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
    const bare = timeRun(['-e', '0'], env).ms;
    for (const { name, args, input } of commands) {
      const run = timeRun(args, env, input);
      sample[name] = run.stdout;
      if (printed[name] === undefined && run.stdout !== '') printed[name] = run.stdout;
      if (i >= WARMUP_RUNS) times[name].push(run.ms);
    }
    if (i >= WARMUP_RUNS) times.node.push(bare);
  }
  const stats = Object.fromEntries(
    Object.entries(times).map(([name, list]) => [
      name,
      {
        median: median(list),
        p95: percentile(
          [...list].sort((a, b) => a - b),
          95,
        ),
      },
    ]),
  );
  return { stats, sample, printed };
}

/** Stops the daemon the hook started (its lock names it) and waits for it to be gone. */
async function stopStarted(sandbox) {
  await waitForSocket(sandbox.socketPath);
  const pid = Number.parseInt(readFileSync(join(sandbox.env.XDG_STATE_HOME, 'memd', 'memd.lock'), 'utf8'), 10);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STEP_DEADLINE_MS;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`memd (pid ${pid}) did not stop within ${STEP_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `memctl hook session-start` with no daemon, starting one, alternated with the same hook with
 * autostart off (MEMD_NO_AUTOSTART) and `node -e 0`: their difference is what starting adds.
 */
async function sessionStartCold(sandbox, input) {
  const times = { node: [], off: [], start: [] };
  const off = { ...sandbox.env, MEMD_NO_AUTOSTART: '1' };
  for (let i = 0; i < WARMUP_RUNS + START_RUNS; i++) {
    const bare = timeRun(['-e', '0'], sandbox.env).ms;
    const without = timeRun([MEMCTL_COMMAND, 'hook', 'session-start'], off, input).ms;
    const start = timeRun([MEMCTL_COMMAND, 'hook', 'session-start'], sandbox.env, input).ms;
    await stopStarted(sandbox);
    if (i < WARMUP_RUNS) continue;
    times.node.push(bare);
    times.off.push(without);
    times.start.push(start);
  }
  const p95 = (list) =>
    percentile(
      [...list].sort((a, b) => a - b),
      95,
    );
  return { node: median(times.node), off: median(times.off), start: median(times.start), startP95: p95(times.start) };
}

export async function benchHooks() {
  const sandbox = makeSandbox();
  cpSync(FIXTURE, sandbox.env.MEMD_PROJECTS_DIR, { recursive: true });
  const project = readdirSync(sandbox.env.MEMD_PROJECTS_DIR)[0];
  const transcript = readdirSync(join(sandbox.env.MEMD_PROJECTS_DIR, project)).find((name) => name.endsWith('.jsonl'));
  const sessionId = transcript.replace(/\.jsonl$/, '');
  const input = JSON.stringify({
    session_id: sessionId,
    transcript_path: join(sandbox.env.MEMD_PROJECTS_DIR, project, transcript),
    cwd: '/home/user/src/invoice-service',
    model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
    // Issue 31: the reasoning effort (2.1.197 sends it for models that take one), its own sessions.report.
    effort: { level: 'high' },
    cost: { total_cost_usd: 0.38 },
    context_window: {
      context_window_size: 200_000,
      current_usage: {
        input_tokens: 5,
        output_tokens: 300,
        cache_creation_input_tokens: 1_000,
        cache_read_input_tokens: 20_000,
      },
    },
    // Issue 31: the plan limits and the prompt cache, shown as segments and sent to memd (sessions.report).
    rate_limits: {
      five_hour: { used_percentage: 42.5, resets_at: Math.floor(Date.now() / 1000) + 6_000 },
      seven_day: { used_percentage: 12.5, resets_at: Math.floor(Date.now() / 1000) + 300_000 },
    },
    prompt_cache: {
      ttl: '5m',
      expires_at: Math.floor(Date.now() / 1000) + 240,
      hit_ratio: 0.97,
      warm: true,
      misses: 1,
      expected_rebuilds: 0,
      last_miss_at: Math.floor(Date.now() / 1000) - 600,
      last_miss_cause: { causes: ['tools_changed'] },
    },
  });
  const startInput = JSON.stringify({
    session_id: sessionId,
    cwd: sandbox.root,
    hook_event_name: 'SessionStart',
    source: 'startup',
    model: 'claude-sonnet-4-5',
  });
  // Issue 33: a prompt in another session that the fixture's session answers (recall.forPrompt
  // searches, weighs and frames; after its first run the passage is one already given, found again
  // each time), and a failed call whose error is looked up (recall.forFailure).
  const asking = { session_id: '0bec4000-0000-4000-8000-000000000033', cwd: '/home/user/src/invoice-service' };
  const recallInput = JSON.stringify({
    ...asking,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'How did we fix the overcharged invoices with a fixed discount and tax in computeTotal?',
  });
  const failedInput = JSON.stringify({
    ...asking,
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command: 'npm test' },
    tool_use_id: 'toolu_bench',
    error: 'Exit code 1\nFAIL test/invoice.test.js\n  AssertionError: expected computeTotal(invoice) to equal 108',
  });
  const commands = [
    { name: 'statusline', args: [MEMCTL_COMMAND, 'statusline'], input },
    { name: 'turn-start', args: [MEMCTL_COMMAND, 'hook', 'turn-start'], input },
    { name: 'turn-end', args: [MEMCTL_COMMAND, 'hook', 'turn-end'], input },
    { name: 'turn-start+recall', args: [MEMCTL_COMMAND, 'hook', 'turn-start'], input: recallInput },
    { name: 'tool-failed', args: [MEMCTL_COMMAND, 'hook', 'tool-failed'], input: failedInput },
  ];
  const sessionStart = { name: 'session-start', args: [MEMCTL_COMMAND, 'hook', 'session-start'], input: startInput };
  let ok = true;
  const report = (line, pass) => {
    console.log(`  ${line}${pass === undefined ? '' : `: ${pass ? 'PASS' : 'FAIL'}`}`);
    if (pass === false) ok = false;
  };
  console.log(`hooks: wall time per run, median (p95) over ${RUNS} runs each, alternated with node -e 0`);
  const cold = alternate(commands, sandbox.env);
  const coldStart = await sessionStartCold(sandbox, startInput);
  const daemon = spawnProcess([DAEMON_MAIN, '--foreground'], sandbox.env);
  try {
    await waitForSocket(sandbox.socketPath);
    const warm = alternate([...commands, sessionStart], sandbox.env);
    const { stats } = warm;
    const ratio = stats.statusline.median / stats.node.median;
    report(`node -e 0                      ${fmt(stats.node.median)} ms (${fmt(stats.node.p95)})`);
    report(
      `memctl statusline, warm memd   ${fmt(stats.statusline.median)} ms (${fmt(stats.statusline.p95)}), ${fmt(ratio, 2)}x node (target <= ${MAX_STATUSLINE_RATIO})`,
      ratio <= MAX_STATUSLINE_RATIO,
    );
    report(`  its line: ${warm.sample.statusline.trim()}`);
    // What recall printed (once per session: its first run).
    for (const name of ['turn-start+recall', 'tool-failed'])
      report(`  ${name} printed: ${(warm.printed[name] ?? '(nothing)').slice(0, 300).replaceAll('\\n', ' ')}…`);
    for (const name of ['turn-start', 'turn-end', 'turn-start+recall', 'tool-failed']) {
      const added = stats[name].median - stats.node.median;
      report(
        `memctl hook ${name}, warm memd ${fmt(stats[name].median)} ms (${fmt(stats[name].p95)}), adds ${fmt(added)} ms (target <= ${MAX_HOOK_ADDED_MS})`,
        added <= MAX_HOOK_ADDED_MS,
      );
    }
    const coldNode = cold.stats.node.median;
    report(
      `no memd: statusline ${fmt(cold.stats.statusline.median)} ms, turn-start +${fmt(cold.stats['turn-start'].median - coldNode)} ms, turn-end +${fmt(cold.stats['turn-end'].median - coldNode)} ms, turn-start+recall +${fmt(cold.stats['turn-start+recall'].median - coldNode)} ms, tool-failed +${fmt(cold.stats['tool-failed'].median - coldNode)} ms over node -e 0 (${fmt(coldNode)} ms)`,
    );
    report(`  its line: ${cold.sample.statusline.trim()}`);
    const warmStart = stats['session-start'].median;
    const startAdded = coldStart.start - coldStart.off;
    // A new session's SessionStart (source startup) adds no more than a hook may (issue 29's quick path).
    const startOver = warmStart - stats.node.median;
    report(
      `memctl hook session-start, warm memd ${fmt(warmStart)} ms (${fmt(stats['session-start'].p95)}), adds ${fmt(startOver)} ms over node -e 0 (target <= ${MAX_HOOK_ADDED_MS})`,
      startOver <= MAX_HOOK_ADDED_MS,
    );
    report(
      `memctl hook session-start, no memd: starting one ${fmt(coldStart.start)} ms (${fmt(coldStart.startP95)}), autostart off ${fmt(coldStart.off)} ms, node -e 0 ${fmt(coldStart.node)} ms (${START_RUNS} runs); starting adds ${fmt(startAdded)} ms (target <= ${MAX_HOOK_ADDED_MS})`,
      startAdded <= MAX_HOOK_ADDED_MS,
    );
  } finally {
    await daemon.stop();
    sandbox.cleanup();
  }
  return ok;
}
