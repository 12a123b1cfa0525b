/** `memctl install-service [--dry-run]`: the user units, installed and enabled. */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClientError } from '../../errors.js';
import { writeFileAtomic } from '../atomic-file.js';
import { type Command, type CommandContext, UsageError } from '../context.js';
import { renderUnits, UNIT_NAMES } from '../units.js';
import { stopWaitMs, waitForExit } from './lifecycle.js';

/** systemctl answers in milliseconds; a hang means no usable user manager. */
const SYSTEMCTL_TIMEOUT_MS = 15_000;

function systemctl(args: string[]): { ok: true } | { ok: false; reason: string } {
  try {
    execFileSync('systemctl', ['--user', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: SYSTEMCTL_TIMEOUT_MS,
    });
    return { ok: true };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { ok: false, reason: stderr || (error as Error).message };
  }
}

/** A memd started outside systemd holds the socket path; it must go before systemd binds it. */
async function stopUnmanagedDaemon(ctx: CommandContext): Promise<void> {
  const client = ctx.client({ autostart: false });
  try {
    const status = await client.daemonStatus();
    if (status.socketActivated) return;
    const answer = await client.daemonShutdown({ reason: 'memctl install-service: handing over to systemd' });
    // Until it is gone it holds the instance lock, and the memd systemd starts would refuse to run.
    if (await waitForExit(status.pid, stopWaitMs(answer)))
      ctx.out.out(`stopped the running memd (pid ${status.pid}) so that systemd can take over its socket`);
    else
      ctx.out.err(
        `memctl: the running memd (pid ${status.pid}) did not stop; systemd's memd cannot start until it does (kill -9 ${status.pid})`,
      );
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
  } finally {
    client.close();
  }
}

export const installService: Command = async (ctx) => {
  const dryRun = ctx.args.includes('--dry-run');
  const unknown = ctx.args.filter((arg) => arg !== '--dry-run');
  if (unknown.length > 0) throw new UsageError(`install-service does not take ${unknown[0]}`);
  const units = renderUnits();
  const unitDir = ctx.client({ autostart: false }).paths.systemdUserDir;
  if (dryRun) {
    for (const name of UNIT_NAMES) ctx.out.out(`# ${join(unitDir, name)}\n${units[name]}`);
    return 0;
  }
  mkdirSync(unitDir, { recursive: true });
  for (const name of UNIT_NAMES) {
    writeFileAtomic(join(unitDir, name), units[name]);
    ctx.out.out(`wrote ${join(unitDir, name)}`);
  }
  const reload = systemctl(['daemon-reload']);
  if (!reload.ok) {
    ctx.out.out(`systemctl --user does not work here (${reload.reason.split('\n')[0]}).`);
    ctx.out.out('Once you are in a session with a user systemd, run:');
    ctx.out.out('  systemctl --user daemon-reload');
    ctx.out.out('  systemctl --user enable --now memd.socket');
    ctx.out.out('Until then, memctl starts memd by itself when it is needed.');
    return 0;
  }
  await stopUnmanagedDaemon(ctx);
  const enable = systemctl(['enable', '--now', 'memd.socket']);
  if (!enable.ok) {
    ctx.out.err(`memctl: systemctl --user enable --now memd.socket failed: ${enable.reason}`);
    ctx.out.err('Check it with: systemctl --user status memd.socket; journalctl --user -u memd');
    return 1;
  }
  ctx.out.out('enabled and started memd.socket; memd starts on the first connection');
  return 0;
};
