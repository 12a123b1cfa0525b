/**
 * What the optional tests with real Claude Code (MEMD_CLAUDE_BIN) set up alike: its first-run
 * dialogs answered in its global config, and an environment that points it at the scripted API
 * and nowhere else.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Theme, API key approval and folder trust answered beforehand, so that no dialog waits for a key. */
export function answerFirstRun(claudeDir: string, cwd: string, apiKey: string): void {
  writeFileSync(
    join(claudeDir, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: [apiKey], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
}

/** `base` without proxies, Claude Code pointed at the scripted API, its background traffic off. */
export function claudeCodeEnv(base: NodeJS.ProcessEnv, apiUrl: string, apiKey: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const key of Object.keys(env)) if (/_proxy$/i.test(key)) delete env[key];
  return Object.assign(env, {
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: apiKey,
    NO_PROXY: '127.0.0.1,localhost',
    // Claude Code refuses --dangerously-skip-permissions as root outside a sandbox.
    IS_SANDBOX: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  });
}

/** The `claude` executable the optional tests run (MEMD_CLAUDE_BIN); '' skips them. */
export const CLAUDE_BIN = process.env.MEMD_CLAUDE_BIN ?? '';
/** Interactive tests drive Claude Code's TUI through tmux; without it they are skipped. */
export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** Whether a suite that needs tmux (or not) runs here. */
export function claudeCodeRuns(needsTmux: boolean): boolean {
  return CLAUDE_BIN !== '' && (!needsTmux || HAS_TMUX);
}

/** A suite's title: what it runs, or how to run it when it is skipped. */
export function claudeCodeSuiteTitle(suite: string, needsTmux: boolean): string {
  return claudeCodeRuns(needsTmux)
    ? `${suite} (${CLAUDE_BIN})`
    : `${suite} (skipped: set MEMD_CLAUDE_BIN to the claude executable of @anthropic-ai/claude-code 2.1.197${needsTmux ? ', with tmux on the PATH,' : ','} in a network namespace with loopback only)`;
}

/** The command line that runs Claude Code: the native executable, or its cli.js under this node. */
export function claudeCommand(args: string[]): string[] {
  return /\.[cm]?js$/.test(CLAUDE_BIN) ? [process.execPath, CLAUDE_BIN, ...args] : [CLAUDE_BIN, ...args];
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs Claude Code in `cwd` to its end, killed past `deadlineMs`; its exit code and output. */
export function runClaudeCode(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; deadlineMs: number },
): Promise<ClaudeRun> {
  const [command, ...rest] = claudeCommand(args) as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, rest, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
