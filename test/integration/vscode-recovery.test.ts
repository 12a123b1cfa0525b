/**
 * The VS Code extension's link to memd across a daemon's life: it says memd is gone when memd
 * stops or is killed, comes back by itself (backoff, re-subscription) when memd restarts, reloads
 * what it missed and gets events again; and it starts memd only when the user asked.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Controller } from '../../client/vscode/src/controller.js';
import { runStartCommand } from '../../client/vscode/src/start.js';
import { createClient } from '../helpers/client.js';
import { eventually, MEMCTL_MAIN, makeSandbox, type Sandbox, startDaemon } from '../helpers/sandbox.js';
import {
  appendResponse,
  caughtUp,
  controllerFor,
  installFixtures,
  type Workspace,
} from '../unit/client/vscode/sandbox-fixture.js';

const controllers: Controller[] = [];

afterEach(() => {
  for (const controller of controllers.splice(0)) controller.dispose();
});

async function setUp(): Promise<{ sandbox: Sandbox; workspace: Workspace }> {
  const sandbox = makeSandbox();
  const workspace = installFixtures(sandbox);
  return { sandbox, workspace };
}

function track(controller: Controller): Controller {
  controllers.push(controller);
  return controller;
}

const generation = (controller: Controller) =>
  controller.linkState.kind === 'connected' ? controller.linkState.generation : 0;

/** The workspace session as the controller shows it reaches `tokens` (memd sent session.updated). */
async function seesContext(controller: Controller, workspace: Workspace, id: string, cacheRead: number): Promise<void> {
  appendResponse(workspace, id, cacheRead);
  await eventually(
    () => controller.currentSession?.contextTokens === cacheRead + 110,
    `the update to ${cacheRead + 110} tokens (shown: ${controller.currentSession?.contextTokens})`,
  );
}

async function stop(sandbox: Sandbox, reason: string): Promise<void> {
  const stopper = createClient({ env: sandbox.env, autostart: false });
  try {
    await stopper.daemonShutdown({ reason });
  } finally {
    stopper.close();
  }
}

describe('a daemon restart', () => {
  it('after a graceful stop: says memd stopped, then reconnects, reloads and gets events again', async () => {
    const { sandbox, workspace } = await setUp();
    const first = await startDaemon(sandbox);
    await caughtUp(sandbox);
    const controller = track(controllerFor(sandbox, [workspace.folder]));
    await controller.start();
    await eventually(() => controller.currentSession !== null, 'the workspace session');
    expect(generation(controller)).toBe(1);
    await seesContext(controller, workspace, 'before', 30_000);

    await stop(sandbox, 'upgrade');
    await first.exited;
    await eventually(() => controller.linkState.kind === 'disconnected', 'the link to go down');
    expect(controller.linkState.kind === 'disconnected' && controller.linkState.reason).toMatch(
      /memd is stopping \(upgrade\)|memd is not running/,
    );
    expect(controller.status().text).toBe('$(debug-disconnect) memd');
    expect(controller.treeNodes()).toEqual([]);
    expect(controller.treeMessage()).toMatch(/^memd is not answering: /);

    await startDaemon(sandbox);
    await eventually(
      () => generation(controller) === 2 && controller.currentSession !== null,
      'the link to come back and reload',
    );
    expect(controller.currentSession?.contextTokens).toBe(30_110);
    expect(controller.sessions.all.length).toBeGreaterThan(1);
    // Events reach it again: it subscribed on the new connection.
    await seesContext(controller, workspace, 'after', 40_000);
  });

  it('after a crash (no daemon.stopping): notices, waits with a backoff, and comes back', async () => {
    const { sandbox, workspace } = await setUp();
    const first = await startDaemon(sandbox);
    await caughtUp(sandbox);
    const controller = track(controllerFor(sandbox, [workspace.folder]));
    await controller.start();
    await eventually(() => controller.currentSession !== null, 'the workspace session');

    first.child.kill('SIGKILL');
    await first.exited;
    await eventually(() => controller.linkState.kind === 'disconnected', 'the link to notice the crash');
    // It keeps knocking while memd is away, and the wait grows.
    const waits: number[] = [];
    const stopListening = controller.link.listen({
      state: (state) => state.kind === 'disconnected' && state.retryInMs !== null && waits.push(state.retryInMs),
    });
    await eventually(() => waits.length >= 3, 'three more attempts');
    stopListening();
    expect(waits[2]).toBeGreaterThan(waits[0] ?? 0);

    await startDaemon(sandbox);
    await eventually(() => generation(controller) === 2 && controller.currentSession !== null, 'the link to come back');
    await seesContext(controller, workspace, 'after-crash', 50_000);
  });
});

describe('starting memd', () => {
  const memctlStart = (sandbox: Sandbox) => () =>
    runStartCommand([process.execPath, MEMCTL_MAIN, 'start'], sandbox.env);

  it('is never done without the user: memd.autostart is off by default', async () => {
    const { sandbox, workspace } = await setUp();
    let starts = 0;
    const start = memctlStart(sandbox);
    const controller = track(
      controllerFor(
        sandbox,
        [workspace.folder],
        {},
        {
          starter: () => {
            starts++;
            return start();
          },
        },
      ),
    );
    await controller.start();
    expect(controller.linkState.kind).toBe('disconnected');
    const attempts: number[] = [];
    controller.link.listen({ state: () => attempts.push(1) });
    await eventually(() => attempts.length >= 3, 'more attempts');
    expect(starts).toBe(0);
    expect(existsSync(sandbox.socketPath)).toBe(false);
  });

  it('runs the start command at activation with memd.autostart, and connects', async () => {
    const { sandbox, workspace } = await setUp();
    const controller = track(
      controllerFor(sandbox, [workspace.folder], { autostart: true }, { starter: memctlStart(sandbox) }),
    );
    await controller.start();
    expect(controller.linkState.kind).toBe('connected');
    await eventually(() => controller.currentSession?.sessionId === workspace.sessionId, 'the workspace session');
  });

  it('runs the start command when the user asks (memd: Start the Daemon), and connects', async () => {
    const { sandbox, workspace } = await setUp();
    const controller = track(controllerFor(sandbox, [workspace.folder], {}, { starter: memctlStart(sandbox) }));
    await controller.start();
    expect(controller.linkState.kind).toBe('disconnected');
    const outcome = await controller.startDaemon();
    expect(outcome.ok, outcome.message).toBe(true);
    expect(controller.linkState.kind).toBe('connected');
    await eventually(() => controller.currentSession?.sessionId === workspace.sessionId, 'the workspace session');
  });
});
