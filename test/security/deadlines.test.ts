/**
 * Issue 13 item 10: a long operation honours its deadline and its cancellation. handoff.generate
 * runs git, which can hang (a network mount, a huge tree, a hook): all of git's commands share
 * one deadline (`gitTimeoutMs`), past which git's whole process group is killed and the handoff is
 * written without git's facts, saying so; a client that goes away, or a shutdown, kills git too.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/client.js';
import { EXIT_MARGIN_MS, exitWithin, handoffInFlight, hangingGitSetup, isGone } from '../helpers/hanging-git.js';
import { eventually, startDaemon } from '../helpers/sandbox.js';

describe('handoff.generate with a git that hangs', () => {
  it('answers at the git deadline with the handoff marked as having no git facts, and kills git', async () => {
    const s = hangingGitSetup();
    await startDaemon(s.sandbox, undefined, { ...s.env, MEMD_GIT_TIMEOUT_MS: '1000' });
    const client = createClient({ env: s.sandbox.env, autostart: false });
    try {
      const started = Date.now();
      const result = await client.handoffGenerate({ transcriptPath: s.transcriptPath, cwd: s.cwd });
      expect(Date.now() - started).toBeLessThan(1_000 + EXIT_MARGIN_MS);
      expect(result.facts.git).toBeNull();
      expect(result.facts.gitProblem).toMatch(/^`git (status|diff --stat)` did not answer within 1 s and was stopped$/);
      expect(result.text).toContain('Git: not read (`git ');
      expect(result.text).toContain("the working tree's state is unknown");
      // The rest of the handoff is there: the transcript's facts do not depend on git.
      expect(result.text).toContain('Fix the login redirect');
      expect(s.children().length).toBeGreaterThan(0);
      await eventually(() => s.children().every(isGone), 'the hanging git to be killed');
    } finally {
      client.close();
    }
  });

  it('a client that disconnects stops git at once', async () => {
    const s = hangingGitSetup();
    await startDaemon(s.sandbox, undefined, { ...s.env, MEMD_GIT_TIMEOUT_MS: '60000' });
    const socket = await handoffInFlight(s);
    socket.close();
    await eventually(() => s.children().every(isGone), 'the hanging git to be killed', 3_000);
  });

  it('a shutdown during it is not held up: requests are cancelled after the grace and git is killed', async () => {
    const s = hangingGitSetup();
    const daemon = await startDaemon(s.sandbox, undefined, {
      ...s.env,
      MEMD_GIT_TIMEOUT_MS: '60000',
      MEMD_SHUTDOWN_GRACE_MS: '500',
    });
    const socket = await handoffInFlight(s);
    daemon.child.kill('SIGTERM');
    expect(await exitWithin(daemon, 500 + EXIT_MARGIN_MS)).toEqual({ code: 0, signal: null });
    // Killed with the request, not left behind as orphans of the daemon.
    await eventually(() => s.children().every(isGone), 'the hanging git to be killed', 3_000);
    await socket.waitClosed();
  });
});
