/**
 * A sandboxed memd for the VS Code extension's integration tests (test/integration/vscode*.test.ts,
 * kept beside the unit tests' mock): the recorded sessions, with the coding-loop session moved to
 * a real directory of the sandbox (its cwd is the workspace folder, and handoffs are written
 * there), and controllers that retry and watch quickly.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, createClient } from '../../../../client/index.js';
import { Controller, type ControllerOptions } from '../../../../client/vscode/src/controller.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../../client/vscode/src/settings.js';
import { manifest } from '../../../helpers/fixtures.js';
import { copyFixtureProjects, FIXTURES, SCENARIOS } from '../../../helpers/ingest.js';
import { eventually, type Sandbox } from '../../../helpers/sandbox.js';

/** The session whose folder is the workspace in these tests. */
export const WORKSPACE_SCENARIO = 'coding-loop';
/** Fast enough that a restart is noticed within a test, slow enough not to spin. */
export const TEST_TIMING = { retryFirstMs: 50, retryMaxMs: 400, watchMs: 20 } as const;

export interface Workspace {
  folder: string;
  sessionId: string;
  transcript: string;
}

/** Claude Code's project folder name for a cwd (DESIGN.md §2), for the short sandbox paths used here. */
function projectName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Copies the fixtures into the sandbox, the workspace scenario under a cwd of the sandbox's own. */
export function installFixtures(sandbox: Sandbox): Workspace {
  copyFixtureProjects(
    sandbox.projectsDir,
    SCENARIOS.filter((scenario) => scenario !== WORKSPACE_SCENARIO),
  );
  const recorded = manifest(WORKSPACE_SCENARIO);
  const folder = join(sandbox.root, 'work', 'invoice-service');
  mkdirSync(folder, { recursive: true });
  const source = join(FIXTURES, WORKSPACE_SCENARIO, 'projects', projectName(recorded.cwd));
  const target = join(sandbox.projectsDir, projectName(folder));
  cpSync(source, target, { recursive: true });
  for (const name of readdirSync(target).filter((file) => file.endsWith('.jsonl'))) {
    const path = join(target, name);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(recorded.cwd, folder));
  }
  return { folder, sessionId: recorded.sessionId, transcript: join(target, `${recorded.sessionId}.jsonl`) };
}

/** Waits until memd has read every fixture. */
export async function caughtUp(sandbox: Sandbox): Promise<void> {
  const client: Client = createClient({ env: sandbox.env, autostart: false });
  try {
    await eventually(async () => {
      const { ingest } = await client.daemonStatus();
      return (
        ingest.progress.state === 'live' &&
        ingest.progress.filesPending === 0 &&
        ingest.stats.sessions >= SCENARIOS.length
      );
    }, 'ingest to catch up');
  } finally {
    client.close();
  }
}

export function controllerFor(
  sandbox: Sandbox,
  folders: string[],
  settings: Partial<Settings> = {},
  options: Partial<ControllerOptions> = {},
): Controller {
  return new Controller({
    settings: { ...DEFAULT_SETTINGS, ...settings },
    folders,
    env: sandbox.env,
    timing: TEST_TIMING,
    ...options,
  });
}

/** The uuid of the transcript's newest main-thread entry: the next entry's parent, as Claude Code chains them. */
function lastUuid(transcript: string): string | null {
  const lines = readFileSync(transcript, 'utf8').split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]?.trim();
    if (!line) continue;
    const entry = JSON.parse(line) as { uuid?: unknown; isSidechain?: unknown };
    if (typeof entry.uuid === 'string' && entry.isSidechain !== true) return entry.uuid;
  }
  return null;
}

/**
 * An assistant response that takes the session's context to `cacheRead` + 110 tokens, chained to
 * the conversation (a parentless one would be a conversation of one reply: nothing to compact).
 */
export function appendResponse(workspace: Workspace, id: string, cacheRead: number): void {
  const recorded = manifest(WORKSPACE_SCENARIO);
  const line = {
    parentUuid: lastUuid(workspace.transcript),
    isSidechain: false,
    type: 'assistant',
    uuid: `vscode-${id}`,
    timestamp: new Date().toISOString(),
    sessionId: workspace.sessionId,
    cwd: workspace.folder,
    requestId: `req_vscode_${id}`,
    message: {
      id: `msg_vscode_${id}`,
      role: 'assistant',
      model: recorded.model,
      content: [{ type: 'text', text: 'done' }],
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cacheRead,
        output_tokens: 100,
      },
    },
  };
  writeFileSync(workspace.transcript, `${JSON.stringify(line)}\n`, { flag: 'a' });
}
